/**
 * The initiator after sending: collecting a pending reply, resolving, expiring on access, and
 * settling what came back — a reply is verified like any delivery (signer, audience, exchange,
 * round; a lower limit from the responder is adopted, a higher one refused), filtered by this
 * agent's ceiling, then recorded; a refusal ends the exchange (escalated at the round limit).
 */
import {
  type ClassificationLevel,
  ClassificationLevelSchema,
  CommitmentRequiresHumanError,
  type Exchange,
  errorOf,
  GovernanceError,
  isGovernanceError,
  minClassification,
  newId,
} from '@agentgov/core';
import { type NodeContext, policyDenied } from './context';
import { buildEnvelope, contentDigest } from './envelope';
import { filterByClassification, highestLevel, summarizeShared, summarizeWithheld } from './filter';
import type { RoundResult } from './initiator';
import type { ExchangeMessage } from './message';
import { appended, casUpdate, ended, entries, isStale, replyOf, withData } from './record';
import type { DeliveryResult, PeerInfo } from './transport';

const describeItem = (i: { source: string; field: string }) => `${i.source}.${i.field}`;

/**
 * The `accepts` claim of the envelope this side sent for `round` (read back from its own JWS in
 * the record); `restricted` — no limit of its own — when there is none to read.
 */
function sentAccepts(x: Exchange, round: number): ClassificationLevel {
  for (const t of entries(x)) {
    if (t.kind !== 'message' || t.from !== 'initiator' || t.round !== round) continue;
    try {
      const claims = JSON.parse(Buffer.from(t.jws.split('.')[1] ?? '', 'base64url').toString('utf8'));
      const level = ClassificationLevelSchema.safeParse(claims?.accepts);
      if (level.success) return level.data;
    } catch {
      // not readable: no limit of its own
    }
  }
  return 'restricted';
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

export async function ownExchange(ctx: NodeContext, exchangeId: string): Promise<Exchange> {
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

export async function deliverOrEscalate(
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

/**
 * Verifies and records what came back for `round`. `sent`: the record as this call's round wrote
 * it just before sending — taken as the first snapshot instead of reading it again (its
 * conversation and round limit are what the reply is checked against; the compare-and-set refuses
 * it if the record changed meanwhile, and the change is then decided again on a fresh read).
 */
export async function settleRound(
  ctx: NodeContext,
  peer: PeerInfo,
  exchangeId: string,
  round: number,
  result: DeliveryResult,
  requestId: string,
  sent?: Exchange,
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
  const stored = sent ?? ((await store.get(me.tenantId, exchangeId)) as Exchange);
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
    throw replyMismatch();
  }
  const message = result.reply.message;
  if (message.commitment && (e.messageType === 'agent-generated' || !claims.approvalId)) {
    throw new CommitmentRequiresHumanError(stored.exchangeType);
  }
  const identity = await ctx.identity();
  // Held to what this side accepted for the round (`accepts` of its own envelope: the decided
  // ceiling), also when the responder did not hold its answer to it.
  const ceiling = minClassification(identity.maxClassificationShared, sentAccepts(stored, round));
  const accepted = filterByClassification(message.items, ceiling, describeItem);
  const received: ExchangeMessage = { ...message, items: accepted.kept };
  const now = ctx.nowIso();
  const x = await casUpdate(
    store,
    me.tenantId,
    exchangeId,
    (c) => {
      // Against the record as it is now (the snapshot's limit may since have been lowered).
      if (e.maxRounds > c.maxRounds) throw replyMismatch();
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
    },
    stored,
  );
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

const replyMismatch = () =>
  errorOf('invalid_token', 'Exchange envelope rejected: the reply does not belong to this round', {
    reason: 'reply_mismatch',
  });

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
