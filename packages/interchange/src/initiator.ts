/**
 * The initiating side. An information query runs the spec's steps in order — the cross-tenant
 * block first (policy can never override it), then the responder must accept queries, the
 * agent-to-agent decision (fail closed), the envelope, the classification filter, the audit entry —
 * and only then is anything sent. Follow-up rounds re-run the checks; the round limit fixed at
 * the start is never raised.
 *
 * Over 300 lines on purpose: as on the receiving side, the steps run in the spec's order, and the
 * order is what is reviewed; keeping them in one file keeps it visible.
 */
import {
  CommitmentRequiresHumanError,
  CrossEnterpriseBlockedError,
  type Exchange,
  ExchangeRoundLimitError,
  type ExchangeType,
  errorOf,
  minClassification,
  newId,
  parseWith,
} from '@agentgov/core';
import { type NodeContext, policyDenied } from './context';
import { buildEnvelope, contentDigest } from './envelope';
import { fastMessage } from './fast-parse';
import { filterByClassification, highestLevel, summarizeShared, summarizeWithheld } from './filter';
import { type ExchangeMessage, type ExchangeMessageInput, ExchangeMessageSchema } from './message';
import { appended, casUpdate, ended, replyOf, withData } from './record';
import { effectiveMaxRounds, roundLimitFor } from './rounds';
import { auditRefusal, deliverOrEscalate, ownExchange, settleRound } from './settle';
import type { PeerInfo } from './transport';

export type MessageType = 'agent-generated' | 'agent-assisted' | 'human';

export interface QueryInput {
  /** The responder agent. */
  to: string;
  exchangeType?: ExchangeType;
  message: ExchangeMessageInput;
  /** Who wrote the message (default agent-generated: it may never carry a commitment). */
  messageType?: MessageType;
  conversationId?: string;
  /** Keep the exchange open for follow-up rounds (default: resolved once answered). */
  keepOpen?: boolean;
  requestId?: string;
  signal?: AbortSignal;
}

export interface RoundResult {
  exchange: Exchange;
  status: 'answered' | 'pending' | 'declined';
  /** The answer as received (items above this agent's ceiling removed). */
  reply?: ExchangeMessage;
}

const describeItem = (i: { source: string; field: string }) => `${i.source}.${i.field}`;

/** Checks that do not depend on the stored exchange; returns the ceiling and the decision. */
async function admit(
  ctx: NodeContext,
  peer: PeerInfo,
  type: ExchangeType,
  message: ExchangeMessage,
  messageType: MessageType,
  signal: AbortSignal | undefined,
) {
  const me = ctx.me();
  if (peer.tenantId !== me.tenantId) throw new CrossEnterpriseBlockedError(me.tenantId, peer.tenantId);
  if (message.commitment && messageType === 'agent-generated') throw new CommitmentRequiresHumanError(type);
  // Step 1: the responder accepts queries.
  if (!peer.canReceiveQueries) throw policyDenied('the responder does not accept queries');
  const identity = await ctx.identity(signal);
  if (!identity.supportedExchangeTypes.includes(type))
    throw policyDenied(`this agent does not take part in ${type}`);
  if (!peer.supportedExchangeTypes.includes(type))
    throw policyDenied(`the responder does not take part in ${type}`);
  // The responder's org unit comes from the org directory, not from what the peer publishes.
  const placed = await ctx.placement(peer.tenantId, peer.userId);
  if (!placed)
    throw policyDenied('the responder is not placed in an org unit of the org directory', {
      reason: 'responder_unknown',
    });
  // Step 2: the decision, on the level of what could be shared at all.
  const ceiling0 = minClassification(identity.maxClassificationShared, peer.maxClassificationShared);
  const level = highestLevel(filterByClassification(message.items, ceiling0).kept);
  const decision = await ctx.decide({
    exchangeType: type,
    initiator: me,
    responder: { tenantId: peer.tenantId, orgUnit: placed.orgUnit },
    level,
    ...(signal ? { signal } : {}),
  });
  if (!decision.allow || decision.deny) throw policyDenied(decision.reason);
  const limit = decision.constraints.max_classification_shared;
  const ceiling = limit ? minClassification(ceiling0, limit) : ceiling0;
  return { identity, decision, ceiling };
}

