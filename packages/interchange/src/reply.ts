/**
 * The responder's replies: signed, recorded once (a second call serves the recorded one), and —
 * for a round that waited for a human — made when the initiator collects after the human decided:
 * bound to that request's approval id, round and action, and only before it expires.
 */
import { type Exchange, GovernanceError, isGovernanceError, minClassification, newId } from '@agentgov/core';
import { automaticAnswer } from './automatic-answer';
import { type NodeContext, policyDenied } from './context';
import { buildEnvelope, contentDigest, type EnvelopeClaims } from './envelope';
import { filterByClassification, highestLevel, summarizeShared, summarizeWithheld } from './filter';
import type { ExchangeMessage } from './message';
import {
  appended,
  casUpdate,
  ended,
  entries,
  type MessageEntry,
  pendingApproval,
  replyOf,
  withData,
} from './record';
import { auditRefusal } from './settle';
import type { CollectRequest, DeliveryResult } from './transport';

export const describeItem = (i: { source: string; field: string }) => `${i.source}.${i.field}`;

export const refused = (error: GovernanceError): DeliveryResult => ({
  status: 'refused',
  error: error.toBody(),
});

const unverified = (me: { agentId: string }) => ({
  exchangeId: '(unverified)',
  exchangeType: 'information_query' as const,
  initiatorAgentId: '(unverified)',
  responderAgentId: me.agentId,
  currentRound: 0,
  maxRounds: 0,
  classificationLevel: 'public' as const,
});

/**
 * Whether to record the refusal of an envelope that did not verify (a bad signature, an unknown
 * signer, a replay …): the transport's flood guard (the A2A server's per-address limit). `false`:
 * the delivery is refused with `rate_limit_exceeded`, unrecorded — it did nothing, and whoever
 * cannot sign must not be able to write to the tenant's audit log at will.
 */
export type RecordUnverified = () => Promise<boolean>;

/** The refusal of an envelope that did not verify: recorded (unless `record` says no) and returned. */
export async function refuseUnverified(
  ctx: NodeContext,
  error: GovernanceError,
  requestId: string,
  record: RecordUnverified | undefined,
): Promise<DeliveryResult> {
  if (record && !(await record()))
    return refused(
      new GovernanceError('rate_limit_exceeded', 'Too many deliveries that do not verify; retry later', {
        detail: { reason: 'unverified_rate' },
      }),
    );
  await auditRefusal(ctx, error, unverified(ctx.me()), requestId, 'responder');
  return refused(error);
}

/** Signs, records and returns the reply of `round` (once: a second call returns the recorded one). */
export async function sendReply(
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
  const y = await casUpdate(
    ctx.options.store,
    x.tenantId,
    x.exchangeId,
    (c) => {
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
    },
    x,
  );
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
  opts: { requestId?: string; recordUnverified?: RecordUnverified } = {},
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
    return refuseUnverified(ctx, error, requestId, opts.recordUnverified);
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
  // Only a rejection is still answered (declined) once the exchange ended; an approval of an
  // exchange that was cancelled or expired meanwhile is never turned into a reply.
  if (
    !open ||
    open.request.round !== round ||
    (x.outcome !== 'in_progress' && open.decision?.decision !== 'rejected')
  )
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
    const got = await automaticAnswer(ctx.options, ctx.options.answer, {
      exchangeId: x.exchangeId,
      round,
      exchangeType: x.exchangeType,
      from: {
        agentId: x.initiatorAgentId,
        userId: x.initiatorUserId,
        orgUnit: request.initiatorOrgUnit,
        ...(request.initiatorTeam ? { team: request.initiatorTeam } : {}),
      },
      text: asked.text,
      items: asked.items,
      ceiling: request.ceiling,
    });
    // Approved, but the answer failed: nothing is sent and nothing used up; the next ask tries again.
    if ('failed' in got) return { status: 'pending', reason: `approved; ${got.failed}, try again` };
    answer = { ...got.answer };
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
