/**
 * The receiving side enforces everything again, on its own terms: a delivery without a valid
 * envelope is refused (never treated as a human message); the signature must verify with the key
 * of the agent it claims to come from; the responder's own identity, policy, clearance and round
 * record decide what it accepts and returns — never a field the sender sets: the sender's user is
 * the one its key is bound to (checked with the envelope), its org unit and team come from this
 * node's org directory (the recorded sender, what the human is shown, the cross-org decision).
 * Only then may the
 * agent answer automatically (information queries, when its identity and its human's availability
 * allow); everything else waits for a human.
 *
 * Over 300 lines on purpose: the receiving checks are one ordered sequence (envelope, signer,
 * identity, policy, rounds, filtering, audit) whose order is the security property; split across
 * files it could no longer be read, and reviewed, top to bottom.
 */
import {
  type AgentIdentity,
  CommitmentRequiresHumanError,
  CrossEnterpriseBlockedError,
  type Exchange,
  ExchangeRoundLimitError,
  GovernanceError,
  isGovernanceError,
  minClassification,
  newId,
} from '@agentgov/core';
import { automaticAnswer } from './automatic-answer';
import { type NodeContext, policyDenied, type Sender } from './context';
import type { EnvelopeClaims } from './envelope';
import { parseMessage } from './fast-parse';
import { filterByClassification, highestLevel, summarizeShared, summarizeWithheld } from './filter';
import type { ExchangeMessage } from './message';
import {
  appended,
  casUpdate,
  entries,
  isStale,
  pendingApproval,
  replyOf,
  type TranscriptEntry,
  withData,
} from './record';
import { describeItem, type RecordUnverified, refused, refuseUnverified, sendReply } from './reply';
import { effectiveMaxRounds, roundLimitFor } from './rounds';
import { auditRefusal } from './settle';
import type { Delivery, DeliveryResult } from './transport';

/** How a transport hands a delivery to the node (`InterchangeNode.receive`). */
export interface ReceiveOptions {
  /** The transport's context (the A2A contextId): the envelope's must equal it. */
  contextId?: string;
  requestId?: string;
  /**
   * Called with the envelope's claims once the node has verified them (signature, audience,
   * context, digest, time, replay) and before it decides: what a transport needs of them (the
   * exchange, the round) without decoding the JWS again. Not called for a refused envelope.
   */
  onVerified?: (claims: EnvelopeClaims) => void;
  /** Whether to record the refusal of an envelope that did not verify (default: always; see `RecordUnverified`). */
  recordUnverified?: RecordUnverified;
}

export async function receiveDelivery(
  ctx: NodeContext,
  delivery: Delivery,
  opts: ReceiveOptions = {},
): Promise<DeliveryResult> {
  const me = ctx.me();
  const requestId = opts.requestId ?? newId();
  let claims: EnvelopeClaims;
  try {
    claims = await ctx.accept(delivery?.jws, delivery?.message, opts.contextId);
    if (claims.kind !== 'query') {
      throw new GovernanceError('invalid_token', 'Exchange envelope rejected: not a query', {
        detail: { reason: 'wrong_kind' },
      });
    }
  } catch (error) {
    if (!isGovernanceError(error)) throw error;
    return refuseUnverified(ctx, error, requestId, opts.recordUnverified);
  }
  opts.onVerified?.(claims);
  const e = claims.envelope;
  const facts = {
    exchangeId: e.exchangeId,
    exchangeType: claims.exchangeType,
    initiatorAgentId: claims.from.agentId,
    responderAgentId: me.agentId,
    currentRound: e.currentRound,
    maxRounds: e.maxRounds,
    classificationLevel: e.classificationLevel,
  };
  try {
    return await admitAndAnswer(ctx, claims, delivery, requestId);
  } catch (error) {
    if (!isGovernanceError(error) || error.code === 'service_unavailable' || error.code === 'internal_error')
      throw error;
    await auditRefusal(ctx, error, facts, requestId, 'responder');
    return refused(error);
  }
}

