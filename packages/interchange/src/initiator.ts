/**
 * The initiating side. An information query runs the spec's steps in order — the cross-tenant
 * block first (policy can never override it), then the responder must accept queries, the
 * agent-to-agent decision (fail closed), the envelope, the classification filter, the audit entry —
 * and only then is anything sent. Follow-up rounds re-run the checks; the round limit fixed at
 * the start is never raised.
 */
import {
  CommitmentRequiresHumanError,
  CrossEnterpriseBlockedError,
  type Exchange,
  ExchangeRoundLimitError,
  type ExchangeType,
  errorOf,
  GovernanceError,
  isGovernanceError,
  minClassification,
  newId,
  parseWith,
} from '@agentgov/core';
import { type NodeContext, peerView, policyDenied } from './context';
import { buildEnvelope, contentDigest } from './envelope';
import { filterByClassification, highestLevel, summarizeShared, summarizeWithheld } from './filter';
import { type ExchangeMessage, type ExchangeMessageInput, ExchangeMessageSchema } from './message';
import { appended, casUpdate, ended, isStale, replyOf, withData } from './record';
import { effectiveMaxRounds, roundLimitFor } from './rounds';
import type { DeliveryResult, PeerInfo } from './transport';

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
  // Step 2: the decision, on the level of what could be shared at all.
  const ceiling0 = minClassification(identity.maxClassificationShared, peer.maxClassificationShared);
  const level = highestLevel(filterByClassification(message.items, ceiling0).kept);
  const decision = await ctx.decide({
    exchangeType: type,
    initiator: me,
    responder: peerView(peer),
    level,
    ...(signal ? { signal } : {}),
  });
  if (!decision.allow || decision.deny) throw policyDenied(decision.reason);
  const limit = decision.constraints.max_classification_shared;
  const ceiling = limit ? minClassification(ceiling0, limit) : ceiling0;
  return { identity, decision, ceiling };
}

export async function startQuery(ctx: NodeContext, input: QueryInput): Promise<RoundResult> {
  const { store, transport } = ctx.options;
  const type = input.exchangeType ?? 'information_query';
  const messageType = input.messageType ?? 'agent-generated';
  const message = parseWith(ExchangeMessageSchema, input.message, 'message.').match(
    (m) => m,
    (e) => {
      throw e;
    },
  );
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
    accepts: identity.maxClassificationShared,
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
        { jws: signed.jws, message: sent },
        input.signal ? { signal: input.signal } : {},
      ),
    requestId,
  );
  return settleRound(ctx, peer, exchangeId, 1, result, requestId);
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
  const message = parseWith(ExchangeMessageSchema, input.message, 'message.').match(
    (m) => m,
    (e) => {
      throw e;
    },
  );
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
    accepts: admitted.identity.maxClassificationShared,
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
        { jws: signed.jws, message: sent },
        input.signal ? { signal: input.signal } : {},
      ),
    requestId,
  );
  return settleRound(ctx, peer, exchangeId, round, result, requestId);
}

/** Asks the responder for the reply of the current round (after its human decided). */
export async function collect(
  ctx: NodeContext,
  exchangeId: string,
  requestId = newId(),
): Promise<RoundResult> {
  const me = ctx.me();
  const current = await ownExchange(ctx, exchangeId);
  const round = current.currentRound;
  const reply = replyOf(current, round);
  if (current.outcome !== 'in_progress' || reply) {
    return {
      exchange: current,
      status: current.outcome === 'denied' ? 'declined' : 'answered',
      ...(reply
        ? {
            reply: {
              text: reply.text,
              items: reply.items,
              ...(reply.commitment ? { commitment: reply.commitment } : {}),
            },
          }
        : {}),
    };
  }
  const peer = await ctx.options.transport.peer(current.responderAgentId);
  if (!peer) throw errorOf('NOT_FOUND', `No agent ${current.responderAgentId} is known`);
  const content = { exchangeId, round };
  const signed = await ctx.sign({
    envelope: buildEnvelope({
      messageType: 'agent-generated',
      replyPolicy: 'no-reply-needed',
      exchangeId,
      currentRound: round,
      maxRounds: current.maxRounds,
      classificationLevel: 'public',
    }),
    kind: 'collect',
    final: false,
    accepts: 'public',
    exchangeType: current.exchangeType,
    conversationId: current.conversationId,
    from: me,
    to: { tenantId: peer.tenantId, agentId: peer.agentId },
    contextId: current.conversationId,
    digest: contentDigest(content),
  });
  const result = await ctx.options.transport.collect(peer, { jws: signed.jws, ...content });
  return settleRound(ctx, peer, exchangeId, round, result, requestId);
}

