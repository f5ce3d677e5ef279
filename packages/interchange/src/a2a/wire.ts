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

/** Reads the envelope metadata and the one data part of a JSON (wire) message; undefined when absent or ill-formed. */
export function fromWireMessage(
  message: unknown,
): { metadata: EnvelopeMetadata; content: unknown; contextId: string; taskId: string } | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const m = message as {
    metadata?: Record<string, unknown>;
    parts?: unknown;
    contextId?: unknown;
    taskId?: unknown;
  };
  const meta = m.metadata?.[GOVERNANCE_EXTENSION_URI] as Partial<EnvelopeMetadata> | undefined;
  if (
    !meta ||
    typeof meta.envelope !== 'string' ||
    !['query', 'reply', 'collect'].includes(String(meta.kind))
  )
    return undefined;
  if (!Array.isArray(m.parts) || m.parts.length !== 1) return undefined;
  const part = m.parts[0] as { data?: unknown; mediaType?: unknown };
  if (part.mediaType !== EXCHANGE_MEDIA_TYPE || part.data === undefined) return undefined;
  return {
    metadata: meta as EnvelopeMetadata,
    content: part.data,
    contextId: typeof m.contextId === 'string' ? m.contextId : '',
    taskId: typeof m.taskId === 'string' ? m.taskId : '',
  };
}
