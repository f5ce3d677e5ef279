/**
 * `A2ATransport`: the interchange Transport over A2A JSON-RPC. Before anything is sent, the peer's
 * AgentCard is fetched and verified (one signature, by the key of the agent expected, governance
 * extension required); every call activates the extension and carries a fresh caller token. A
 * round answered at once comes back as a Message; one that waits for a human as a task in
 * TASK_STATE_INPUT_REQUIRED, which `collect` continues with a signed collect request.
 */

import { type Clock, type ErrorBody, errorOf, type Logger, newId, systemClock } from '@agentgov/core';
import type { KeyResolver, SigningKey } from '../keys';
import type { ExchangeMessage } from '../message';
import type { CollectRequest, Delivery, DeliveryResult, PeerInfo, Transport } from '../transport';
import { callerToken } from './caller';
import { verifyGovernedCard } from './card';
import { A2AHttpClient } from './http-client';
import { fromWireMessage, GOVERNANCE_EXTENSION_URI, toWireMessage } from './wire';

export interface A2ATransportOptions {
  /** This agent's key: signs the caller tokens. */
  signingKey: SigningKey;
  /** Public keys: verify the peers' AgentCards. */
  keys: KeyResolver;
  /** Base URL of an agent (where `/.well-known/agent-card.json` is served). */
  resolve: (agentId: string) => string | undefined | Promise<string | undefined>;
  /**
   * Makes every HTTP call when given (tests inject faults this way); by default the transport keeps
   * its own keep-alive connections (`undici`; `close()` closes them).
   */
  fetch?: typeof fetch;
  clock?: Clock;
  /** Per-call timeout, ms (default 10 000). */
  timeoutMs?: number;
  /** How long a verified card is trusted before it is fetched and verified again, ms (default 60 000). */
  cardTtlMs?: number;
  /** Gets what the A2A SDK writes to `console` while a card is verified (debug level; default: nowhere). */
  logger?: Logger;
}

interface Known {
  peer: PeerInfo;
  rpcUrl: string;
  verifiedAt: number;
}

export class A2ATransport implements Transport {
  readonly #o: A2ATransportOptions;
  readonly #peers = new Map<string, Known>();
  /** exchangeId → the task that waits for a human at the peer. */
  readonly #tasks = new Map<string, { taskId: string; contextId: string }>();
  readonly #http: A2AHttpClient;
  constructor(options: A2ATransportOptions) {
    this.#o = options;
    this.#http = new A2AHttpClient({ fetch: options.fetch, timeoutMs: options.timeoutMs });
  }

