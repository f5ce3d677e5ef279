/**
 * Hands a SendMessage that passed the A2A gate (`./server`) to the interchange node — a query
 * starts a round (`node.receive`), a collect asks for the answer of the round its task is bound to
 * (`node.serveCollect`, only on the caller's own task, exchange and round) — and rebuilds the
 * message the SDK is given from what the node accepted, never from the raw inbound parts: the
 * task it continues is the one checked, its history the content after the node's own
 * classification filter. The node's verdict (`GovernedOutcome`) is what the executor answers with.
 */
import { newId } from '@agentgov/core';
import type { InterchangeNode } from '../node';
import type { MessageEntry } from '../record';
import type { RecordUnverified } from '../reply';
import type { DeliveryResult } from '../transport';
import type { GovernedOutcome, TaskBinding } from './executor';
import {
  GOVERNANCE_ERRORS as E,
  EXCHANGE_MEDIA_TYPE,
  GOVERNANCE_EXTENSION_URI,
  type JsonRpcError,
  rpcError,
  type WireMessage,
} from './wire';

/** Refused by the node or by the task binding (a JSON-RPC error, HTTP 200), or delivered. */
export type Delivery =
  | { status: 'refused'; error: JsonRpcError }
  | { status: 'delivered'; outcome: GovernedOutcome; params: Record<string, unknown> };

const refused = (error: JsonRpcError): Delivery => ({ status: 'refused', error });

/** The SendMessage configuration the SDK is given: its documented fields, nothing else. */
function sendConfiguration(raw: unknown): Record<string, unknown> | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  const c = raw as { acceptedOutputModes?: unknown; historyLength?: unknown; returnImmediately?: unknown };
  return {
    ...(Array.isArray(c.acceptedOutputModes) && c.acceptedOutputModes.every((m) => typeof m === 'string')
      ? { acceptedOutputModes: c.acceptedOutputModes }
      : {}),
    ...(Number.isSafeInteger(c.historyLength) ? { historyLength: c.historyLength } : {}),
    ...(typeof c.returnImmediately === 'boolean' ? { returnImmediately: c.returnImmediately } : {}),
  };
}

/**
 * Delivers a gated SendMessage (`wire`, sent by `owner`) to the node; on success, the node's
 * outcome and the params the SDK is given (the rebuilt message and its configuration).
 */
export async function deliverSendMessage(input: {
  node: InterchangeNode;
  tasks: ReadonlyMap<string, TaskBinding>;
  wire: WireMessage;
  owner: string;
  /** The request's `params.configuration`, as sent. */
  rawConfiguration: unknown;
  /** The server's flood guard for envelopes that do not verify (see `RecordUnverified`). */
  recordUnverified: RecordUnverified;
}): Promise<Delivery> {
  const { node, tasks, wire, owner, rawConfiguration, recordUnverified } = input;
  const requestId = newId();
  let result: DeliveryResult;
  // The query's exchange, round and jti, as the node verified them.
  let verified: { exchangeId: string; round: number; jti: string } | undefined;
  if (wire.metadata.kind === 'query') {
    if (wire.taskId) return refused(rpcError(E.refused, 'A new round starts a new task', 'task_not_allowed'));
    result = await node.receive(
      { jws: wire.metadata.envelope, message: wire.content as never },
      {
        contextId: wire.contextId,
        requestId,
        recordUnverified,
        onVerified: (claims) => {
          verified = {
            exchangeId: claims.envelope.exchangeId,
            round: claims.envelope.currentRound,
            jti: claims.jti,
          };
        },
      },
    );
  } else if (wire.metadata.kind === 'collect') {
    const bound = tasks.get(wire.taskId);
    const content = wire.content as { exchangeId?: unknown; round?: unknown };
    if (
      !bound ||
      bound.owner !== owner ||
      bound.exchangeId !== content.exchangeId ||
      bound.round !== content.round
    ) {
      return refused(rpcError(E.refused, 'The request does not belong to this task', 'task_mismatch'));
    }
    result = await node.serveCollect(
      {
        jws: wire.metadata.envelope,
        exchangeId: String(content.exchangeId),
        round: Number(content.round),
      },
      { requestId, recordUnverified },
    );
  } else {
    return refused(rpcError(E.refused, 'A reply cannot be sent as a request', 'wrong_kind'));
  }
  if (result.status === 'refused') {
    const detail = result.error.detail as { reason?: string } | undefined;
    return refused(
      rpcError(E.refused, result.error.message, detail?.reason ?? result.error.error, {
        error: result.error,
      }),
    );
  }
  // The envelope verified (the node accepted it): its exchange and round, for the executor.
  const about = wire.metadata.kind === 'query' ? verified : (tasks.get(wire.taskId) as TaskBinding);
  const exchangeId = about?.exchangeId ?? '';
  const round = about?.round ?? 0;
  const outcome: GovernedOutcome = { result, owner, exchangeId, round };
  // The SDK gets the message the gate checked, rebuilt: the task it continues is the one
  // checked above, and what it keeps as task history is what the node accepted (the content
  // after the node's own classification filter), never the raw inbound parts.
  // (A query answered at once makes no task: nothing is kept, the record need not be read.)
  const accepted =
    wire.metadata.kind === 'collect'
      ? { exchangeId, round }
      : result.status === 'answered'
        ? { text: '', items: [] }
        : await acceptedContent(node, exchangeId, (about as { jti?: string } | undefined)?.jti ?? '');
  const configuration = sendConfiguration(rawConfiguration);
  const params = {
    message: {
      messageId: wire.messageId,
      contextId: wire.contextId,
      ...(wire.taskId ? { taskId: wire.taskId } : {}),
      role: 'ROLE_USER',
      parts: [{ data: accepted, mediaType: EXCHANGE_MEDIA_TYPE }],
      metadata: { [GOVERNANCE_EXTENSION_URI]: { kind: wire.metadata.kind, exchangeId, round } },
      extensions: [GOVERNANCE_EXTENSION_URI],
    },
    ...(configuration ? { configuration } : {}),
  };
  return { status: 'delivered', outcome, params };
}

/** What the node accepted of a query (its transcript entry: text, the items kept, commitment). */
async function acceptedContent(
  node: InterchangeNode,
  exchangeId: string,
  jti: string,
): Promise<Record<string, unknown>> {
  const x = exchangeId ? await node.exchange(exchangeId) : undefined;
  const entry = (x?.transcript as unknown as MessageEntry[] | undefined)?.find(
    (e) => e.kind === 'message' && e.from === 'initiator' && e.jti === jti,
  );
  if (!entry) return { text: '', items: [] };
  return {
    text: entry.text,
    items: entry.items,
    ...(entry.commitment ? { commitment: entry.commitment } : {}),
  };
}
