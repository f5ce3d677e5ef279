/**
 * How the interchange protocol rides on A2A: the governance extension (URI, AgentCard entry), the
 * signed envelope under `metadata["<extension URI>"]`, the exchange content as the message's one
 * data part, and the JSON-RPC errors a refusal is answered with (the `data` names the reason).
 */
import type { ErrorBody } from '@agentgov/core';
import type { ExchangeMessage } from '../message';

/** The governance extension: declared `required: true` in the AgentCard, activated by `A2A-Extensions`. */
export const GOVERNANCE_EXTENSION_URI = 'https://agentgov.dev/a2a/extensions/interchange/v1';
/** Media type of the data part that carries the exchange content. */
export const EXCHANGE_MEDIA_TYPE = 'application/vnd.agentgov.exchange+json';

/** What the extension carries in message metadata. */
export interface EnvelopeMetadata {
  /** The compact JWS envelope. */
  envelope: string;
  /** What the message is: a round (query), a reply, or a request for a pending reply (collect). */
  kind: 'query' | 'reply' | 'collect';
  /** On collect: the exchange and round asked about. */
  exchangeId?: string;
  round?: number;
}

/** JSON-RPC error codes of refusals (implementation-defined server range). */
export const GOVERNANCE_ERRORS = {
  /** The extension is required and was not activated (or no envelope was sent). */
  extensionRequired: -32040,
  /** The caller could not be authenticated (missing, invalid, expired or replayed caller token). */
  callerUnauthenticated: -32041,
  /** The interchange protocol refused the message (data: the spec's error body). */
  refused: -32042,
  /** Body, metadata or envelope above the limit. */
  tooLarge: -32043,
} as const;

export interface JsonRpcError {
  code: number;
  message: string;
  data: { reason: string; extension: string; error?: ErrorBody; limit?: number };
}

export const rpcError = (
  code: number,
  message: string,
  reason: string,
  extra: Partial<JsonRpcError['data']> = {},
): JsonRpcError => ({
  code,
  message,
  data: { reason, extension: GOVERNANCE_EXTENSION_URI, ...extra },
});

/** The JSON form of an A2A message carrying exchange content and an envelope. */
export function toWireMessage(input: {
  messageId: string;
  contextId: string;
  taskId?: string;
  role: 'ROLE_USER' | 'ROLE_AGENT';
  content: ExchangeMessage | { exchangeId: string; round: number };
  metadata: EnvelopeMetadata;
}): Record<string, unknown> {
  return {
    messageId: input.messageId,
    contextId: input.contextId,
    ...(input.taskId ? { taskId: input.taskId } : {}),
    role: input.role,
    parts: [{ data: input.content, mediaType: EXCHANGE_MEDIA_TYPE }],
    metadata: { [GOVERNANCE_EXTENSION_URI]: input.metadata },
    extensions: [GOVERNANCE_EXTENSION_URI],
  };
}

/** A wire message as the binding defines it, every field accounted for. */
export interface WireMessage {
  metadata: EnvelopeMetadata;
  content: unknown;
  contextId: string;
  taskId: string;
  messageId: string;
  role: 'ROLE_USER' | 'ROLE_AGENT';
}

/**
 * Reads a JSON (wire) message strictly. `missing`: no envelope at all. `not_covered`: an envelope
 * is there, but the message carries something the binding does not define — a field beside the
 * data part (`text`, `metadata`, `filename`, `url`…), another part, another metadata key or
 * extension, a field of the message the SDK would read (`task_id`, `referenceTaskIds`…) — so
 * something would reach the agent or its task history that the signature does not cover. The
 * content is the one data part (bound by the envelope's digest); messageId, role and the
 * extension list are checked here, contextId and kind by the envelope, taskId by the gate.
 */
