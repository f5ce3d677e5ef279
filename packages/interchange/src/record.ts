/**
 * The stored exchange and its transcript: typed transcript entries, the TTL rule, and the
 * compare-and-set update every state change goes through (so two concurrent rounds, or a round
 * and a human decision, cannot both win).
 */
import {
  type ClassificationLevel,
  type Exchange,
  type ExchangeOutcome,
  type ExchangeStore,
  errorOf,
  maxClassification,
} from '@agentgov/core';
import type { ClassifiedItem, Commitment } from './message';

/** A message of either side, as sent (after filtering) with its signed envelope. */
export interface MessageEntry {
  kind: 'message' | 'reply';
  round: number;
  from: 'initiator' | 'responder';
  messageType: string;
  text: string;
  items: ClassifiedItem[];
  commitment?: Commitment;
  /** True for a reply the agent sent without a human (counted as autoResponsesSent). */
  automatic?: boolean;
  approvalId?: string;
  /** On a message: the initiator closes the exchange once this round is answered. */
  final?: boolean;
  jti: string;
  /** The signed envelope, so a reply can be served again unchanged. */
  jws: string;
  at: string;
}

export type TranscriptEntry =
  | MessageEntry
  | {
      kind: 'awaiting_human';
      round: number;
      approvalId: string;
      action: string;
      reason: string;
      /** The highest level the reply may carry (the responder's clearance and policy at receipt). */
      ceiling: ClassificationLevel;
      /** The initiator's org unit and team, from the responder's org directory (never the envelope). */
      initiatorOrgUnit: string;
      initiatorTeam?: string;
      at: string;
      expiresAt: string;
    }
  | {
      kind: 'human_decision';
      round: number;
      approvalId: string;
      decision: 'approved' | 'rejected';
      by: string;
      at: string;
      note?: string;
    }
  | { kind: 'refused'; round: number; code: string; reason: string; at: string }
  /** The initiator withdrew the round (A2A CancelTask); `by` is the agent's key id. */
  | { kind: 'cancelled'; round: number; by: string; at: string }
  | { kind: 'outcome'; outcome: ExchangeOutcome; reason?: string; at: string };

export const entries = (x: Exchange): TranscriptEntry[] => x.transcript as unknown as TranscriptEntry[];

/** The open human request of an exchange (the last `awaiting_human` without a decision), if any. */
export function pendingApproval(x: Exchange):
  | {
      request: Extract<TranscriptEntry, { kind: 'awaiting_human' }>;
      decision?: Extract<TranscriptEntry, { kind: 'human_decision' }>;
    }
  | undefined {
  const list = entries(x);
  for (let i = list.length - 1; i >= 0; i--) {
    const e = list[i] as TranscriptEntry;
    if (e.kind === 'awaiting_human') {
      const decision = list.find(
        (d): d is Extract<TranscriptEntry, { kind: 'human_decision' }> =>
          d.kind === 'human_decision' && d.approvalId === e.approvalId,
      );
      const used = list.some((r) => r.kind === 'reply' && r.round === e.round);
      if (used) return undefined;
      return decision ? { request: e, decision } : { request: e };
    }
    if (e.kind === 'reply') return undefined;
  }
  return undefined;
}

/** The reply of a round, if one was sent. */
export const replyOf = (x: Exchange, round: number) =>
  entries(x).find((e): e is MessageEntry => e.kind === 'reply' && e.round === round);

/** True when the exchange is still in progress but older than `ttlMs`. */
export const isStale = (x: Exchange, nowMs: number, ttlMs: number): boolean =>
  x.outcome === 'in_progress' && Date.parse(x.startedAt) + ttlMs <= nowMs;

/** Merges what a round shared into the exchange: dataShared, dataWithheld, classification. */
export function withData(
  x: Exchange,
  shared: Exchange['dataShared'],
  withheld: Exchange['dataWithheld'],
  level: ClassificationLevel,
): Exchange {
  const bySource = new Map(x.dataShared.map((d) => [d.source, [...d.fields]]));
  for (const d of shared) {
    const fields = bySource.get(d.source) ?? [];
    for (const f of d.fields) if (!fields.includes(f)) fields.push(f);
    bySource.set(d.source, fields);
  }
  return {
    ...x,
    dataShared: [...bySource].map(([source, fields]) => ({ source, fields })),
    dataWithheld: [...x.dataWithheld, ...withheld],
    classificationLevel: maxClassification(x.classificationLevel, level),
  };
}

/** Ends the exchange with `outcome` (endedAt set, an outcome entry appended). */
export function ended(
  x: Exchange,
  outcome: Exclude<ExchangeOutcome, 'in_progress'>,
  at: string,
  reason?: string,
): Exchange {
  const entry: TranscriptEntry = reason
    ? { kind: 'outcome', outcome, reason, at }
    : { kind: 'outcome', outcome, at };
  return {
    ...x,
    outcome,
    endedAt: at,
    escalationReason: outcome === 'escalated' ? (reason ?? 'escalated to humans') : x.escalationReason,
    transcript: [...x.transcript, entry as unknown as Record<string, unknown>],
  };
}

export const appended = (x: Exchange, ...add: TranscriptEntry[]): Exchange => ({
  ...x,
  transcript: [...x.transcript, ...(add as unknown as Record<string, unknown>[])],
});

/**
 * Compare-and-set on the stored round: `change(current)` returns the new exchange (or throws);
 * retried a few times when another writer got there first (re-reading, re-deciding). `known`: the
 * record as the caller just read or wrote it — the first attempt starts from it instead of reading
 * it again; the compare-and-set refuses it if it changed meanwhile, and a change that finds
 * nothing to do on it is decided again on a fresh read.
 */
export async function casUpdate(
  store: ExchangeStore,
  tenantId: string,
  exchangeId: string,
  change: (current: Exchange) => Exchange | Promise<Exchange>,
  known?: Exchange,
): Promise<Exchange> {
  let snapshot = known;
  for (let attempt = 0; attempt < 5; attempt++) {
    const fromSnapshot = snapshot !== undefined;
    const current = snapshot ?? (await store.get(tenantId, exchangeId));
    snapshot = undefined;
    if (!current) throw errorOf('NOT_FOUND', 'The exchange does not exist');
    const changed = change(current);
    // A change made synchronously is not awaited (one microtask less; the same record).
    const next =
      typeof (changed as { then?: unknown } | null)?.then === 'function'
        ? await changed
        : (changed as Exchange);
    if (next === current) {
      if (fromSnapshot) continue;
      return current;
    }
    if (await store.update(next, current.currentRound, current.transcript.length)) return next;
  }
  throw errorOf('service_unavailable', 'The exchange is being changed concurrently; try again');
}
