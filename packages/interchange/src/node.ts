/**
 * `InterchangeNode`: one agent's side of the interchange protocol — it initiates exchanges
 * (query, follow-up, collect, resolve), receives them (re-enforcing every rule), lets its human
 * approve or reject what waits, and expires stale exchanges. Public methods return neverthrow
 * Results with typed GovernanceErrors; nothing is thrown past this boundary.
 */
import {
  type Exchange,
  err,
  type GovernanceError,
  guardResult,
  ok,
  type Result,
  systemClock,
  toGovernanceError,
} from '@agentgov/core';
import { type CancelInput, cancelOwn, cancelWaiting } from './cancel';
import { createNodeContext, type NodeContext, type NodeOptions } from './context';
import { type HumanDecisionInput, recordHumanDecision } from './desk';
import { followUp, type QueryInput, type RoundResult, startQuery } from './initiator';
import { InMemoryReplayGuard } from './keys';
import { casUpdate, ended, isStale } from './record';
import { materialize, type RecordUnverified, serveCollect } from './reply';
import { type ReceiveOptions, receiveDelivery } from './responder';
import { collect, resolveExchange } from './settle';
import type { CollectRequest, Delivery, DeliveryResult, PeerInfo, Receiver } from './transport';

/** What `guardResult(async () => ok(await work))` gives — the value, or what it threw as a GovernanceError — without its two async frames. */
const outcome = <T>(work: Promise<T>): Promise<Result<T, GovernanceError>> =>
  work.then(
    (value) => ok(value),
    (error: unknown) => err(toGovernanceError(error)),
  );

