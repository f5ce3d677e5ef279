/**
 * What one call's audit entries record, gathered as the call goes: the tool, its upstream, the
 * digest of the canonical arguments (never the raw arguments unless configured), the decision, the
 * approver, the outcome and the duration. A call that goes upstream has two entries with one
 * request id: the write-ahead `policy_decision` (`forwardingEntryOf`), appended before the call is
 * forwarded, and the `tool_invocation` with its outcome (`auditEntryOf`); a refused call has the
 * `tool_invocation` alone.
 */
import { createHash } from 'node:crypto';
import { type ActionAutonomy, type AuditEntryInput, newId, type ToolApprovalKey } from '@agentgov/core';
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
  /** The granted inbox approval found for the call, taken once the call is on the log. */
  approvalKey?: ToolApprovalKey;
  error?: string;
  withheld?: string;
  /** A `notify` call whose notice the inbox could not record: why. */
  noticeUnrecorded?: string;
  started: number;
  audited?: boolean;
  requestId: string | number | undefined;
  /** The entries' request id, made once (`requestIdOf`): the same on both entries of a call. */
  auditRequestId: string | undefined;
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
function requestIdOf(f: CallFacts): string {
  if (f.auditRequestId !== undefined) return f.auditRequestId;
  // A call without a client id (in-process) gets a ULID: concurrent calls never share one.
  const own = f.requestId === undefined ? newId() : String(f.requestId);
  const id = PLAIN_ID.test(own) ? own : `#${createHash('sha256').update(own).digest('hex')}`;
  f.auditRequestId = auditText(`mcp:${f.session.sessionId ?? f.session.via}:${id}`, 255);
  return f.auditRequestId;
}

/** What both entries of a call say of it: the tool, its upstream, the arguments, the decision, the approval. */
function callDetail(f: CallFacts, options: AuditEntryOptions): Record<string, unknown> {
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
  return detail;
}

/** An entry of the call (one object literal: no spread, one shape for every entry). */
function entryOf(
  f: CallFacts,
  options: AuditEntryOptions,
  actionType: 'policy_decision' | 'tool_invocation',
  detail: Record<string, unknown>,
): AuditEntryInput {
  return {
    tenantId: f.session.identity.tenantId,
    userId: f.session.identity.userId,
    actionType,
    actionDetail: detail,
    dataClassification: f.entry?.classification ?? 'public',
    modelUsed: options.model ? `${options.model.provider}/${options.model.model}` : null,
    policyApplied: f.policyIds?.length ? auditText(f.policyIds.join(','), 255) : 'actions',
    policyResult: actionType === 'policy_decision' ? 'allow' : f.result,
    policyReason: auditText(f.reason, 2000),
    outcome: actionType === 'policy_decision' ? 'success' : f.outcome,
    requestId: requestIdOf(f),
  };
}

/**
 * The write-ahead entry of a call about to go upstream (`policy_decision`, outcome `success`: the
 * actions policy let this user make this call, with these arguments, approved by whom): appended
 * before the call is forwarded, so that no call reaches an upstream unrecorded — with the log
 * down, nothing is forwarded.
 */
export function forwardingEntryOf(f: CallFacts, options: AuditEntryOptions): AuditEntryInput {
  const detail = callDetail(f, options);
  detail.domain = 'actions';
  detail.stage = 'forwarding';
  detail.via = f.session.via;
  if (f.session.sessionId) detail.sessionId = f.session.sessionId;
  return entryOf(f, options, 'policy_decision', detail);
}

/** The `tool_invocation` entry of a call, `now` being the clock's milliseconds at its end. */
export function auditEntryOf(f: CallFacts, options: AuditEntryOptions, now: number): AuditEntryInput {
  const detail = callDetail(f, options);
  detail.outcome = f.outcome;
  detail.durationMs = Math.max(0, now - f.started);
  if (f.error) detail.error = auditText(f.error, 500);
  if (f.withheld) detail.withheld = auditText(f.withheld, 2000);
  if (f.noticeUnrecorded) detail.noticeUnrecorded = auditText(f.noticeUnrecorded, 500);
  detail.via = f.session.via;
  if (f.session.sessionId) detail.sessionId = f.session.sessionId;
  return entryOf(f, options, 'tool_invocation', detail);
}
