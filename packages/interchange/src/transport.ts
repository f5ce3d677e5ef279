/**
 * The transport port: how a signed delivery reaches the other agent and how its answer comes
 * back. `InProcessNetwork` connects nodes in one process; `@agentgov/interchange/a2a` carries
 * the same deliveries over A2A. A transport authenticates the peer (e.g. a signed AgentCard), but
 * the domain never trusts it beyond that: every delivery is verified again by the node.
 */
import type { ClassificationLevel, ErrorBody, ExchangeType } from '@agentgov/core';
import type { EnvelopeClaims } from './envelope';
import type { ExchangeMessage } from './message';

/** What a peer publishes about itself (from a verified card, or the in-process registry). */
export interface PeerInfo {
  tenantId: string;
  agentId: string;
  userId: string;
  orgUnit: string;
  canReceiveQueries: boolean;
  supportedExchangeTypes: ExchangeType[];
  maxClassificationShared: ClassificationLevel;
  maxRoundsAccepted: number;
}

/** A signed envelope (compact JWS) and the content whose digest it carries. */
export interface Delivery {
  jws: string;
  message: ExchangeMessage;
  /**
   * What the sender signed, when it has it at hand (the node just signed the envelope): a
   * transport that needs the exchange or the context reads them here instead of decoding the JWS
   * again. Never trusted by the receiving node, which verifies the JWS itself.
   */
  claims?: Pick<EnvelopeClaims, 'contextId'> & { envelope: Pick<EnvelopeClaims['envelope'], 'exchangeId'> };
}

export type DeliveryResult =
  /** The responder answered (a signed reply). */
  | { status: 'answered'; reply: Delivery }
  /** A human declined (a signed reply saying so). */
  | { status: 'declined'; reply: Delivery }
  /** A human must decide first (commitments, meetings, or no automatic reply allowed). */
  | { status: 'pending'; reason: string }
  /** The responder refused, with the spec's error body. */
  | { status: 'refused'; error: ErrorBody };

/** A signed request for the reply of a pending round (content: `{exchangeId, round}`). */
export interface CollectRequest {
  jws: string;
  exchangeId: string;
  round: number;
}

export interface Transport {
  /** The peer's published identity, or undefined when the agent is unknown. */
  peer(agentId: string, options?: { signal?: AbortSignal }): Promise<PeerInfo | undefined>;
  deliver(peer: PeerInfo, delivery: Delivery, options?: { signal?: AbortSignal }): Promise<DeliveryResult>;
  collect(
    peer: PeerInfo,
    request: CollectRequest,
    options?: { signal?: AbortSignal },
  ): Promise<DeliveryResult>;
  /**
   * Optional: withdraws the round that waits for the peer's human (over A2A: CancelTask on the
   * waiting task, authenticated by a caller token). Transports without it cannot cancel.
   */
  cancel?(
    peer: PeerInfo,
    request: { exchangeId: string; round: number },
    options?: { signal?: AbortSignal },
  ): Promise<{ status: 'cancelled' } | { status: 'refused'; error: ErrorBody }>;
}

/** What a transport hands to the receiving node. */
export interface Receiver {
  peerInfo(): Promise<PeerInfo>;
  receive(delivery: Delivery, options?: { contextId?: string; requestId?: string }): Promise<DeliveryResult>;
  serveCollect(request: CollectRequest, options?: { requestId?: string }): Promise<DeliveryResult>;
}

/** Nodes of one process, by agent id (several tenants may share it: the nodes still refuse). */
export class InProcessNetwork implements Transport {
  readonly #nodes = new Map<string, Receiver>();
  register(agentId: string, node: Receiver): void {
    this.#nodes.set(agentId, node);
  }
  async peer(agentId: string): Promise<PeerInfo | undefined> {
    return this.#nodes.get(agentId)?.peerInfo();
  }
  async deliver(peer: PeerInfo, delivery: Delivery): Promise<DeliveryResult> {
    const node = this.#nodes.get(peer.agentId);
    if (!node) throw new Error(`no agent ${peer.agentId} on this network`);
    // A structured copy of what goes on the wire (the envelope and the content; the sender's own
    // claims stay with it): the receiver must never share objects with the sender.
    return node.receive(structuredClone({ jws: delivery.jws, message: delivery.message }));
  }
  async collect(peer: PeerInfo, request: CollectRequest): Promise<DeliveryResult> {
    const node = this.#nodes.get(peer.agentId);
    if (!node) throw new Error(`no agent ${peer.agentId} on this network`);
    return node.serveCollect(structuredClone(request));
  }
}