/** The initiator's human (or runtime) closes the exchange as resolved. */
export async function resolveExchange(
  ctx: NodeContext,
  exchangeId: string,
  requestId = newId(),
): Promise<Exchange> {
  await ownExchange(ctx, exchangeId);
  const x = await casUpdate(ctx.options.store, ctx.me().tenantId, exchangeId, (c) => {
    if (c.outcome !== 'in_progress')
      throw policyDenied(`the exchange is ${c.outcome}`, { outcome: c.outcome });
    return ended(c, 'resolved', ctx.nowIso());
  });
  await ctx.audit({
    side: 'initiator',
    event: 'resolved',
    requestId,
    result: 'allow',
    outcome: 'success',
    exchange: x,
  });
  return x;
}

async function ownExchange(ctx: NodeContext, exchangeId: string): Promise<Exchange> {
  const me = ctx.me();
  const x = await ctx.options.store.get(me.tenantId, exchangeId);
  if (!x || x.initiatorAgentId !== me.agentId) throw errorOf('NOT_FOUND', 'The exchange does not exist');
  if (isStale(x, ctx.clock.now().getTime(), ctx.ttlMs)) {
    const expired = await casUpdate(ctx.options.store, me.tenantId, exchangeId, (c) =>
      isStale(c, ctx.clock.now().getTime(), ctx.ttlMs)
        ? ended(c, 'expired', ctx.nowIso(), 'time to live passed')
        : c,
    );
    await ctx.audit({
      side: 'initiator',
      event: 'expired',
      requestId: newId(),
      result: 'deny',
      outcome: 'denied',
      exchange: expired,
    });
    throw policyDenied('the exchange has expired', { outcome: 'expired' });
  }
  return x;
}

async function deliverOrEscalate(
  ctx: NodeContext,
  _peer: PeerInfo,
  x: Exchange,
  send: () => Promise<DeliveryResult>,
  requestId: string,
): Promise<DeliveryResult> {
  try {
    return await send();
  } catch (cause) {
    const escalated = await casUpdate(ctx.options.store, x.tenantId, x.exchangeId, (c) =>
      c.outcome === 'in_progress' ? ended(c, 'escalated', ctx.nowIso(), 'delivery failed') : c,
    );
    await ctx.audit({
      side: 'initiator',
      event: 'escalated',
      requestId,
      result: 'allow',
      outcome: 'error',
      reason: 'delivery failed',
      exchange: escalated,
    });
    throw new GovernanceError(
      'service_unavailable',
      'The other agent could not be reached; the exchange was escalated',
      { cause },
    );
  }
}