export function readWireMessage(
  message: unknown,
):
  | { status: 'ok'; wire: WireMessage }
  | { status: 'missing' }
  | { status: 'not_covered'; field: string; envelope: string } {
  if (!isPlain(message)) return { status: 'missing' };
  const m = message as Record<string, unknown>;
  const metadata = m.metadata;
  const meta = isPlain(metadata)
    ? (metadata as Record<string, unknown>)[GOVERNANCE_EXTENSION_URI]
    : undefined;
  if (!isPlain(meta) || typeof (meta as { envelope?: unknown }).envelope !== 'string')
    return { status: 'missing' };
  const envelope = (meta as { envelope: string }).envelope;
  const notCovered = (field: string) => ({ status: 'not_covered' as const, field, envelope });
  for (const key of Object.keys(m)) if (!MESSAGE_KEYS.has(key)) return notCovered(key);
  if (typeof m.messageId !== 'string' || m.messageId === '' || m.messageId.length > 256)
    return notCovered('messageId');
  if (m.contextId !== undefined && typeof m.contextId !== 'string') return notCovered('contextId');
  if (m.taskId !== undefined && typeof m.taskId !== 'string') return notCovered('taskId');
  if (m.role !== 'ROLE_USER' && m.role !== 'ROLE_AGENT') return notCovered('role');
  if (
    m.extensions !== undefined &&
    (!Array.isArray(m.extensions) || m.extensions.some((e) => e !== GOVERNANCE_EXTENSION_URI))
  )
    return notCovered('extensions');
  if (Object.keys(metadata as object).length !== 1) return notCovered('metadata');
  const em = meta as Record<string, unknown>;
  for (const key of Object.keys(em))
    if (!ENVELOPE_METADATA_KEYS.has(key)) return notCovered(`metadata.${key}`);
  const kind = em.kind;
  if (kind !== 'query' && kind !== 'reply' && kind !== 'collect') return notCovered('metadata.kind');
  if (em.exchangeId !== undefined && typeof em.exchangeId !== 'string')
    return notCovered('metadata.exchangeId');
  if (em.round !== undefined && !Number.isSafeInteger(em.round)) return notCovered('metadata.round');
  if (!Array.isArray(m.parts) || m.parts.length !== 1) return notCovered('parts');
  const part = m.parts[0];
  if (!isPlain(part)) return notCovered('parts');
  const p = part as Record<string, unknown>;
  const keys = Object.keys(p);
  if (keys.length !== 2 || !('data' in p) || !('mediaType' in p))
    return notCovered(`parts.${keys.find((k) => k !== 'data' && k !== 'mediaType') ?? 'data'}`);
  if (p.mediaType !== EXCHANGE_MEDIA_TYPE || !isPlain(p.data)) return notCovered('parts.data');
  if (kind === 'query' && (em.exchangeId !== undefined || em.round !== undefined))
    return notCovered('metadata.exchangeId');
  if (kind === 'collect') {
    // The collect request's content is `{exchangeId, round}` (signed); the metadata may repeat it.
    const c = p.data as { exchangeId?: unknown; round?: unknown };
    if (Object.keys(c).some((k) => k !== 'exchangeId' && k !== 'round')) return notCovered('parts.data');
    if (
      (em.exchangeId !== undefined && em.exchangeId !== c.exchangeId) ||
      (em.round !== undefined && em.round !== c.round)
    )
      return notCovered('metadata.exchangeId');
  }
  return {
    status: 'ok',
    wire: {
      metadata: em as unknown as EnvelopeMetadata,
      content: p.data,
      contextId: typeof m.contextId === 'string' ? m.contextId : '',
      taskId: typeof m.taskId === 'string' ? m.taskId : '',
      messageId: m.messageId,
      role: m.role,
    },
  };
}

/** Reads the envelope metadata and the one data part of a JSON (wire) message; undefined when absent or not exactly the binding's shape (see `readWireMessage`). */
export function fromWireMessage(message: unknown): WireMessage | undefined {
  const r = readWireMessage(message);
  return r.status === 'ok' ? r.wire : undefined;
}

const MESSAGE_KEYS = new Set(['messageId', 'contextId', 'taskId', 'role', 'parts', 'metadata', 'extensions']);
const ENVELOPE_METADATA_KEYS = new Set(['envelope', 'kind', 'exchangeId', 'round']);

const isPlain = (v: unknown): boolean =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;
