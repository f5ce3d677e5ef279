/**
 * What one call's audit entry (`tool_invocation`) records, gathered as the call goes: the tool, its
 * upstream, the digest of the canonical arguments (never the raw arguments unless configured), the
 * decision, the approver, the outcome and the duration.
 */
import type { ActionAutonomy, AuditEntryInput } from '@agentgov/core';
import { digestOfCanonical } from './digest';
import type { ToolEntry, ToolSession } from './session';

export interface CallFacts {
  session: ToolSession;
  name: string;
  entry?: ToolEntry;
  digest?: string;
  canonical?: string;
  autonomy?: ActionAutonomy | 'deny';
  policyIds?: string[];
  reason: string;
  result: AuditEntryInput['policyResult'];
  outcome: AuditEntryInput['outcome'];
  approver?: string;
  approvalId?: string;
  approvalVia?: 'elicitation' | 'inbox';
  error?: string;
  withheld?: string;
  started: number;
  audited?: boolean;
  requestId: string | number | undefined;
}

export interface AuditEntryOptions {
  auditArguments?: boolean;
  model?: { provider: string; model: string };
}

/**
 * The digest of the call's canonical arguments (undefined when they are not JSON), made now when
 * the call did not make it yet (a refusal before the call went upstream).
 */
export function digestOf(f: CallFacts): string | undefined {
  if (f.digest === undefined && f.canonical !== undefined) f.digest = digestOfCanonical(f.canonical);
  return f.digest;
}

/** The audit entry of a call, `now` being the clock's milliseconds at its end. */
export function auditEntryOf(f: CallFacts, options: AuditEntryOptions, now: number): AuditEntryInput {
  const { identity } = f.session;
  const entry = f.entry;
  const detail: Record<string, unknown> = { tool: f.name };
  if (entry) {
    detail.upstream = entry.upstream.namespace;
    detail.upstreamTool = entry.upstreamTool;
    detail.policyTool = entry.policyTool;
  }
  const digest = digestOf(f);
  if (digest) detail.argumentsDigest = digest;
  if (options.auditArguments && f.canonical) detail.arguments = f.canonical;
  detail.decision = f.autonomy ?? 'deny';
  if (f.approver) detail.approver = f.approver;
  if (f.approvalId) detail.approvalId = f.approvalId;
  if (f.approvalVia) detail.approvalVia = f.approvalVia;
  detail.outcome = f.outcome;
  detail.durationMs = Math.max(0, now - f.started);
  if (f.error) detail.error = f.error;
  if (f.withheld) detail.withheld = f.withheld;
  detail.via = f.session.via;
  if (f.session.sessionId) detail.sessionId = f.session.sessionId;
  const requestId = `mcp:${f.session.sessionId ?? f.session.via}:${String(f.requestId ?? now)}`;
  return {
    tenantId: identity.tenantId,
    userId: identity.userId,
    actionType: 'tool_invocation',
    actionDetail: detail,
    dataClassification: entry?.classification ?? 'public',
    modelUsed: options.model ? `${options.model.provider}/${options.model.model}` : null,
    policyApplied: f.policyIds?.length ? f.policyIds.join(',').slice(0, 255) : 'actions',
    policyResult: f.result,
    policyReason: f.reason.length > 2000 ? f.reason.slice(0, 2000) : f.reason,
    outcome: f.outcome,
    requestId: requestId.length > 255 ? requestId.slice(0, 255) : requestId,
  };
}
