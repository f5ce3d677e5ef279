/**
 * `ToolGovernor`: what the proxy does for each `tools/list` and `tools/call`, independent of the
 * MCP transport in front of it. The actions domain decides each tool for the session's user
 * (never for anyone named in arguments); approvals are bound to the user, the tool and the digest
 * of the canonical arguments; every call is audited (`tool_invocation`) through the AuditSink port.
 */
import { type ClassificationLevel, type Clock, nowMs, systemClock, type ToolCallInbox } from '@agentgov/core';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { approvalOf, takeApproval } from './approval';
import { LimitsSchema, type McpLimits } from './config';
import {
  actionsQuery,
  auditUnavailable,
  autonomyOf,
  type Decided,
  notForwarded,
  rateLimited,
  upstreamFailure,
} from './decision';
import { canonicalArguments, canonicalOrUndefined, digestOfCanonical } from './digest';
import { ToolCallRefused } from './errors';
import { auditEntryOf, auditText, type CallFacts, forwardingEntryOf } from './facts';
import { forwardOptionsOf } from './forward';
import { listSessionTools, notListed } from './listing';
import { filterResult, notifyCall } from './results';
import type {
  CallContext,
  GovernorWarning,
  SessionIdentity,
  ToolEntry,
  ToolGovernorOptions,
  ToolSession,
} from './session';
import { jsonExceeds, utf8Exceeds } from './size';
import type { Upstream } from './upstream';

export {
  type CallContext,
  type CallSignal,
  type GovernorWarning,
  META_AUTONOMY,
  META_CLASSIFICATION,
  META_UPSTREAM,
  type SessionIdentity,
  type ToolEntry,
  type ToolGovernorOptions,
  type ToolSession,
} from './session';

export class ToolGovernor {
  readonly upstreams: readonly Upstream[];
  readonly limits: McpLimits;
  readonly inbox: ToolCallInbox;
  readonly #o: ToolGovernorOptions;
  readonly #clock: Clock;
  readonly #byNamespace: Map<string, Upstream>;
  readonly #listeners = new Set<(tenantId: string | undefined) => void>();
  readonly #rateKeyOptions: { points: number; durationSeconds: number };