async function admitAndAnswer(
  ctx: NodeContext,
  claims: EnvelopeClaims,
  delivery: Delivery,
  requestId: string,
): Promise<DeliveryResult> {
  const { store } = ctx.options;
  const me = ctx.me();
  const e = claims.envelope;
  const type = claims.exchangeType;
  if (claims.from.tenantId !== me.tenantId)
    throw new CrossEnterpriseBlockedError(claims.from.tenantId, me.tenantId);
  // Who sends: the user its key is bound to (verified with the envelope), placed by the directory.
  const sender = await ctx.sender(claims);
  const parsed = parseMessage(delivery.message);
  if (!parsed.success) throw policyDenied('the message content is invalid', { reason: 'message_invalid' });
  const message = parsed.data;
  const identity = await ctx.identity();
  if (!identity.canReceiveQueries) throw policyDenied('this agent does not accept queries');
  if (!identity.supportedExchangeTypes.includes(type))
    throw policyDenied(`this agent does not take part in ${type}`);
  if (message.commitment && e.messageType === 'agent-generated') throw new CommitmentRequiresHumanError(type);
  // The receiver's own clearance first: nothing above it reaches the agent.
  const cleared = filterByClassification(message.items, identity.maxClassificationShared, describeItem);
  const decision = await ctx.decide({
    exchangeType: type,
    initiator: sender,
    responder: me,
    level: highestLevel(cleared.kept),
  });
  if (!decision.allow || decision.deny) throw policyDenied(decision.reason);
  const limit = decision.constraints.max_classification_shared;
  const own = limit
    ? minClassification(identity.maxClassificationShared, limit)
    : identity.maxClassificationShared;
  // What the initiator accepts in return can only lower it.
  const ceiling = minClassification(own, claims.accepts);
  const accepted = filterByClassification(message.items, own, describeItem);
  const now = ctx.nowIso();
  const incoming: TranscriptEntry = {
    kind: 'message',
    round: e.currentRound,
    from: 'initiator',
    messageType: e.messageType,
    text: message.text,
    items: accepted.kept,
    ...(message.commitment ? { commitment: message.commitment } : {}),
    final: claims.final,
    jti: claims.jti,
    jws: delivery.jws,
    at: now,
  };
  // The round record: the responder's own limit, which an envelope can lower at the start but never raise.
  let x = await store.get(me.tenantId, e.exchangeId);
  if (!x) {
    if (e.currentRound !== 1) throw policyDenied('unknown exchange', { reason: 'unknown_exchange' });
    const maxRounds = effectiveMaxRounds(
      decision.constraints.max_rounds,
      roundLimitFor(ctx.options.roundLimits, type),
      identity.maxRoundsAccepted,
      e.maxRounds,
    );
    x = appended(
      {
        exchangeId: e.exchangeId,
        tenantId: me.tenantId,
        conversationId: claims.conversationId,
        initiatorAgentId: claims.from.agentId,
        initiatorUserId: sender.userId,
        responderAgentId: me.agentId,
        responderUserId: me.userId,
        exchangeType: type,
        currentRound: 1,
        maxRounds,
        classificationLevel: highestLevel(accepted.kept),
        outcome: 'in_progress',
        escalationReason: null,
        dataShared: summarizeShared(accepted.kept),
        dataWithheld: summarizeWithheld(accepted.withheld),
        policyApplied: ctx.policyName(),
        transcript: [],
        channel: ctx.channel,
        startedAt: now,
        endedAt: null,
      },
      incoming,
    );
    try {
      await store.insert(x);
    } catch {
      throw policyDenied('the exchange already exists', { reason: 'exchange_conflict' });
    }
  } else {
    x = await casUpdate(store, me.tenantId, e.exchangeId, (c) =>
      nextRound(ctx, c, claims, incoming, accepted),
    );
  }
  await ctx.audit({
    side: 'responder',
    event: 'received',
    requestId,
    result: 'allow',
    outcome: 'success',
    reason: decision.reason,
    exchange: x,
  });
  return answerRound(ctx, x, claims, sender, message, accepted.kept, ceiling, identity, requestId);
}

function nextRound(
  ctx: NodeContext,
  c: Exchange,
  claims: EnvelopeClaims,
  incoming: TranscriptEntry,
  accepted: ReturnType<typeof filterByClassification<ExchangeMessage['items'][number]>>,
): Exchange {
  const e = claims.envelope;
  const me = ctx.me();
  if (
    c.initiatorAgentId !== claims.from.agentId ||
    // the user its key is bound to now (verified) must be the one the exchange started with
    c.initiatorUserId !== claims.from.userId ||
    c.responderAgentId !== me.agentId ||
    c.exchangeType !== claims.exchangeType ||
    // the conversation (the A2A contextId, which the transport binds) it started in is the one it continues in
    c.conversationId !== claims.conversationId ||
    c.conversationId !== claims.contextId
  ) {
    throw policyDenied('the envelope does not match the exchange', { reason: 'exchange_mismatch' });
  }
  if (isStale(c, ctx.clock.now().getTime(), ctx.ttlMs))
    throw policyDenied('the exchange has expired', { outcome: 'expired' });
  if (e.maxRounds !== c.maxRounds)
    throw policyDenied('the envelope claims another round limit', { reason: 'round_limit_mismatch' });
  if (e.currentRound > c.maxRounds)
    throw new ExchangeRoundLimitError(c.exchangeId, e.currentRound, c.maxRounds);
  // One store shared by both sides: the initiator already recorded this very message.
  const shared = entries(c).some(
    (t) => t.kind === 'message' && t.round === e.currentRound && t.jti === claims.jti,
  );
  if (shared && c.currentRound === e.currentRound && c.outcome === 'in_progress') return c;
  // Escalated at its limit: whatever round the next message names, it is one past the limit.
  if (c.outcome === 'escalated' && c.currentRound >= c.maxRounds)
    throw new ExchangeRoundLimitError(c.exchangeId, e.currentRound, c.maxRounds);
  if (c.outcome !== 'in_progress') throw policyDenied(`the exchange is ${c.outcome}`, { outcome: c.outcome });
  if (e.currentRound !== c.currentRound + 1 || !replyOf(c, c.currentRound)) {
    throw policyDenied('the round is out of order', { reason: 'round_out_of_order' });
  }
  return appended(
    withData(
      { ...c, currentRound: e.currentRound },
      summarizeShared(accepted.kept),
      summarizeWithheld(accepted.withheld),
      highestLevel(accepted.kept),
    ),
    incoming,
  );
}

