/**
 * The `agent_exchange` audit entry written on each side (spec: AuditEntry, actionDetail for
 * agent_exchange): exchangeId, exchangeType, initiatorAgentId, responderAgentId, currentRound,
 * maxRounds, classificationLevel, escalated, dataShared, dataWithheld — plus which side wrote it,
 * what happened, and why.
 *
 * `dataShared`, `dataWithheld` and `classificationLevel` are the exchange's as the spec's Exchange
 * resource has them at the moment of the entry: totals over the rounds so far, not the round's
 * own (so a third round that withholds one item records `dataWithheld` with all three withheld so
 * far). The round an entry is about is `currentRound`; its own share is the difference from the
 * previous entry of the same exchange.
 */
import type {
  AuditEntryInput,
  AuditSink,
  ClassificationLevel,
  Exchange,
  ExchangeType,
  GovernanceError,
} from '@agentgov/core';

export type ExchangeEvent =
  | 'sent'
  | 'received'
  | 'answered'
  | 'reply_received'
  | 'pending_human'
  | 'approved'
  | 'rejected'
  | 'resolved'
  | 'escalated'
  | 'expired'
  | 'refused'
  | 'cancelled'
  | 'blocked';

export interface ExchangeAuditFacts {
  tenantId: string;
  /** The human of the side writing the entry. */
  userId: string;
  side: 'initiator' | 'responder';
  event: ExchangeEvent;
  requestId: string;
  policyApplied: string;
  result: 'allow' | 'deny' | 'require_approval';
  outcome: 'success' | 'denied' | 'error' | 'pending_approval';
  reason?: string;
  /** The stored exchange, or what is known when none was stored (a blocked attempt). */
  exchange:
    | Exchange
    | {
        exchangeId: string;
        exchangeType: ExchangeType;
        initiatorAgentId: string;
        responderAgentId: string;
        currentRound: number;
        maxRounds: number;
        classificationLevel: ClassificationLevel;
        outcome?: Exchange['outcome'];
        dataShared?: Exchange['dataShared'];
        dataWithheld?: Exchange['dataWithheld'];
      };
  /** Extra fields (error code, approval id…). */
  extra?: Record<string, unknown>;
}

/** Who writes an entry: the node's tenant and user, and the policy applied. */
type Writer = Pick<ExchangeAuditFacts, 'tenantId' | 'userId' | 'policyApplied'>;

export function exchangeAuditEntry(f: ExchangeAuditFacts): AuditEntryInput {
  return entryOf(f, f);
}

/** The entry of `f` written by `who` (the facts are read, never copied). */
function entryOf(f: Omit<ExchangeAuditFacts, keyof Writer>, who: Writer): AuditEntryInput {
  const x = f.exchange;
  const dataShared = x.dataShared ?? [];
  return {
    tenantId: who.tenantId,
    userId: who.userId,
    actionType: 'agent_exchange',
    actionDetail: {
      exchangeId: x.exchangeId,
      exchangeType: x.exchangeType,
      initiatorAgentId: x.initiatorAgentId,
      responderAgentId: x.responderAgentId,
      currentRound: x.currentRound,
      maxRounds: x.maxRounds,
      classificationLevel: x.classificationLevel,
      escalated: x.outcome === 'escalated',
      dataShared,
      dataWithheld: x.dataWithheld ?? [],
      side: f.side,
      event: f.event,
      ...f.extra,
    },
    dataAccessed: dataShared.map((d) => ({
      source: d.source,
      classification: x.classificationLevel,
      purpose: 'agent_exchange',
    })),
    dataClassification: x.classificationLevel,
    policyApplied: who.policyApplied.slice(0, 255),
    policyResult: f.result,
    policyReason: (f.reason ?? '').slice(0, 1024),
    outcome: f.outcome,
    requestId: f.requestId,
  };
}

/** Appends the entry (`facts` as written by `who`); a failing audit log fails the operation (nothing unaudited happens silently). */
export async function writeAudit(
  sink: AuditSink,
  facts: Omit<ExchangeAuditFacts, keyof Writer>,
  who: Writer,
): Promise<void> {
  const r = await sink.append(entryOf(facts, who));
  if (r.isErr()) throw r.error as GovernanceError;
}