/** Verifies and records what came back for `round`. */
async function settleRound(
  ctx: NodeContext,
  peer: PeerInfo,
  exchangeId: string,
  round: number,
  result: DeliveryResult,
  requestId: string,
): Promise<RoundResult> {
  const { store } = ctx.options;
  const me = ctx.me();
  if (result.status === 'pending') {
    const x = (await store.get(me.tenantId, exchangeId)) as Exchange;
    return { exchange: x, status: 'pending' };
  }
  if (result.status === 'refused') {
    const code = result.error.error;
    const error = new GovernanceError(code, result.error.message, { detail: result.error.detail });
    const outcome = code === 'EXCHANGE_ROUND_LIMIT' ? 'escalated' : 'denied';
    const x = await casUpdate(store, me.tenantId, exchangeId, (c) =>
      c.outcome === 'in_progress'
        ? ended(
            appended(c, { kind: 'refused', round, code, reason: result.error.message, at: ctx.nowIso() }),
            outcome,
            ctx.nowIso(),
            `refused by the responder: ${code}`,
          )
        : c,
    );
    await ctx.audit({
      side: 'initiator',
      event: 'refused',
      requestId,
      result: 'deny',
      outcome: 'denied',
      reason: result.error.message,
      exchange: x,
      extra: { code },
    });
    throw error;
  }
  const stored = (await store.get(me.tenantId, exchangeId)) as Exchange;
  const claims = await ctx.accept(result.reply.jws, result.reply.message, stored.conversationId);
  const e = claims.envelope;
  if (
    claims.kind !== 'reply' ||
    claims.from.tenantId !== peer.tenantId ||
    claims.from.agentId !== peer.agentId ||
    e.exchangeId !== exchangeId ||
    e.currentRound !== round ||
    e.maxRounds > stored.maxRounds
  ) {
    throw errorOf('invalid_token', 'Exchange envelope rejected: the reply does not belong to this round', {
      reason: 'reply_mismatch',
    });
  }
  const message = result.reply.message;
  if (message.commitment && (e.messageType === 'agent-generated' || !claims.approvalId)) {
    throw new CommitmentRequiresHumanError(stored.exchangeType);
  }
  const identity = await ctx.identity();
  const accepted = filterByClassification(message.items, identity.maxClassificationShared, describeItem);
  const received: ExchangeMessage = { ...message, items: accepted.kept };
  const now = ctx.nowIso();
  const x = await casUpdate(store, me.tenantId, exchangeId, (c) => {
    // The responder's own limit may be lower than ours (its policy): the lower one holds from now on.
    let next = e.maxRounds < c.maxRounds ? { ...c, maxRounds: e.maxRounds } : c;
    const existing = replyOf(c, round);
    if (!existing) {
      next = appended(
        withData(
          next,
          summarizeShared(accepted.kept),
          summarizeWithheld(accepted.withheld),
          highestLevel(accepted.kept),
        ),
        {
          kind: 'reply',
          round,
          from: 'responder',
          messageType: e.messageType,
          ...received,
          ...(claims.approvalId ? { approvalId: claims.approvalId } : {}),
          jti: claims.jti,
          jws: result.reply.jws,
          at: now,
        },
      );
    }
    if (next.outcome !== 'in_progress') return next;
    if (result.status === 'declined') return ended(next, 'denied', now, 'declined by a human');
    const queryClaims = c.transcript.find((t) => t.kind === 'message' && t.round === round);
    if (queryClaims && isFinal(queryClaims)) return ended(next, 'resolved', now);
    if (round >= next.maxRounds) return ended(next, 'escalated', now, 'round limit reached');
    return next;
  });
  const event =
    x.outcome === 'escalated' ? 'escalated' : x.outcome === 'resolved' ? 'resolved' : 'reply_received';
  await ctx.audit({
    side: 'initiator',
    event,
    requestId,
    result: 'allow',
    outcome: result.status === 'declined' ? 'denied' : 'success',
    exchange: x,
  });
  return { exchange: x, status: result.status, reply: received };
}

const isFinal = (entry: Record<string, unknown>): boolean => entry.final !== false;

export async function auditRefusal(
  ctx: NodeContext,
  error: unknown,
  exchange: Parameters<NodeContext['audit']>[0]['exchange'],
  requestId: string,
  side: 'initiator' | 'responder',
): Promise<void> {
  if (!isGovernanceError(error)) return;
  const code = error.code;
  await ctx.audit({
    side,
    event: code === 'CROSS_ENTERPRISE_BLOCKED' ? 'blocked' : 'refused',
    requestId,
    result: 'deny',
    outcome: code === 'POLICY_ENGINE_UNREACHABLE' ? 'error' : 'denied',
    reason: error.message,
    exchange,
    extra: {
      code,
      ...(isRecord(error.detail) && typeof error.detail.reason === 'string'
        ? { reason: error.detail.reason }
        : {}),
    },
    ...(code === 'CROSS_ENTERPRISE_BLOCKED' ? { policyApplied: 'interchange:cross-tenant' } : {}),
  });
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;