export class InterchangeNode implements Receiver {
  readonly #ctx: NodeContext;
  constructor(options: NodeOptions) {
    this.#ctx = createNodeContext(
      options,
      options.clock ?? systemClock,
      options.replay ?? new InMemoryReplayGuard(),
    );
  }

  get agentId(): string {
    return this.#ctx.me().agentId;
  }
  get tenantId(): string {
    return this.#ctx.me().tenantId;
  }

  /** The identity this agent publishes to others (derived now: configuration narrowed by policy). */
  async peerInfo(): Promise<PeerInfo> {
    const id = await this.#ctx.identity();
    return {
      tenantId: id.tenantId,
      agentId: this.agentId,
      userId: id.userId,
      orgUnit: id.orgUnit,
      canReceiveQueries: id.canReceiveQueries,
      supportedExchangeTypes: id.supportedExchangeTypes,
      maxClassificationShared: id.maxClassificationShared,
      maxRoundsAccepted: id.maxRoundsAccepted,
    };
  }

  /** This agent's record of an exchange (its store, its tenant), or undefined. */
  async exchange(exchangeId: string): Promise<Exchange | undefined> {
    return this.#ctx.options.store.get(this.tenantId, exchangeId);
  }

  /** Starts an exchange (round 1): information query by default. */
  query(input: QueryInput): Promise<Result<RoundResult, GovernanceError>> {
    return outcome(startQuery(this.#ctx, input));
  }

  /** The next round of an open exchange; EXCHANGE_ROUND_LIMIT (and escalation) past its limit. */
  followUp(
    exchangeId: string,
    input: Omit<QueryInput, 'to' | 'exchangeType' | 'conversationId'>,
  ): Promise<Result<RoundResult, GovernanceError>> {
    return outcome(followUp(this.#ctx, exchangeId, input));
  }

  /** Asks the responder for the reply of a round that waited for its human. */
  collect(exchangeId: string): Promise<Result<RoundResult, GovernanceError>> {
    return guardResult(async () => ok(await collect(this.#ctx, exchangeId)));
  }

  /**
   * Withdraws the round of an exchange this agent started that waits for the other human (the
   * transport cancels at the peer — over A2A, CancelTask — then this record ends `denied`,
   * `cancelled by …`). `policy_denied` once the round was answered or when the transport cannot
   * cancel (`cancel_not_supported`: the in-process network).
   */
  cancel(exchangeId: string): Promise<Result<Exchange, GovernanceError>> {
    return guardResult(async () => ok(await cancelOwn(this.#ctx, exchangeId, exchangeId)));
  }

  /** Closes an exchange this agent started as resolved. */
  resolve(exchangeId: string): Promise<Result<Exchange, GovernanceError>> {
    return guardResult(async () => ok(await resolveExchange(this.#ctx, exchangeId)));
  }

  /** Transport entry: a delivery from another agent. Refusals are results, not throws. */
  receive(delivery: Delivery, options: ReceiveOptions = {}): Promise<DeliveryResult> {
    return receiveDelivery(this.#ctx, delivery, options);
  }

  /** Transport entry: the initiator asks for the reply of a pending round. */
  serveCollect(
    request: CollectRequest,
    options: { requestId?: string; recordUnverified?: RecordUnverified } = {},
  ): Promise<DeliveryResult> {
    return serveCollect(this.#ctx, request, options);
  }

  /**
   * This agent's human approves or rejects the request that waits (who and when are recorded);
   * the signed reply is made at once and returned, and served to the initiator when it collects.
   * (A human's approval — not a policy decision, which is `DecisionEngine.decide`.)
   */
  resolveApproval(
    input: Omit<HumanDecisionInput, 'tenantId'>,
  ): Promise<Result<DeliveryResult, GovernanceError>> {
    return guardResult(async () => {
      const { store, audit } = this.#ctx.options;
      const x = await recordHumanDecision(
        { store, audit, clock: this.#ctx.clock },
        { ...input, tenantId: this.tenantId },
      );
      return ok(await materialize(this.#ctx, x, x.currentRound, input.requestId ?? x.exchangeId));
    });
  }

  /**
   * @deprecated Renamed `resolveApproval` (a human's approval, not `DecisionEngine.decide`'s policy
   * decision); this alias goes in the next minor release.
   */
  decide(input: Omit<HumanDecisionInput, 'tenantId'>): Promise<Result<DeliveryResult, GovernanceError>> {
    return this.resolveApproval(input);
  }

  /**
   * Transport entry: the initiator agent (`by`, as the transport authenticated it) withdraws the
   * round that waits for this agent's human; the exchange ends `denied` (`cancelled by …`) and the
   * pending approval becomes unusable. `policy_denied` (`already_answered`) once the round was
   * answered; NOT_FOUND for an exchange `by` did not start with this agent.
   */
  cancelWaiting(
    input: Omit<CancelInput, 'requestId'> & { requestId?: string },
  ): Promise<Result<Exchange, GovernanceError>> {
    return guardResult(async () =>
      ok(await cancelWaiting(this.#ctx, { ...input, requestId: input.requestId ?? input.exchangeId })),
    );
  }

  /** Marks this agent's exchanges that outlived the TTL as expired; returns them. */
  expireStale(): Promise<Result<Exchange[], GovernanceError>> {
    return guardResult(async () => {
      const ctx = this.#ctx;
      const { store } = ctx.options;
      const out: Exchange[] = [];
      const nowMs = ctx.clock.now().getTime();
      for (let offset = 0; ; ) {
        const page = await store.list(this.tenantId, { outcome: 'in_progress' }, { offset, limit: 100 });
        for (const x of page.exchanges) {
          if (x.initiatorAgentId !== this.agentId && x.responderAgentId !== this.agentId) continue;
          if (!isStale(x, nowMs, ctx.ttlMs)) continue;
          const y = await casUpdate(store, this.tenantId, x.exchangeId, (c) =>
            isStale(c, nowMs, ctx.ttlMs) ? ended(c, 'expired', ctx.nowIso(), 'time to live passed') : c,
          );
          if (y.outcome !== 'expired') continue;
          out.push(y);
          await ctx.audit({
            side: y.initiatorAgentId === this.agentId ? 'initiator' : 'responder',
            event: 'expired',
            requestId: y.exchangeId,
            result: 'deny',
            outcome: 'denied',
            exchange: y,
          });
        }
        if (page.exchanges.length < 100) break;
        // Expired ones left the in_progress list: the next page starts after the ones that stayed.
        offset +=
          page.exchanges.length -
          page.exchanges.filter((x) => out.some((o) => o.exchangeId === x.exchangeId)).length;
      }
      return ok(out);
    });
  }
}