  constructor(options: ToolGovernorOptions) {
    this.#o = options;
    this.upstreams = options.upstreams;
    this.inbox = options.inbox;
    this.limits = LimitsSchema.parse(options.limits ?? {});
    this.#clock = options.clock ?? systemClock;
    this.#rateKeyOptions = { points: this.limits.callsPerWindow, durationSeconds: this.limits.windowSeconds };
    this.#byNamespace = new Map(options.upstreams.map((u) => [u.namespace, u]));
    if (this.#byNamespace.size !== options.upstreams.length)
      throw new Error('two upstreams share a namespace');
    for (const u of options.upstreams) u.onToolsChanged = () => this.toolsChanged();
  }

  /**
   * Calls `listener` when the tools may have changed — an upstream said so, or `toolsChanged` was
   * called (a policy changed) — with the tenant concerned (`undefined`: every tenant); returns the
   * unsubscribe.
   */
  onToolsChanged(listener: (tenantId: string | undefined) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The tools a session may call may have changed (a tenant's actions policy did): sessions are told to list again. */
  toolsChanged(tenantId?: string): void {
    for (const listener of this.#listeners) {
      try {
        listener(tenantId);
      } catch {
        // one listener's failure never stops the others
      }
    }
  }

  #warn = (w: GovernorWarning): void => {
    try {
      this.#o.onWarning?.(w);
    } catch {
      // a failing observer never changes an answer
    }
  };

  #decideActions = async (
    identity: SessionIdentity,
    policyTool: string,
    classification: ClassificationLevel,
  ) => {
    let r: Decided;
    try {
      r = await this.#o.engine.decide(actionsQuery(identity, policyTool, classification));
    } catch {
      r = undefined;
    }
    return autonomyOf(r);
  };

  /**
   * The tools the session's user may call, namespaced, with their autonomy in `_meta` and the
   * description; remembered as the session's last list. Blocked and denied tools are absent;
   * an upstream that cannot be listed contributes nothing (and is reported).
   */
  listTools(session: ToolSession): Promise<Tool[]> {
    return listSessionTools(
      { upstreams: this.upstreams, limits: this.limits, warn: this.#warn, decide: this.#decideActions },
      session,
    );
  }

  /**
   * One governed call. Refusals are thrown as `ToolCallRefused` (an McpError); the upstream's own
   * protocol errors are passed through as they are; every outcome is audited first.
   */
  async callTool(
    session: ToolSession,
    name: string,
    args: unknown,
    ctx: CallContext = {},
  ): Promise<CallToolResult> {
    // Every member present from the start (undefined until known): one object shape for every
    // call, no shape transitions or property-store growth as the call fills it in.
    const facts: CallFacts = {
      session,
      name: typeof name === 'string' ? auditText(name, 300) : '(not a string)',
      entry: undefined,
      digest: undefined,
      canonical: undefined,
      autonomy: undefined,
      policyIds: undefined,
      reason: '',
      result: 'deny',
      outcome: 'denied',
      approver: undefined,
      approvalId: undefined,
      approvalVia: undefined,
      approvalKey: undefined,
      error: undefined,
      withheld: undefined,
      started: nowMs(this.#clock),
      audited: false,
      requestId: ctx.requestId,
      auditRequestId: undefined,
    };
    try {
      if (this.#o.rateLimiter) {
        const { identity } = session;
        // Escaped: a user id may hold `:` (OIDC subjects do), and `acme:x` + `y` must not be `acme` + `x:y`.
        const key = `mcp:${encodeURIComponent(identity.tenantId)}:${encodeURIComponent(identity.userId)}`;
        const r = await this.#o.rateLimiter.consume(key, this.#rateKeyOptions);
        if (!r.allowed)
          return await this.#refuse(facts, rateLimited(this.limits, r.resetSeconds, facts, args));
      }
      if (session.listed === undefined) await this.listTools(session);
      const entry = typeof name === 'string' ? session.listed?.get(name) : undefined;
      if (!entry) {
        const not = notListed(session, typeof name === 'string' ? name : facts.name);
        if (not.entry) facts.entry = not.entry;
        facts.canonical = canonicalOrUndefined(args); // the refusal's entry names their digest too
        return await this.#refuse(facts, not.refusal);
      }
      facts.entry = entry;
      if (args !== undefined && (args === null || typeof args !== 'object' || Array.isArray(args)))
        return await this.#refuse(
          facts,
          new ToolCallRefused('invalid_arguments', 'arguments must be an object', { tool: name }),
        );
      let canonical: string;
      try {
        canonical = canonicalArguments(args as Record<string, unknown> | undefined);
      } catch (error) {
        return await this.#refuse(
          facts,
          new ToolCallRefused('invalid_arguments', `arguments are not JSON: ${(error as Error).message}`, {
            tool: name,
          }),
        );
      }
      // The digest is only read by the approval and the audit entries: made for the approval
      // when one is needed, else for the write-ahead entry (`digestOf`).
      facts.canonical = canonical;
      // Arguments kept in the audit entry must be text the log takes (see `auditText`): refused
      // here, before they go upstream, rather than left unaudited after.
      if (this.#o.auditArguments && canonical.includes('\\u0000'))
        return await this.#refuse(
          facts,
          new ToolCallRefused(
            'invalid_arguments',
            'arguments holding NUL (or the text \\u0000) cannot be kept in the audit log, which this proxy is configured to do',
            { tool: name },
          ),
        );
      if (utf8Exceeds(canonical, this.limits.maxArgumentBytes))
        return await this.#refuse(
          facts,
          new ToolCallRefused('payload_too_large', `arguments exceed ${this.limits.maxArgumentBytes} bytes`, {
            tool: name,
          }),
        );
      // Decided again at call time: the policy may have changed since the list.
      // The engine awaited in this frame (no async function around it), as #decideActions does.
      let decided: Decided;
      try {
        decided = await this.#o.engine.decide(
          actionsQuery(session.identity, entry.policyTool, entry.classification),
        );
      } catch {
        decided = undefined;
      }
      const d = autonomyOf(decided);
      facts.autonomy = d.autonomy;
      facts.reason = d.reason;
      if (d.policyIds) facts.policyIds = d.policyIds;
      if (d.autonomy === 'deny')
        return await this.#refuse(facts, new ToolCallRefused('policy_denied', d.reason, { tool: name }));
      if (d.autonomy === 'approve') {
        facts.digest = digestOfCanonical(canonical);
        const approved = await approvalOf(
          {
            inbox: this.inbox,
            clock: this.#clock,
            approvalTtlMs: this.limits.approvalTtlMs,
            elicit: this.#o.elicitApprovals !== false,
          },
          session,
          entry,
          facts,
          ctx,
        );
        if (approved !== true) return await this.#refuse(facts, approved);
        if (facts.approvalVia === 'elicitation') {
          // The person may have taken minutes to answer: the policy is asked again before the
          // call goes (a tool blocked meanwhile stays blocked, approved or not).
          const now = await this.#decideActions(session.identity, entry.policyTool, entry.classification);
          if (now.autonomy === 'deny') {
            facts.autonomy = 'deny';
            facts.result = 'deny';
            facts.reason = `the policy changed while the approval was asked: ${now.reason}`;
            return await this.#refuse(
              facts,
              new ToolCallRefused('policy_denied', facts.reason, { tool: name }),
            );
          }
        }
      }
      facts.result = 'allow';
      // What goes upstream is what the decision, the approval and the audit saw: the canonical
      // arguments parsed again when the caller could have changed its object since — an
      // in-process caller, or any call that waited for its approval (a client linked in memory
      // hands the proxy its own message: the wire copy is shallow, nested values are the
      // caller's) — else the proxy's own copy of the arguments parsed from the wire.
      const forwarded =
        args === undefined || (ctx.argumentsOwned && d.autonomy !== 'approve')
          ? (args as Record<string, unknown> | undefined)
          : (JSON.parse(canonical) as Record<string, unknown>);
      // Write-ahead: the call is on the log before it goes upstream (with the log down nothing
      // is forwarded; a granted approval is taken only then). Awaited in this frame, as #audit.
      let ahead: boolean;
      try {
        ahead = (await this.#o.audit.append(forwardingEntryOf(facts, this.#o))).isOk();
      } catch {
        ahead = false;
      }
      if (!ahead) return await this.#notForwarded(facts);
      if (facts.approvalKey) {
        const taken = await takeApproval(this.inbox, facts, this.#clock.now());
        if (taken !== true) return await this.#refuse(facts, taken);
      }
      // Forwarded in this frame (no async function around the upstream call): the upstream's
      // failures are turned into refusals by #upstreamFailed, an oversized result refused here.
      let result: CallToolResult;
      try {
        result = await entry.upstream.callTool(
          forwarded === undefined
            ? { name: entry.upstreamTool }
            : { name: entry.upstreamTool, arguments: forwarded },
          forwardOptionsOf(ctx, this.limits.callTimeoutMs),
        );
      } catch (error) {
        return await this.#upstreamFailed(entry, error, ctx, facts);
      }
      if (jsonExceeds(result, this.limits.maxResultBytes)) {
        facts.outcome = 'error';
        return await this.#refuse(
          facts,
          new ToolCallRefused(
            'payload_too_large',
            `the result of ${entry.exposed} exceeds ${this.limits.maxResultBytes} bytes`,
            { tool: entry.exposed },
          ),
        );
      }
      const filtered = this.#o.model ? await filterResult(this.#o, session, entry, result, facts) : result;
      facts.outcome = filtered.isError ? 'error' : 'success';
      if (d.autonomy === 'notify')
        await notifyCall(this.inbox, this.#clock, session, entry, facts, ctx, this.#warn);
      // The append awaited in this frame (no async function around it), as #audit does.
      facts.audited = true;
      let written: boolean;
      try {
        written = (await this.#o.audit.append(auditEntryOf(facts, this.#o, nowMs(this.#clock)))).isOk();
      } catch {
        written = false;
      }
      if (!written) throw auditUnavailable(facts);
      return filtered;
    } catch (error) {
      if (facts.audited) throw error;
      if (error instanceof ToolCallRefused) return await this.#refuse(facts, error);
      // Never an unexplained crash: anything unexpected is an audited internal refusal.
      facts.error = 'internal';
      facts.reason ||= (error as Error)?.message ?? String(error);
      facts.outcome = 'error';
      await this.#audit(facts).catch(() => {});
      if (error instanceof McpError) throw error;
      // What went wrong is in the audit entry; the assistant (and its model) gets no internals
      // (a store's address, a stack): the request id names the entry.
      throw new McpError(-32603, 'internal error of the governing proxy (recorded in its audit log)');
    }
  }

  /**
   * The write-ahead entry could not be appended: the call is not forwarded. Its refusal is
   * appended if the log takes it now (it seldom will); the assistant is told either way.
   */
  async #notForwarded(facts: CallFacts): Promise<never> {
    const refusal = notForwarded(facts);
    await this.#audit(facts).catch(() => {});
    throw refusal;
  }

