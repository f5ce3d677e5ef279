/**
 * The receiving side enforces everything again, on its own terms: a delivery without a valid
 * envelope is refused (never treated as a human message); the signature must verify with the key
 * of the agent it claims to come from; the responder's own identity, policy, clearance and round
 * record decide what it accepts and returns — never a field the sender sets. Only then may the
 * agent answer automatically (information queries, when its identity and its human's availability
 * allow); everything else waits for a human.
 */
import {
  CommitmentRequiresHumanError,
  CrossEnterpriseBlockedError,
  type Exchange,
  ExchangeRoundLimitError,
  GovernanceError,
  isGovernanceError,
  minClassification,
  newId,
} from '@agentgov/core';
import { type NodeContext, policyDenied } from './context';
import { buildEnvelope, contentDigest, type EnvelopeClaims } from './envelope';
import { filterByClassification, highestLevel, summarizeShared, summarizeWithheld } from './filter';
import { auditRefusal } from './initiator';
import { type ExchangeMessage, ExchangeMessageSchema } from './message';
import {
  appended,
  casUpdate,
  ended,
  entries,
  isStale,
  type MessageEntry,
  pendingApproval,
  replyOf,
  type TranscriptEntry,
  withData,
} from './record';
import { effectiveMaxRounds, roundLimitFor } from './rounds';
import type { CollectRequest, Delivery, DeliveryResult } from './transport';

const describeItem = (i: { source: string; field: string }) => `${i.source}.${i.field}`;

const refused = (error: GovernanceError): DeliveryResult => ({ status: 'refused', error: error.toBody() });

const unverified = (me: { agentId: string }) => ({
  exchangeId: '(unverified)',
  exchangeType: 'information_query' as const,
  initiatorAgentId: '(unverified)',
  responderAgentId: me.agentId,
  currentRound: 0,
  maxRounds: 0,
  classificationLevel: 'public' as const,
});

