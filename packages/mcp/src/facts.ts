/**
 * What one call's audit entry (`tool_invocation`) records, gathered as the call goes: the tool, its
 * upstream, the digest of the canonical arguments (never the raw arguments unless configured), the
 * decision, the approver, the outcome and the duration.
 */
import { createHash } from 'node:crypto';
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
  /** A `notify` call whose notice the inbox could not record: why. */
  noticeUnrecorded?: string;
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

/**
 * `text` as the audit log takes it, at most `max` UTF-16 units: the log refuses (and a refused
 * entry would leave a call that went upstream unaudited) a lone surrogate — also the half of a pair
 * that a cut at `max` leaves — and NUL, raw or as the `\u0000` escape its JSON columns refuse.
 * Those become U+FFFD. The texts of an entry come from the client (its request id, the tool name
 * it asked for), the upstream (an error message) and the policy (a reason): none may make an
 * entry the log refuses.
 */
export function auditText(text: string, max: number): string {
  const cut = text.length > max ? text.slice(0, max) : text;
  const whole = (cut as string & { toWellFormed(): string }).toWellFormed();
  return whole.includes('\0') || whole.includes('\\u0000')
    ? whole.replaceAll('\0', '\uFFFD').replaceAll('\\u0000', '\uFFFD')
    : whole;
}

/** Fits the log's 255 characters and is what `auditText` leaves unchanged. */
const PLAIN_ID = /^[\x20-\x7e]{1,160}$/;

/**
 * The entry's request id: `mcp:<session>:<the client's JSON-RPC id>`. The client's id is the
 * client's to choose (any string or number): one longer than 160 characters or not printable
 * ASCII is named by its SHA-256 instead (`#<hex>`), so that it neither breaks the entry nor is cut
 * into another call's id.
 */
function requestIdOf(f: CallFacts, now: number): string {
  const own = String(f.requestId ?? now);
  const id = PLAIN_ID.test(own) ? own : `#${createHash('sha256').update(own).digest('hex')}`;
  return auditText(`mcp:${f.session.sessionId ?? f.session.via}:${id}`, 255);
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
  // Arguments the log cannot keep (NUL) were refused before they went upstream: their refusal
  // keeps the digest alone.
  if (options.auditArguments && f.canonical && !f.canonical.includes('\\u0000'))
    detail.arguments = f.canonical;
  detail.decision = f.autonomy ?? 'deny';
  if (f.approver) detail.approverUserId = f.approver;
  if (f.approvalId) detail.approvalId = f.approvalId;
  if (f.approvalVia) detail.approvalVia = f.approvalVia;
  detail.outcome = f.outcome;
  detail.durationMs = Math.max(0, now - f.started);
  if (f.error) detail.error = auditText(f.error, 500);
  if (f.withheld) detail.withheld = auditText(f.withheld, 2000);
  if (f.noticeUnrecorded) detail.noticeUnrecorded = auditText(f.noticeUnrecorded, 500);
  detail.via = f.session.via;
  if (f.session.sessionId) detail.sessionId = f.session.sessionId;
  return {
    tenantId: identity.tenantId,
    userId: identity.userId,
    actionType: 'tool_invocation',
    actionDetail: detail,
    dataClassification: entry?.classification ?? 'public',
    modelUsed: options.model ? `${options.model.provider}/${options.model.model}` : null,
    policyApplied: f.policyIds?.length ? auditText(f.policyIds.join(','), 255) : 'actions',
    policyResult: f.result,
    policyReason: auditText(f.reason, 2000),
    outcome: f.outcome,
    requestId: requestIdOf(f, now),
  };
}
