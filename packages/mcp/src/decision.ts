/**
 * The pieces of a governed call the governor decides outside its async frames: the actions
 * domain's question, the autonomy of its answer, the audit-unavailable refusals, what a failed
 * upstream call is.
 */
import type { ActionAutonomy, ClassificationLevel, DecisionEngine } from '@agentgov/core';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { McpLimits } from './config';
import { canonicalOrUndefined } from './digest';
import { ToolCallRefused, UpstreamError } from './errors';
import type { CallFacts } from './facts';
import type { CallContext, SessionIdentity, ToolEntry } from './session';

export type Decided = Awaited<ReturnType<DecisionEngine['decide']>> | undefined;

/** The actions domain's question for this user and tool. */
export function actionsQuery(
  identity: SessionIdentity,
  policyTool: string,
  classification: ClassificationLevel,
) {
  return {
    domain: 'actions' as const,
    tenantId: identity.tenantId,
    userId: identity.userId,
    input: { tool: policyTool, classification_level: classification },
  };
}

/** The autonomy of a decision (`block` and a denial are `deny`); no answer is a refusal. */
export function autonomyOf(r: Decided) {
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
    /** The actions policy blocks this tool for the user (not: the user is unknown, nothing allows). */
    blocked: d.constraints.autonomy === 'block',
    reason: d.reason,
    policyIds: d.policyIds,
  };
}

/**
 * The refusal of a call over the user's limit (only then are its arguments made canonical: its
 * entry names their digest whenever they are a JSON object).
 */
export function rateLimited(limits: McpLimits, resetSeconds: number, f: CallFacts, args: unknown) {
  f.canonical = canonicalOrUndefined(args);
  return new ToolCallRefused(
    'rate_limit_exceeded',
    `more than ${limits.callsPerWindow} calls in ${limits.windowSeconds} s; retry in ${resetSeconds} s`,
  );
}

/** The refusal of a call whose audit entry could not be written. */
export function auditUnavailable(f: CallFacts): ToolCallRefused {
  return new ToolCallRefused(
    'audit_unavailable',
    'the audit entry of this call could not be written; its result is not delivered',
    { tool: f.name },
  );
}

/**
 * The write-ahead entry could not be appended: the refusal of a call that was not forwarded (the
 * facts say so for its refusal entry: the policy's `allow`, outcome `error`).
 */
export function notForwarded(f: CallFacts): ToolCallRefused {
  f.outcome = 'error';
  f.error = 'audit_unavailable';
  f.reason = 'the audit log could not record this call before it went upstream';
  return new ToolCallRefused(
    'audit_unavailable',
    'the audit log cannot record this call: it was not forwarded',
    {
      tool: f.name,
    },
  );
}

/**
 * What a failed upstream call is (the facts filled in for its entry): a timeout or an unreachable
 * upstream is a refusal (returned); the upstream's own protocol error and a call the client
 * cancelled pass through as they are (undefined: audited, then rethrown).
 */
export function upstreamFailure(
  entry: ToolEntry,
  error: unknown,
  ctx: CallContext,
  f: CallFacts,
): ToolCallRefused | undefined {
  f.outcome = 'error';
  if (error instanceof UpstreamError) {
    // The upstream's own answer (invalid params, a tool error, whatever its code): passed through
    // as it is.
    f.error = `upstream ${String(error.code)}`;
    f.reason = error.message.slice(0, 500);
    return undefined;
  }
  // Only the proxy's own deadline (the forwarder's, or the connection's) is a timeout.
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout)
    return new ToolCallRefused('upstream_timeout', `${entry.upstream.namespace} did not answer in time`, {
      tool: entry.exposed,
    });
  if (ctx.signal?.aborted) {
    f.reason = 'cancelled by the client';
    f.error = 'cancelled';
    return undefined;
  }
  // The transport's own words (an address, a command line) go to the audit entry, not to the
  // assistant.
  f.reason = `${entry.upstream.namespace}: ${(error as Error)?.message ?? String(error)}`;
  return new ToolCallRefused(
    'upstream_unavailable',
    `the upstream ${entry.upstream.namespace} is unavailable`,
    {
      tool: entry.exposed,
    },
  );
}