export async function receiveDelivery(
  ctx: NodeContext,
  delivery: Delivery,
  opts: { contextId?: string; requestId?: string } = {},
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
    await auditRefusal(ctx, error, unverified(me), requestId, 'responder');
    return refused(error);
  }
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
  const parsed = ExchangeMessageSchema.safeParse(delivery.message);
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
    initiator: claims.from,
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
        initiatorUserId: claims.from.userId,
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
  return answerRound(ctx, x, claims, message, accepted.kept, ceiling, requestId);
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
    c.responderAgentId !== me.agentId ||
    c.exchangeType !== claims.exchangeType
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
  message: ExchangeMessage,
  items: ExchangeMessage['items'],
  ceiling: ExchangeMessage['items'][number]['classification'],
  requestId: string,
): Promise<DeliveryResult> {
  const { options } = ctx;
  const identity = await ctx.identity();
  const autoWhen = options.autoRespondWhen ?? ['online', 'away'];
  let waitReason: string | undefined;
  if (x.exchangeType !== 'information_query') waitReason = `${x.exchangeType} always needs a human`;
  else if (!identity.canAutoRespond) waitReason = 'this agent may not respond automatically';
  else if (!autoWhen.includes(identity.humanAvailability))
    waitReason = `the human is ${identity.humanAvailability}`;
  else if (!options.answer) waitReason = 'no automatic answer is configured';
  let answer: ExchangeMessage | undefined;
  if (!waitReason && options.answer) {
    const raw = await options.answer({
      exchangeId: x.exchangeId,
      round: claims.envelope.currentRound,
      exchangeType: x.exchangeType,
      from: { agentId: claims.from.agentId, userId: claims.from.userId, orgUnit: claims.from.orgUnit },
      text: message.text,
      items,
      ceiling,
    });
    answer = ExchangeMessageSchema.parse(raw);
    if (answer.commitment) {
      // The agent tried to commit: COMMITMENT_REQUIRES_HUMAN; the round waits for a human instead.
      const error = new CommitmentRequiresHumanError(x.exchangeType);
      await auditRefusal(ctx, error, x, requestId, 'responder');
      waitReason = 'the agent tried to make a commitment';
      answer = undefined;
    }
  }
  if (!answer) return waitForHuman(ctx, x, claims, waitReason ?? 'a human must answer', ceiling, requestId);
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
          initiatorOrgUnit: claims.from.orgUnit,
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

/** Signs, records and returns the reply of `round` (once: a second call returns the recorded one). */
async function sendReply(
  ctx: NodeContext,
  x: Exchange,
  round: number,
  answer: ExchangeMessage,
  ceiling: ExchangeMessage['items'][number]['classification'],
  how: {
    automatic: boolean;
    messageType: 'agent-generated' | 'agent-assisted' | 'human';
    approvalId?: string;
    declined?: boolean;
  },
  requestId: string,
): Promise<DeliveryResult> {
  const me = ctx.me();
  const out = filterByClassification(answer.items, ceiling, describeItem);
  const sent: ExchangeMessage = { ...answer, items: out.kept };
  const level = highestLevel(out.kept);
  const signed = await ctx.sign({
    envelope: buildEnvelope({
      messageType: how.messageType,
      replyPolicy: 'no-reply-needed',
      exchangeId: x.exchangeId,
      currentRound: round,
      maxRounds: x.maxRounds,
      classificationLevel: level,
    }),
    kind: 'reply',
    final: true,
    accepts: 'public',
    exchangeType: x.exchangeType,
    conversationId: x.conversationId,
    from: me,
    to: { tenantId: x.tenantId, agentId: x.initiatorAgentId },
    contextId: x.conversationId,
    digest: contentDigest(sent),
    ...(how.approvalId ? { approvalId: how.approvalId } : {}),
  });
  const now = ctx.nowIso();
  let existing: MessageEntry | undefined;
  const y = await casUpdate(ctx.options.store, x.tenantId, x.exchangeId, (c) => {
    existing = replyOf(c, round);
    if (existing) return c;
    let next = appended(withData(c, summarizeShared(out.kept), summarizeWithheld(out.withheld), level), {
      kind: 'reply',
      round,
      from: 'responder',
      messageType: how.messageType,
      ...sent,
      automatic: how.automatic,
      ...(how.approvalId ? { approvalId: how.approvalId } : {}),
      jti: signed.claims.jti,
      jws: signed.jws,
      at: now,
    });
    if (next.outcome !== 'in_progress') return next;
    const query = entries(c).find((t) => t.kind === 'message' && t.round === round);
    if (query?.kind === 'message' && query.final !== false) next = ended(next, 'resolved', now);
    else if (round >= next.maxRounds) next = ended(next, 'escalated', now, 'round limit reached');
    return next;
  });
  const status = how.declined ? 'declined' : 'answered';
  if (existing)
    return {
      status,
      reply: {
        jws: existing.jws,
        message: {
          text: existing.text,
          items: existing.items,
          ...(existing.commitment ? { commitment: existing.commitment } : {}),
        },
      },
    };
  await ctx.audit({
    side: 'responder',
    event: 'answered',
    requestId,
    result: 'allow',
    outcome: 'success',
    exchange: y,
    extra: { automatic: how.automatic, ...(how.approvalId ? { approvalId: how.approvalId } : {}) },
  });
  return { status, reply: { jws: signed.jws, message: sent } };
}

/**
 * The initiator asks for the reply of a pending round: verified like any delivery; answered from
 * the record, or — once a human decided — the reply is made now (single use: bound to that
 * request's approval id, round and action).
 */
export async function serveCollect(
  ctx: NodeContext,
  request: CollectRequest,
  opts: { requestId?: string } = {},
): Promise<DeliveryResult> {
  const me = ctx.me();
  const requestId = opts.requestId ?? newId();
  let claims: EnvelopeClaims;
  try {
    claims = await ctx.accept(request?.jws, { exchangeId: request?.exchangeId, round: request?.round });
    if (claims.kind !== 'collect')
      throw new GovernanceError('invalid_token', 'Exchange envelope rejected: not a collect request', {
        detail: { reason: 'wrong_kind' },
      });
  } catch (error) {
    if (!isGovernanceError(error)) throw error;
    await auditRefusal(ctx, error, unverified(me), requestId, 'responder');
    return refused(error);
  }
  const x = await ctx.options.store.get(me.tenantId, request.exchangeId);
  if (
    !x ||
    x.initiatorAgentId !== claims.from.agentId ||
    x.responderAgentId !== me.agentId ||
    claims.envelope.exchangeId !== x.exchangeId
  ) {
    return refused(policyDenied('unknown exchange', { reason: 'unknown_exchange' }));
  }
  return materialize(ctx, x, request.round, requestId);
}

/** The reply of `round` if there is one or a human has decided; otherwise still pending. */
export async function materialize(
  ctx: NodeContext,
  x: Exchange,
  round: number,
  requestId: string,
): Promise<DeliveryResult> {
  const done = replyOf(x, round);
  if (done) {
    return {
      status: x.outcome === 'denied' ? 'declined' : 'answered',
      reply: {
        jws: done.jws,
        message: {
          text: done.text,
          items: done.items,
          ...(done.commitment ? { commitment: done.commitment } : {}),
        },
      },
    };
  }
  const open = pendingApproval(x);
  if (!open || open.request.round !== round)
    return refused(policyDenied(`the exchange is ${x.outcome}`, { outcome: x.outcome }));
  if (!open.decision) {
    if (ctx.clock.now().getTime() >= Date.parse(open.request.expiresAt)) {
      const y = await casUpdate(ctx.options.store, x.tenantId, x.exchangeId, (c) =>
        c.outcome === 'in_progress'
          ? ended(c, 'expired', ctx.nowIso(), 'the human decision window passed')
          : c,
      );
      await ctx.audit({
        side: 'responder',
        event: 'expired',
        requestId,
        result: 'deny',
        outcome: 'denied',
        exchange: y,
      });
      return refused(policyDenied('the human decision window passed', { outcome: 'expired' }));
    }
    return { status: 'pending', reason: open.request.reason };
  }
  const identity = await ctx.identity();
  const query = entries(x).find((t) => t.kind === 'message' && t.round === round);
  const asked = query?.kind === 'message' ? query : undefined;
  const { decision, request } = open;
  if (decision.decision === 'rejected') {
    return sendReply(
      ctx,
      x,
      round,
      { text: `Declined by ${decision.by}${decision.note ? `: ${decision.note}` : ''}`, items: [] },
      identity.maxClassificationShared,
      { automatic: false, messageType: 'human', declined: true },
      requestId,
    );
  }
  let answer: ExchangeMessage;
  if (request.action === 'answer' && ctx.options.answer && asked) {
    answer = ExchangeMessageSchema.parse(
      await ctx.options.answer({
        exchangeId: x.exchangeId,
        round,
        exchangeType: x.exchangeType,
        from: { agentId: x.initiatorAgentId, userId: x.initiatorUserId, orgUnit: request.initiatorOrgUnit },
        text: asked.text,
        items: asked.items,
        ceiling: request.ceiling,
      }),
    );
    delete answer.commitment;
  } else {
    answer = {
      text: decision.note ?? `Approved by ${decision.by}`,
      items: [],
      ...(request.action === 'answer'
        ? {}
        : { commitment: { action: request.action, detail: decision.note ?? asked?.text ?? '' } }),
    };
  }
  return sendReply(
    ctx,
    x,
    round,
    answer,
    minClassification(identity.maxClassificationShared, request.ceiling),
    { automatic: false, messageType: 'agent-assisted', approvalId: request.approvalId },
    requestId,
  );
}