/** The caller's message, validated (the fast path when it applies; the schema's error otherwise). */
function parseQueryMessage(input: ExchangeMessageInput): ExchangeMessage {
  return (
    fastMessage(input) ??
    parseWith(ExchangeMessageSchema, input, 'message').match(
      (m) => m,
      (e) => {
        throw e;
      },
    )
  );
}

export async function startQuery(ctx: NodeContext, input: QueryInput): Promise<RoundResult> {
  const { store, transport } = ctx.options;
  const type = input.exchangeType ?? 'information_query';
  const messageType = input.messageType ?? 'agent-generated';
  const message = parseQueryMessage(input.message);
  const requestId = input.requestId ?? newId();
  const me = ctx.me();
  const peer = await transport.peer(input.to, input.signal ? { signal: input.signal } : {});
  if (!peer) throw errorOf('NOT_FOUND', `No agent ${input.to} is known`);
  const exchangeId = newId();
  const conversationId = input.conversationId ?? newId();
  const known = {
    exchangeId,
    exchangeType: type,
    initiatorAgentId: me.agentId,
    responderAgentId: peer.agentId,
    currentRound: 0,
    maxRounds: effectiveMaxRounds(roundLimitFor(ctx.options.roundLimits, type)),
    classificationLevel: highestLevel(message.items),
  };
  let admitted: Awaited<ReturnType<typeof admit>>;
  try {
    admitted = await admit(ctx, peer, type, message, messageType, input.signal);
  } catch (error) {
    await auditRefusal(ctx, error, known, requestId, 'initiator');
    throw error;
  }
  const { identity, decision, ceiling } = admitted;
  const maxRounds = effectiveMaxRounds(
    decision.constraints.max_rounds,
    roundLimitFor(ctx.options.roundLimits, type),
    identity.maxRoundsAccepted,
    peer.maxRoundsAccepted,
  );
  // Steps 3 and 4: the envelope, and nothing above the ceiling leaves.
  const filtered = filterByClassification(message.items, ceiling, describeItem);
  const sent: ExchangeMessage = { ...message, items: filtered.kept };
  const level = highestLevel(filtered.kept);
  const signed = await ctx.sign({
    envelope: buildEnvelope({
      messageType,
      replyPolicy: type === 'information_query' ? 'agent-ok' : 'human-only',
      exchangeId,
      currentRound: 1,
      maxRounds,
      classificationLevel: level,
    }),
    kind: 'query',
    final: !input.keepOpen,
    // What may come back: the decided ceiling (between org units lowered by cross_org), not only
    // this agent's own clearance — the answer is held to the same rule as the query.
    accepts: ceiling,
    exchangeType: type,
    conversationId,
    from: me,
    to: { tenantId: peer.tenantId, agentId: peer.agentId },
    contextId: conversationId,
    digest: contentDigest(sent),
  });
  const now = ctx.nowIso();
  const exchange: Exchange = appended(
    {
      exchangeId,
      tenantId: me.tenantId,
      conversationId,
      initiatorAgentId: me.agentId,
      initiatorUserId: me.userId,
      responderAgentId: peer.agentId,
      responderUserId: peer.userId,
      exchangeType: type,
      currentRound: 1,
      maxRounds,
      classificationLevel: level,
      outcome: 'in_progress',
      escalationReason: null,
      dataShared: summarizeShared(filtered.kept),
      dataWithheld: summarizeWithheld(filtered.withheld),
      policyApplied: ctx.policyName(),
      transcript: [],
      channel: ctx.channel,
      startedAt: now,
      endedAt: null,
    },
    {
      kind: 'message',
      round: 1,
      from: 'initiator',
      messageType,
      ...sent,
      final: !input.keepOpen,
      jti: signed.claims.jti,
      jws: signed.jws,
      at: now,
    },
  );
  await store.insert(exchange);
  // Step 5: audited before it is sent.
  await ctx.audit({
    side: 'initiator',
    event: 'sent',
    requestId,
    result: 'allow',
    outcome: 'success',
    reason: decision.reason,
    exchange,
  });
  const result = await deliverOrEscalate(
    ctx,
    peer,
    exchange,
    () =>
      transport.deliver(
        peer,
        { jws: signed.jws, message: sent, claims: signed.claims },
        input.signal ? { signal: input.signal } : {},
      ),
    requestId,
  );
  return settleRound(ctx, peer, exchangeId, 1, result, requestId, exchange);
}

