/**
 * `ToolGovernor`: what the proxy does for each `tools/list` and `tools/call`, independent of the
 * MCP transport in front of it. The actions domain decides each tool for the session's user
 * (never for anyone named in arguments); approvals are bound to the user, the tool and the digest
 * of the canonical arguments; every call is audited (`tool_invocation`) through the AuditSink port.
 */
import {
  type ActionAutonomy,
  type AuditEntryInput,
  type AuditSink,
  type ClassificationLevel,
  type Clock,
  type DecisionEngine,
  nowMs,
  type RateLimiter,
  systemClock,
  type ToolCallInbox,
} from '@agentgov/core';
import type {
  CallToolResult,
  ElicitRequestFormParams,
  ElicitResult,
  Progress,
  ServerNotification,
  Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { LimitsSchema, type McpLimits } from './config';
import { canonicalArguments, digestOfCanonical } from './digest';
import { ToolCallRefused } from './errors';
import { badToolName, exposedName, policyName } from './names';
import type { Upstream } from './upstream';

/** Who a session acts for: fixed at its start (stdio configuration, or the bearer token). */
export interface SessionIdentity {
  tenantId: string;
  userId: string;
}

/** One tool as the session last listed it. */
export interface ToolEntry {
  exposed: string;
  policyTool: string;
  upstream: Upstream;
  upstreamTool: string;
  classification: ClassificationLevel;
  autonomy: ActionAutonomy;
}

export interface ToolSession {
  readonly identity: SessionIdentity;
  readonly via: 'stdio' | 'http' | 'in-process';
  readonly sessionId?: string;
  /** The tools of the last `tools/list`, by exposed name (absent before the first list). */
  listed?: Map<string, ToolEntry>;
}

/** What the transport in front offers the governor during one call. */
export interface CallContext {
  signal?: AbortSignal;
  /** The client's progress token (`_meta.progressToken`), to relay the upstream's progress. */
  progressToken?: string | number;
  /** Sends a notification related to this call (progress, the `notify` message). */
  sendNotification?: (notification: ServerNotification) => Promise<void>;
  /** Asks the assistant's user (MCP elicitation), when the client supports it. */
  elicit?: (params: ElicitRequestFormParams) => Promise<ElicitResult>;
  /** The JSON-RPC id of the call (audit's requestId). */
  requestId?: string | number;
}

export interface GovernorWarning {
  upstream: string;
  tool?: string;
  problem: string;
}

export interface ToolGovernorOptions {
  upstreams: Upstream[];
  engine: DecisionEngine;
  audit: AuditSink;
  inbox: ToolCallInbox;
  limits?: Partial<McpLimits>;
  /** The model the assistant runs: results above what it may receive are withheld. */
  model?: { provider: string; model: string };
  /** Record the raw arguments in the audit entry (default false: the digest only). */
  auditArguments?: boolean;
  /** Per-user call limits (the gateway's limiter); none: no limit. */
  rateLimiter?: RateLimiter;
  clock?: Clock;
  /** Problems found in upstream lists (a tool withheld, a list truncated, an upstream down). */
  onWarning?: (warning: GovernorWarning) => void;
}

const AUTONOMY_TEXT: Record<Exclude<ActionAutonomy, 'block'>, string> = {
  autonomous: 'runs without asking',
  notify: 'runs, and the user is told',
  approve: 'a human approves each call first',
};

/** `_meta` keys the proxy adds to listed tools. */
export const META_AUTONOMY = 'agentgov.dev/autonomy';
export const META_UPSTREAM = 'agentgov.dev/upstream';
export const META_CLASSIFICATION = 'agentgov.dev/classification';

type Outcome = AuditEntryInput['outcome'];

interface CallFacts {
  session: ToolSession;
  name: string;
  entry?: ToolEntry;
  digest?: string;
  canonical?: string;
  autonomy?: ActionAutonomy | 'deny';
  policyIds?: string[];
  reason: string;
  result: AuditEntryInput['policyResult'];
  outcome: Outcome;
  approver?: string;
  approvalId?: string;
  approvalVia?: 'elicitation' | 'inbox';
  error?: string;
  withheld?: string;
  started: number;
  audited?: boolean;
  requestId?: string | number;
}

export class ToolGovernor {
  readonly upstreams: readonly Upstream[];
  readonly limits: McpLimits;
  readonly inbox: ToolCallInbox;
  readonly #o: ToolGovernorOptions;
  readonly #clock: Clock;
  readonly #byNamespace: Map<string, Upstream>;

  constructor(options: ToolGovernorOptions) {
    this.#o = options;
    this.upstreams = options.upstreams;
    this.inbox = options.inbox;
    this.limits = LimitsSchema.parse(options.limits ?? {});
    this.#clock = options.clock ?? systemClock;
    this.#byNamespace = new Map(options.upstreams.map((u) => [u.namespace, u]));
    if (this.#byNamespace.size !== options.upstreams.length)
      throw new Error('two upstreams share a namespace');
    for (const u of options.upstreams) {
      u.onToolsChanged = () => {
        for (const listener of this.#listeners) {
          try {
            listener();
          } catch {
            // one listener's failure never stops the others
          }
        }
      };
    }
  }

  readonly #listeners = new Set<() => void>();

  /** Calls `listener` when an upstream says its tools changed; returns the unsubscribe. */
  onToolsChanged(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #warn(w: GovernorWarning): void {
    try {
      this.#o.onWarning?.(w);
    } catch {
      // a failing observer never changes an answer
    }
  }

  async #decideActions(identity: SessionIdentity, policyTool: string, classification: ClassificationLevel) {
    const r = await this.#o.engine
      .decide({
        domain: 'actions',
        tenantId: identity.tenantId,
        userId: identity.userId,
        input: { tool: policyTool, classification_level: classification },
      })
      .catch(() => undefined);
    if (!r || r.isErr()) {
      throw new ToolCallRefused(
        'policy_engine_unreachable',
        'the decision engine cannot answer; nothing is forwarded while it is down',
      );
    }
    const d = r.value;
    const autonomy: ActionAutonomy | 'deny' = d.allow ? (d.constraints.autonomy ?? 'approve') : 'deny';
    return {
      autonomy: autonomy === 'block' ? ('deny' as const) : autonomy,
      reason: d.reason,
      policyIds: d.policyIds,
    };
  }

  /**
   * The tools the session's user may call, namespaced, with their autonomy in `_meta` and the
   * description; remembered as the session's last list. Blocked and denied tools are absent;
   * an upstream that cannot be listed contributes nothing (and is reported).
   */
  async listTools(session: ToolSession): Promise<Tool[]> {
    const lists = await Promise.all(
      this.upstreams.map(async (u) => {
        try {
          const { tools, truncated } = await u.listTools(
            this.limits.maxToolsPerUpstream,
            this.limits.callTimeoutMs,
          );
          if (truncated)
            this.#warn({
              upstream: u.namespace,
              problem: `listed more than ${this.limits.maxToolsPerUpstream} tools; the rest are dropped`,
            });
          return { u, tools };
        } catch (error) {
          this.#warn({ upstream: u.namespace, problem: `cannot be listed: ${(error as Error).message}` });
          return { u, tools: [] as Tool[] };
        }
      }),
    );
    const candidates: { u: Upstream; tool: Tool; exposed: string; policyTool: string }[] = [];
    const byPolicyName = new Map<string, number>();
    for (const { u, tools } of lists) {
      for (const tool of tools) {
        const bad = badToolName(tool.name);
        if (bad) {
          this.#warn({
            upstream: u.namespace,
            tool: String(tool.name).slice(0, 200),
            problem: `withheld: ${bad}`,
          });
          continue;
        }
        const exposed = exposedName(u.namespace, tool.name);
        const p = policyName(exposed);
        byPolicyName.set(p, (byPolicyName.get(p) ?? 0) + 1);
        candidates.push({ u, tool, exposed, policyTool: p });
      }
    }
    const unique = candidates.filter((c) => {
      if ((byPolicyName.get(c.policyTool) ?? 0) === 1) return true;
      this.#warn({
        upstream: c.u.namespace,
        tool: c.tool.name,
        problem: 'withheld: another tool of the upstream has the same name up to case',
      });
      return false;
    });
    const decided = await Promise.all(
      unique.map(async (c) => {
        const classification = c.u.classificationOf(c.tool.name);
        const d = await this.#decideActions(session.identity, c.policyTool, classification);
        return { ...c, classification, ...d };
      }),
    );
    const listed = new Map<string, ToolEntry>();
    const out: Tool[] = [];
    for (const c of decided) {
      if (c.autonomy === 'deny') continue;
      listed.set(c.exposed, {
        exposed: c.exposed,
        policyTool: c.policyTool,
        upstream: c.u,
        upstreamTool: c.tool.name,
        classification: c.classification,
        autonomy: c.autonomy,
      });
      const description = `[agentgov: ${c.autonomy} — ${AUTONOMY_TEXT[c.autonomy]}]${c.tool.description ? ` ${c.tool.description}` : ''}`;
      out.push({
        ...c.tool,
        name: c.exposed,
        description,
        _meta: {
          ...(c.tool._meta ?? {}),
          [META_AUTONOMY]: c.autonomy,
          [META_UPSTREAM]: c.u.namespace,
          [META_CLASSIFICATION]: c.classification,
        },
      });
    }
    session.listed = listed;
    return out;
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
    const started = nowMs(this.#clock);
    const facts: CallFacts = {
      session,
      name: typeof name === 'string' ? name.slice(0, 300) : '(not a string)',
      reason: '',
      result: 'deny',
      outcome: 'denied',
      started,
      ...(ctx.requestId === undefined ? {} : { requestId: ctx.requestId }),
    };
    try {
      if (this.#o.rateLimiter) {
        const { identity } = session;
        const r = await this.#o.rateLimiter.consume(`mcp:${identity.tenantId}:${identity.userId}`, {
          points: this.limits.callsPerWindow,
          durationSeconds: this.limits.windowSeconds,
        });
        if (!r.allowed)
          return await this.#refuse(
            facts,
            new ToolCallRefused(
              'rate_limit_exceeded',
              `more than ${this.limits.callsPerWindow} calls in ${this.limits.windowSeconds} s; retry in ${r.resetSeconds} s`,
            ),
          );
      }
      if (session.listed === undefined) await this.listTools(session);
      const entry = typeof name === 'string' ? session.listed?.get(name) : undefined;
      if (!entry) {
        return await this.#refuse(
          facts,
          new ToolCallRefused(
            'unknown_tool',
            `${facts.name} is not a tool of this session's last tools/list (unknown, blocked, or added since: list the tools again)`,
            { tool: facts.name },
          ),
        );
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
      facts.digest = digestOfCanonical(canonical);
      facts.canonical = canonical;
      if (Buffer.byteLength(canonical, 'utf8') > this.limits.maxArgumentBytes)
        return await this.#refuse(
          facts,
          new ToolCallRefused('payload_too_large', `arguments exceed ${this.limits.maxArgumentBytes} bytes`, {
            tool: name,
          }),
        );
      // Decided again at call time: the policy may have changed since the list.
      const d = await this.#decideActions(session.identity, entry.policyTool, entry.classification);
      facts.autonomy = d.autonomy;
      facts.reason = d.reason;
      if (d.policyIds) facts.policyIds = d.policyIds;
      if (d.autonomy === 'deny')
        return await this.#refuse(facts, new ToolCallRefused('policy_denied', d.reason, { tool: name }));
      if (d.autonomy === 'approve') {
        const approved = await this.#approval(session, entry, facts, ctx);
        if (approved !== true) return await this.#refuse(facts, approved);
      }
      facts.result = 'allow';
      // What goes upstream is the canonical arguments the decision, the approval and the audit
      // saw — never the caller's object, which an in-process caller could change while the call
      // waits for its approval.
      const forwarded = args === undefined ? undefined : (JSON.parse(canonical) as Record<string, unknown>);
      const result = await this.#forward(entry, forwarded, ctx, facts);
      const filtered = await this.#filterResult(session, entry, result, facts);
      facts.outcome = filtered.isError ? 'error' : 'success';
      if (d.autonomy === 'notify') await this.#notify(session, entry, facts, ctx);
      await this.#audit(facts);
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
      throw new McpError(-32603, `internal error of the governing proxy: ${facts.reason}`);
    }
  }

  /** Audits a refused call, then throws the refusal. */
  async #refuse(facts: CallFacts, error: ToolCallRefused): Promise<never> {
    facts.reason ||= error.reason;
    facts.error = error.refusal;
    await this.#audit(facts);
    throw error;
  }

  /** True when this call may go ahead, else the refusal. */
  async #approval(
    session: ToolSession,
    entry: ToolEntry,
    facts: CallFacts,
    ctx: CallContext,
  ): Promise<true | ToolCallRefused> {
    const { identity } = session;
    const key = {
      tenantId: identity.tenantId,
      userId: identity.userId,
      policyTool: entry.policyTool,
      argumentsDigest: facts.digest as string,
    };
    const granted = await this.inbox.consume(key, this.#clock.now());
    if (granted) {
      facts.approver = granted.decidedBy ?? identity.userId;
      facts.approvalId = granted.id;
      facts.approvalVia = 'inbox';
      facts.result = 'allow';
      return true;
    }
    if (ctx.elicit) {
      let answer: ElicitResult;
      try {
        answer = await ctx.elicit({
          mode: 'form',
          message:
            `Approve this call of ${entry.exposed}? (${facts.reason})\n` +
            `Arguments (canonical JSON): ${truncate(facts.canonical ?? '{}', 2000)}`,
          requestedSchema: {
            type: 'object',
            properties: {
              approve: {
                type: 'boolean',
                title: 'Approve',
                description: `Run ${entry.exposed} with these arguments once`,
              },
            },
            required: ['approve'],
          },
        });
      } catch (error) {
        facts.result = 'require_approval';
        return new ToolCallRefused(
          'policy_denied',
          `the approval was not given: ${(error as Error).message}`,
          {
            tool: entry.exposed,
          },
        );
      }
      if (answer.action === 'accept' && answer.content?.approve === true) {
        facts.approver = identity.userId;
        facts.approvalVia = 'elicitation';
        return true;
      }
      facts.result = 'require_approval';
      facts.approvalVia = 'elicitation';
      return new ToolCallRefused('policy_denied', `the user did not approve (${answer.action})`, {
        tool: entry.exposed,
      });
    }
    const pending = await this.inbox.request(
      {
        ...key,
        tool: entry.exposed,
        upstream: entry.upstream.namespace,
        reason: facts.reason,
        ttlMs: this.limits.approvalTtlMs,
      },
      this.#clock.now(),
    );
    facts.result = 'require_approval';
    facts.outcome = 'pending_approval';
    facts.approvalId = pending.id;
    facts.approvalVia = 'inbox';
    return new ToolCallRefused(
      'approval_required',
      `a human must approve this call (approval ${pending.id}, until ${pending.expiresAt}); call again with the same arguments once it is approved`,
      { tool: entry.exposed, approvalId: pending.id, expiresAt: pending.expiresAt },
    );
  }

  async #forward(
    entry: ToolEntry,
    args: Record<string, unknown> | undefined,
    ctx: CallContext,
    facts: CallFacts,
  ): Promise<CallToolResult> {
    const { progressToken, sendNotification } = ctx;
    const onprogress =
      progressToken !== undefined && sendNotification
        ? (p: Progress) => {
            void sendNotification({
              method: 'notifications/progress',
              params: { ...p, progressToken },
            }).catch(() => {});
          }
        : undefined;
    let result: CallToolResult;
    try {
      result = await entry.upstream.callTool(
        { name: entry.upstreamTool, ...(args === undefined ? {} : { arguments: args }) },
        {
          timeoutMs: this.limits.callTimeoutMs,
          ...(ctx.signal ? { signal: ctx.signal } : {}),
          ...(onprogress ? { onprogress } : {}),
        },
      );
    } catch (error) {
      facts.outcome = 'error';
      const code = (error as { code?: unknown })?.code;
      if (code === -32001)
        return this.#refuse(
          facts,
          new ToolCallRefused('upstream_timeout', `${entry.upstream.namespace} did not answer in time`, {
            tool: entry.exposed,
          }),
        );
      if (error instanceof McpError && code !== -32000) {
        // The upstream's own answer (invalid params, a tool error): passed through as it is.
        facts.error = `upstream ${String(code)}`;
        facts.reason = error.message.slice(0, 500);
        await this.#audit(facts);
        throw error;
      }
      if (ctx.signal?.aborted) {
        facts.reason = 'cancelled by the client';
        facts.error = 'cancelled';
        await this.#audit(facts);
        throw error;
      }
      return this.#refuse(
        facts,
        new ToolCallRefused(
          'upstream_unavailable',
          `${entry.upstream.namespace}: ${(error as Error).message}`,
          { tool: entry.exposed },
        ),
      );
    }
    let size: number;
    try {
      size = Buffer.byteLength(JSON.stringify(result), 'utf8');
    } catch {
      size = Number.POSITIVE_INFINITY;
    }
    if (size > this.limits.maxResultBytes) {
      facts.outcome = 'error';
      return this.#refuse(
        facts,
        new ToolCallRefused(
          'payload_too_large',
          `the result of ${entry.exposed} exceeds ${this.limits.maxResultBytes} bytes`,
          { tool: entry.exposed },
        ),
      );
    }
    return result;
  }

  /** The result, or a withheld notice when the assistant's model may not receive its classification. */
  async #filterResult(
    session: ToolSession,
    entry: ToolEntry,
    result: CallToolResult,
    facts: CallFacts,
  ): Promise<CallToolResult> {
    const model = this.#o.model;
    if (!model) return result;
    const r = await this.#o.engine
      .decide({
        domain: 'models',
        tenantId: session.identity.tenantId,
        userId: session.identity.userId,
        input: { provider: model.provider, model: model.model, classification_level: entry.classification },
      })
      .catch(() => undefined);
    const allowed = r?.isOk() && r.value.allow;
    if (allowed) return result;
    const why = r?.isOk() ? r.value.reason : 'the decision engine cannot answer';
    facts.withheld = `classification_exceeded: ${entry.classification} result for ${model.provider}/${model.model} (${why})`;
    return {
      content: [{ type: 'text', text: `Result withheld by governance: ${facts.withheld}` }],
      isError: true,
      _meta: {
        'agentgov.dev/withheld': {
          reason: 'classification_exceeded',
          classification: entry.classification,
          detail: why,
        },
      },
    };
  }

  async #notify(session: ToolSession, entry: ToolEntry, facts: CallFacts, ctx: CallContext): Promise<void> {
    const { identity } = session;
    await this.inbox.notice(
      {
        tenantId: identity.tenantId,
        userId: identity.userId,
        tool: entry.exposed,
        upstream: entry.upstream.namespace,
        argumentsDigest: facts.digest as string,
        outcome: facts.outcome === 'success' ? 'success' : 'error',
      },
      this.#clock.now(),
    );
    await ctx
      .sendNotification?.({
        method: 'notifications/message',
        params: {
          level: 'notice',
          logger: 'agentgov',
          data: {
            notice: 'tool_called',
            tool: entry.exposed,
            userId: identity.userId,
            outcome: facts.outcome,
            argumentsDigest: facts.digest,
          },
        },
      })
      .catch(() => {});
  }

  async #audit(f: CallFacts): Promise<void> {
    f.audited = true;
    const { identity } = f.session;
    const input: AuditEntryInput = {
      tenantId: identity.tenantId,
      userId: identity.userId,
      actionType: 'tool_invocation',
      actionDetail: {
        tool: f.name,
        ...(f.entry
          ? {
              upstream: f.entry.upstream.namespace,
              upstreamTool: f.entry.upstreamTool,
              policyTool: f.entry.policyTool,
            }
          : {}),
        ...(f.digest ? { argumentsDigest: f.digest } : {}),
        ...(this.#o.auditArguments && f.canonical ? { arguments: f.canonical } : {}),
        decision: f.autonomy ?? 'deny',
        ...(f.approver ? { approver: f.approver } : {}),
        ...(f.approvalId ? { approvalId: f.approvalId } : {}),
        ...(f.approvalVia ? { approvalVia: f.approvalVia } : {}),
        outcome: f.outcome,
        durationMs: Math.max(0, nowMs(this.#clock) - f.started),
        ...(f.error ? { error: f.error } : {}),
        ...(f.withheld ? { withheld: f.withheld } : {}),
        via: f.session.via,
        ...(f.session.sessionId ? { sessionId: f.session.sessionId } : {}),
      },
      dataClassification: f.entry?.classification ?? 'public',
      modelUsed: this.#o.model ? `${this.#o.model.provider}/${this.#o.model.model}` : null,
      policyApplied: f.policyIds?.length ? f.policyIds.join(',').slice(0, 255) : 'actions',
      policyResult: f.result,
      policyReason: f.reason.slice(0, 2000),
      outcome: f.outcome,
      requestId:
        `mcp:${f.session.sessionId ?? f.session.via}:${String(f.requestId ?? nowMs(this.#clock))}`.slice(
          0,
          255,
        ),
    };
    const r = await this.#o.audit
      .append(input)
      .catch((error: unknown) => ({ isErr: () => true as const, error }) as const);
    if (r.isErr())
      throw new ToolCallRefused(
        'audit_unavailable',
        'the audit entry of this call could not be written; its result is not delivered',
        {
          tool: f.name,
        },
      );
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

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`;
}
