/**
 * The initiator withdraws a round that waits for the responder's human (over A2A: `CancelTask` on
 * the task in TASK_STATE_INPUT_REQUIRED). The responder's record ends `denied` with the reason
 * `cancelled by <agent>` and a `cancelled` transcript entry (who, when, which round), so the
 * pending approval can no longer be decided nor turned into a reply; audited (`cancelled`). Only
 * the exchange's initiator agent may cancel, and only a round not answered yet; an exchange that
 * already ended is left as it is. `cancelOwn` is the initiator's side: it asks the transport to
 * cancel at the peer, then ends its own record the same way.
 */
import { type Exchange, errorOf, GovernanceError } from '@agentgov/core';
import { type NodeContext, policyDenied } from './context';
import { keyId } from './keys';
import { appended, casUpdate, ended, replyOf } from './record';
import { ownExchange } from './settle';

export interface CancelInput {
  exchangeId: string;
  /** The round the cancelled request is about. */
  round: number;
  /** The agent cancelling, as authenticated by the transport (never as the request says). */
  by: { tenantId: string; agentId: string };
  requestId: string;
}

export async function cancelWaiting(ctx: NodeContext, input: CancelInput): Promise<Exchange> {
  const me = ctx.me();
  const first = await ctx.options.store.get(me.tenantId, input.exchangeId);
  if (
    !first ||
    first.responderAgentId !== me.agentId ||
    first.initiatorAgentId !== input.by.agentId ||
    first.tenantId !== input.by.tenantId
  ) {
    throw errorOf('NOT_FOUND', 'The exchange does not exist');
  }
  let changed = false;
  const x = await casUpdate(ctx.options.store, me.tenantId, input.exchangeId, (c) => {
    changed = false;
    if (replyOf(c, input.round))
      throw policyDenied('the round was answered already', { reason: 'already_answered' });
    if (c.outcome !== 'in_progress') return c;
    changed = true;
    const at = ctx.nowIso();
    const by = keyId(input.by.tenantId, input.by.agentId);
    return ended(
      appended(c, { kind: 'cancelled', round: input.round, by, at }),
      'denied',
      at,
      `cancelled by ${by}`,
    );
  });
  if (changed) {
    await ctx.audit({
      side: 'responder',
      event: 'cancelled',
      requestId: input.requestId,
      result: 'deny',
      outcome: 'denied',
      reason: `cancelled by ${keyId(input.by.tenantId, input.by.agentId)}`,
      exchange: x,
    });
  }
  return x;
}

/** The initiator withdraws the round of its exchange that waits for the peer's human. */
export async function cancelOwn(ctx: NodeContext, exchangeId: string, requestId: string): Promise<Exchange> {
  const me = ctx.me();
  const current = await ownExchange(ctx, exchangeId);
  if (current.outcome !== 'in_progress') return current;
  const round = current.currentRound;
  if (replyOf(current, round))
    throw policyDenied('the round was answered already', { reason: 'already_answered' });
  const transport = ctx.options.transport;
  if (!transport.cancel)
    throw policyDenied('this transport cannot cancel a waiting round', { reason: 'cancel_not_supported' });
  const peer = await transport.peer(current.responderAgentId);
  if (!peer) throw errorOf('NOT_FOUND', `No agent ${current.responderAgentId} is known`);
  const r = await transport.cancel(peer, { exchangeId, round });
  if (r.status === 'refused')
    throw new GovernanceError(r.error.error, r.error.message, { detail: r.error.detail });
  const by = keyId(me.tenantId, me.agentId);
  let changed = false;
  const x = await casUpdate(ctx.options.store, me.tenantId, exchangeId, (c) => {
    changed = false;
    if (c.outcome !== 'in_progress' || replyOf(c, round)) return c;
    changed = true;
    const at = ctx.nowIso();
    return ended(appended(c, { kind: 'cancelled', round, by, at }), 'denied', at, `cancelled by ${by}`);
  });
  if (changed) {
    await ctx.audit({
      side: 'initiator',
      event: 'cancelled',
      requestId,
      result: 'deny',
      outcome: 'denied',
      reason: `cancelled by ${by}`,
      exchange: x,
    });
  }
  return x;
}