  /** Audits a refused call, then throws the refusal. */
  async #refuse(facts: CallFacts, error: ToolCallRefused): Promise<never> {
    facts.reason ||= error.reason;
    facts.error = error.refusal;
    await this.#audit(facts);
    throw error;
  }

  /** The upstream call failed: a timeout or unavailability refused, its own protocol error passed through (audited). */
  async #upstreamFailed(
    entry: ToolEntry,
    error: unknown,
    ctx: CallContext,
    facts: CallFacts,
  ): Promise<never> {
    const refusal = upstreamFailure(entry, error, ctx, facts);
    if (refusal) return this.#refuse(facts, refusal);
    await this.#audit(facts);
    throw error;
  }

  async #audit(f: CallFacts): Promise<void> {
    f.audited = true;
    const input = auditEntryOf(f, this.#o, nowMs(this.#clock));
    let written: boolean;
    try {
      written = (await this.#o.audit.append(input)).isOk();
    } catch {
      written = false;
    }
    if (!written) throw auditUnavailable(f);
  }

  /** The upstreams' health, by namespace. */
  health(): Record<string, string> {
    return Object.fromEntries(this.upstreams.map((u) => [u.namespace, u.health]));
  }

  upstream(namespace: string): Upstream | undefined {
    return this.#byNamespace.get(namespace);
  }

  async close(): Promise<void> {
    await Promise.all(this.upstreams.map((u) => u.close()));
  }
}