export async function followUp(
  ctx: NodeContext,
  exchangeId: string,
  input: Omit<QueryInput, 'to' | 'exchangeType' | 'conversationId'>,
): Promise<RoundResult> {
  const { store, transport } = ctx.options;
  const me = ctx.me();
  const requestId = input.requestId ?? newId();
  const messageType = input.messageType ?? 'agent-generated';
  const message = parseQueryMessage(input.message);
  const current = await ownExchange(ctx, exchangeId);
  if (current.outcome === 'escalated' && current.currentRound >= current.maxRounds) {
    throw new ExchangeRoundLimitError(exchangeId, current.currentRound, current.maxRounds);
  }
  if (current.outcome !== 'in_progress')
    throw policyDenied(`the exchange is ${current.outcome}`, { outcome: current.outcome });
  if (!replyOf(current, current.currentRound))
    throw policyDenied('the previous round has no reply yet', { reason: 'awaiting_reply' });
  if (current.currentRound >= current.maxRounds) {
    const escalated = await casUpdate(store, me.tenantId, exchangeId, (x) =>
      x.outcome === 'in_progress' ? ended(x, 'escalated', ctx.nowIso(), 'round limit reached') : x,
    );
    const error = new ExchangeRoundLimitError(exchangeId, current.currentRound, current.maxRounds);
    await ctx.audit({
      side: 'initiator',
      event: 'escalated',
      requestId,
      result: 'deny',
      outcome: 'denied',
      reason: error.message,
      exchange: escalated,
      extra: { code: error.code },
    });
    throw error;
  }
  const peer = await transport.peer(current.responderAgentId, input.signal ? { signal: input.signal } : {});
  if (!peer) throw errorOf('NOT_FOUND', `No agent ${current.responderAgentId} is known`);
  const round = current.currentRound + 1;
  let admitted: Awaited<ReturnType<typeof admit>>;
  try {
    admitted = await admit(ctx, peer, current.exchangeType, message, messageType, input.signal);
  } catch (error) {
    await auditRefusal(ctx, error, { ...current, currentRound: round }, requestId, 'initiator');
    throw error;
  }
  const filtered = filterByClassification(message.items, admitted.ceiling, describeItem);
  const sent: ExchangeMessage = { ...message, items: filtered.kept };
  const level = highestLevel(filtered.kept);
  const signed = await ctx.sign({
    envelope: buildEnvelope({
      messageType,
      replyPolicy: current.exchangeType === 'information_query' ? 'agent-ok' : 'human-only',
      exchangeId,
      currentRound: round,
      maxRounds: current.maxRounds,
      classificationLevel: level,
    }),
    kind: 'query',
    final: !input.keepOpen,
    accepts: admitted.ceiling,
    exchangeType: current.exchangeType,
    conversationId: current.conversationId,
    from: me,
    to: { tenantId: peer.tenantId, agentId: peer.agentId },
    contextId: current.conversationId,
    digest: contentDigest(sent),
  });
  const now = ctx.nowIso();
  // Compare-and-set on the round: of two concurrent follow-ups only one passes.
  const next = appended(
    withData(
      { ...current, currentRound: round },
      summarizeShared(filtered.kept),
      summarizeWithheld(filtered.withheld),
      level,
    ),
    {
      kind: 'message',
      round,
      from: 'initiator',
      messageType,
      ...sent,
      final: !input.keepOpen,
      jti: signed.claims.jti,
      jws: signed.jws,
      at: now,
    },
  );
  if (!(await store.update(next, current.currentRound, current.transcript.length))) {
    throw errorOf('service_unavailable', 'The exchange changed concurrently; nothing was sent');
  }
  await ctx.audit({
    side: 'initiator',
    event: 'sent',
    requestId,
    result: 'allow',
    outcome: 'success',
    reason: admitted.decision.reason,
    exchange: next,
  });
  const result = await deliverOrEscalate(
    ctx,
    peer,
    next,
    () =>
      transport.deliver(
        peer,
        { jws: signed.jws, message: sent, claims: signed.claims },
        input.signal ? { signal: input.signal } : {},
      ),
    requestId,
  );
  return settleRound(ctx, peer, exchangeId, round, result, requestId, next);
}