  async peer(agentId: string, options: { signal?: AbortSignal } = {}): Promise<PeerInfo | undefined> {
    const base = await this.#o.resolve(agentId);
    if (!base) return undefined;
    const nowMs = (this.#o.clock ?? systemClock).now().getTime();
    const cached = this.#peers.get(agentId);
    if (cached && nowMs - cached.verifiedAt < (this.#o.cardTtlMs ?? 60_000)) return cached.peer;
    const json = await this.#http.call(
      new URL('.well-known/agent-card.json', base.endsWith('/') ? base : `${base}/`),
      { signal: options.signal },
      async (res) => {
        if (!res.ok)
          throw errorOf(
            'service_unavailable',
            `The agent card of ${agentId} could not be read (HTTP ${res.status})`,
          );
        return res.json();
      },
    );
    // Verified before anything is sent: a card that does not verify is an agent we cannot reach.
    const verified = await verifyGovernedCard(
      json,
      agentId,
      this.#o.keys,
      this.#o.logger ? { logger: this.#o.logger } : {},
    );
    if (verified.isErr())
      throw errorOf(
        'service_unavailable',
        `The agent card of ${agentId} does not verify: ${verified.error.message}`,
        {
          reason: verified.error.reason,
        },
      );
    const { card, peer } = verified.value;
    const rpcUrl = card.supportedInterfaces.find((i) => i.protocolBinding === 'JSONRPC')?.url;
    if (!rpcUrl)
      throw errorOf('service_unavailable', `The agent card of ${agentId} offers no JSON-RPC interface`);
    this.#peers.set(agentId, { peer, rpcUrl, verifiedAt: nowMs });
    return peer;
  }

  async deliver(
    peer: PeerInfo,
    delivery: Delivery,
    options: { signal?: AbortSignal } = {},
  ): Promise<DeliveryResult> {
    // The claims the node signed, else (another sender) the JWS's own, decoded.
    const claims = delivery.claims
      ? { contextId: delivery.claims.contextId, exchangeId: delivery.claims.envelope.exchangeId }
      : decode(delivery.jws);
    const message = toWireMessage({
      messageId: newId(),
      contextId: claims.contextId,
      role: 'ROLE_USER',
      content: delivery.message,
      metadata: { envelope: delivery.jws, kind: 'query' },
    });
    return this.#send(peer, message, claims.exchangeId, options.signal);
  }

  async collect(
    peer: PeerInfo,
    request: CollectRequest,
    options: { signal?: AbortSignal } = {},
  ): Promise<DeliveryResult> {
    const task = this.#tasks.get(request.exchangeId);
    if (!task)
      return { status: 'refused', error: { error: 'NOT_FOUND', message: 'No task waits for this exchange' } };
    const message = toWireMessage({
      messageId: newId(),
      contextId: task.contextId,
      taskId: task.taskId,
      role: 'ROLE_USER',
      content: { exchangeId: request.exchangeId, round: request.round },
      metadata: {
        envelope: request.jws,
        kind: 'collect',
        exchangeId: request.exchangeId,
        round: request.round,
      },
    });
    return this.#send(peer, message, request.exchangeId, options.signal);
  }

  /** CancelTask on the task that waits for the peer's human for this exchange. */
  async cancel(
    peer: PeerInfo,
    request: { exchangeId: string; round: number },
    options: { signal?: AbortSignal } = {},
  ): Promise<{ status: 'cancelled' } | { status: 'refused'; error: ErrorBody }> {
    const task = this.#tasks.get(request.exchangeId);
    if (!task)
      return { status: 'refused', error: { error: 'NOT_FOUND', message: 'No task waits for this exchange' } };
    const known =
      this.#peers.get(peer.agentId) ??
      (await this.peer(peer.agentId).then(() => this.#peers.get(peer.agentId)));
    if (!known) throw errorOf('NOT_FOUND', `No agent ${peer.agentId} is known`);
    const body = await this.#rpc(known, 'CancelTask', { id: task.taskId }, options.signal);
    if (body.error) {
      if (body.error.code === -32002)
        return {
          status: 'refused',
          error: {
            error: 'policy_denied',
            message: 'Policy denies the exchange: the round was answered already',
            detail: { reason: 'already_answered' },
          },
        };
      return refusal(body.error);
    }
    this.#tasks.delete(request.exchangeId);
    return { status: 'cancelled' };
  }

  async #send(
    peer: PeerInfo,
    message: Record<string, unknown>,
    exchangeId: string,
    signal: AbortSignal | undefined,
  ): Promise<DeliveryResult> {
    const known =
      this.#peers.get(peer.agentId) ??
      (await this.peer(peer.agentId).then(() => this.#peers.get(peer.agentId)));
    if (!known) throw errorOf('NOT_FOUND', `No agent ${peer.agentId} is known`);
    const body = await this.#rpc(known, 'SendMessage', { message }, signal);
    if (body.error) return refusal(body.error);
    const result = body.result as {
      message?: unknown;
      task?: { id: string; contextId: string; status?: { state?: string; message?: unknown } };
    };
    if (result.message) return answered(result.message, 'answered');
    const task = result.task;
    if (!task) throw errorOf('service_unavailable', 'The agent answered neither a message nor a task');
    const state = task.status?.state;
    if (state === 'TASK_STATE_INPUT_REQUIRED' || state === 'TASK_STATE_AUTH_REQUIRED') {
      this.#tasks.set(exchangeId, { taskId: task.id, contextId: task.contextId });
      return { status: 'pending', reason: 'waiting for a human' };
    }
    this.#tasks.delete(exchangeId);
    if (state === 'TASK_STATE_COMPLETED') return answered(task.status?.message, 'answered');
    if (state === 'TASK_STATE_REJECTED') return answered(task.status?.message, 'declined');
    throw errorOf('service_unavailable', `The agent's task ended as ${state ?? 'unknown'}`);
  }

  /** A JSON-RPC call with the extension activated and a fresh caller token. */
  async #rpc(
    known: Known,
    method: string,
    params: unknown,
    signal: AbortSignal | undefined,
  ): Promise<{
    result?: unknown;
    error?: { code: number; message: string; data?: { reason?: string; error?: ErrorBody } };
  }> {
    const clock = this.#o.clock ?? systemClock;
    // SendMessage is authenticated by its signed envelope (signer = caller, audience, context,
    // round, content digest, jti, expiry): a caller token would add a signature and a verification
    // that prove nothing more. The read methods carry one.
    const token =
      method === 'SendMessage'
        ? undefined
        : await callerToken(
            this.#o.signingKey,
            { tenantId: known.peer.tenantId, agentId: known.peer.agentId },
            method,
            clock.now().getTime(),
          );
    const { status, text } = await this.#http.call(
      known.rpcUrl,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          'a2a-extensions': GOVERNANCE_EXTENSION_URI,
          'a2a-version': '1.0',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: newId(), method, params }),
        signal,
      },
      async (res) => ({ status: res.status, text: await res.text() }),
    );
    try {
      return JSON.parse(text);
    } catch {
      throw errorOf('service_unavailable', `The agent answered HTTP ${status} without JSON-RPC`);
    }
  }

  /** Closes the transport's keep-alive connections (idle ones never keep the process alive). */
  async close(): Promise<void> {
    await this.#http.close();
  }
}

function decode(jws: string): { contextId: string; exchangeId: string } {
  const p = JSON.parse(Buffer.from(jws.split('.')[1] ?? '', 'base64url').toString('utf8')) as {
    contextId: string;
    envelope: { exchangeId: string };
  };
  return { contextId: p.contextId, exchangeId: p.envelope.exchangeId };
}

function answered(wire: unknown, status: 'answered' | 'declined'): DeliveryResult {
  const m = fromWireMessage(wire);
  if (m?.metadata.kind !== 'reply') {
    return {
      status: 'refused',
      error: {
        error: 'invalid_token',
        message: 'The reply carries no signed envelope',
        detail: { reason: 'envelope_missing' },
      },
    };
  }
  return { status, reply: { jws: m.metadata.envelope, message: m.content as ExchangeMessage } };
}

function refusal(error: { code: number; message: string; data?: { reason?: string; error?: ErrorBody } }): {
  status: 'refused';
  error: ErrorBody;
} {
  if (error.data?.error) return { status: 'refused', error: error.data.error };
  return {
    status: 'refused',
    error: {
      error: 'policy_denied',
      message: `The agent refused: ${error.message}`,
      detail: { reason: error.data?.reason ?? 'refused', rpcCode: error.code },
    },
  };
}