async function answerRound(
  ctx: NodeContext,
  x: Exchange,
  claims: EnvelopeClaims,
  sender: Sender,
  message: ExchangeMessage,
  items: ExchangeMessage['items'],
  ceiling: ExchangeMessage['items'][number]['classification'],
  /** This agent's identity as derived when the delivery was admitted (same request). */
  identity: AgentIdentity,
  requestId: string,
): Promise<DeliveryResult> {
  const { options } = ctx;
  const autoWhen = options.autoRespondWhen ?? ['online', 'away'];
  let waitReason: string | undefined;
  if (x.exchangeType !== 'information_query') waitReason = `${x.exchangeType} always needs a human`;
  // A commitment reaches only a human: the sender's `messageType: human` is a claim its agent's
  // signature cannot prove (an agent-generated one was refused on admission).
  else if (message.commitment)
    waitReason = `the message carries a commitment (the sender says a ${claims.envelope.messageType} made it): a human answers`;
  else if (!identity.canAutoRespond) waitReason = 'this agent may not respond automatically';
  else if (!autoWhen.includes(identity.humanAvailability))
    waitReason = `the human is ${identity.humanAvailability}`;
  else if (!options.answer) waitReason = 'no automatic answer is configured';
  let answer: ExchangeMessage | undefined;
  if (!waitReason && options.answer) {
    const got = await automaticAnswer(options, options.answer, {
      exchangeId: x.exchangeId,
      round: claims.envelope.currentRound,
      exchangeType: x.exchangeType,
      from: {
        agentId: sender.agentId,
        userId: sender.userId,
        orgUnit: sender.orgUnit,
        ...(sender.team ? { team: sender.team } : {}),
      },
      text: message.text,
      items,
      ceiling,
    });
    // A failed automatic answer leaves the round to a human, as if none were configured.
    if ('failed' in got) waitReason = `${got.failed}: a human answers`;
    else answer = got.answer;
  }
  if (answer?.commitment) {
    // The agent tried to commit: COMMITMENT_REQUIRES_HUMAN; the round waits for a human instead.
    const error = new CommitmentRequiresHumanError(x.exchangeType);
    await auditRefusal(ctx, error, x, requestId, 'responder');
    waitReason = 'the agent tried to make a commitment';
    answer = undefined;
  }
  if (!answer)
    return waitForHuman(ctx, x, claims, sender, waitReason ?? 'a human must answer', ceiling, requestId);
  return sendReply(
    ctx,
    x,
    claims.envelope.currentRound,
    answer,
    ceiling,
    { automatic: true, messageType: 'agent-generated' },
    requestId,
  );
}

async function waitForHuman(
  ctx: NodeContext,
  x: Exchange,
  claims: EnvelopeClaims,
  sender: Sender,
  reason: string,
  ceiling: ExchangeMessage['items'][number]['classification'],
  requestId: string,
): Promise<DeliveryResult> {
  const round = claims.envelope.currentRound;
  const now = ctx.clock.now();
  const y = await casUpdate(ctx.options.store, x.tenantId, x.exchangeId, (c) =>
    pendingApproval(c)?.request.round === round
      ? c
      : appended(c, {
          kind: 'awaiting_human',
          round,
          approvalId: newId(),
          action: c.exchangeType === 'information_query' ? 'answer' : c.exchangeType,
          reason,
          ceiling,
          initiatorOrgUnit: sender.orgUnit,
          ...(sender.team ? { initiatorTeam: sender.team } : {}),
          at: now.toISOString(),
          expiresAt: new Date(now.getTime() + ctx.approvalTtlMs).toISOString(),
        }),
  );
  await ctx.audit({
    side: 'responder',
    event: 'pending_human',
    requestId,
    result: 'require_approval',
    outcome: 'pending_approval',
    reason,
    exchange: y,
  });
  return { status: 'pending', reason };
}
