/**
 * A SendMessage as the A2A gate (`./server`) reads it before anything in it is verified: the
 * request-level checks that come first (metadata size, an envelope at all, envelope size, every
 * field of the message covered by the envelope or checked here), the signer the envelope's header
 * names (unverified: the interchange node verifies the envelope), the check that this signer is
 * the authenticated caller, and the SendMessage configuration passed on to the SDK (its documented
 * fields only). Nothing here verifies a signature; it only refuses early and cheaply.
 */
import { decodeProtectedHeader } from 'jose';
import { MAX_ENVELOPE_BYTES } from '../envelope';
import { parseKeyId } from '../keys';
import type { Caller } from './caller';
import {
  GOVERNANCE_ERRORS as E,
  type JsonRpcError,
  readWireMessage,
  rpcError,
  type WireMessage,
} from './wire';

/** A SendMessage as the gate reads it once, before anything in it is verified. */
export interface SendMessageView {
  wire: WireMessage | undefined;
  /** Why the message is refused before anything else (size, no envelope, uncovered content). */
  problem: { status: number; error: JsonRpcError } | undefined;
  /** The agent the envelope's header names (unverified: the node verifies the envelope). */
  signer: Caller | undefined;
}

/** What a SendMessage may carry besides its message (request-level `metadata` only empty). */
const SEND_PARAMS = new Set(['message', 'configuration', 'tenant', 'metadata']);
const isEmptyObject = (v: unknown) =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 0;

/** A SendMessage refused before anything in it is read further. */
const refusedView = (status: number, error: JsonRpcError): SendMessageView => ({
  wire: undefined,
  signer: undefined,
  problem: { status, error },
});
/** Over a size limit: HTTP 413, -32043 with the reason and the limit. */
const tooLarge = (message: string, reason: string, limit: number): SendMessageView =>
  refusedView(413, rpcError(E.tooLarge, message, reason, { limit }));

export const envelopeMissing = () =>
  rpcError(
    E.extensionRequired,
    'No signed envelope: a message without one is never accepted',
    'envelope_missing',
  );

/**
 * The wire message, the checks that come before anything else and the (unverified) envelope
 * signer of a SendMessage, in order: metadata size, an envelope at all, envelope size, every
 * field of the message covered (the content by the envelope's digest, the rest checked here).
 */
export function readSendMessage(params: Record<string, unknown>, metadataLimit: number): SendMessageView {
  const message = params.message as { metadata?: unknown } | undefined;
  const metaSize = Buffer.byteLength(JSON.stringify(message?.metadata ?? null) ?? '');
  if (metaSize > metadataLimit)
    return tooLarge('Message metadata too large', 'metadata_too_large', metadataLimit);
  const read = readWireMessage(params.message);
  if (read.status === 'missing') return refusedView(200, envelopeMissing());
  const envelope = read.status === 'ok' ? read.wire.metadata.envelope : read.envelope;
  if (envelope.length > MAX_ENVELOPE_BYTES)
    return tooLarge('Envelope too large', 'envelope_too_large', MAX_ENVELOPE_BYTES);
  const extra = Object.keys(params).find(
    (k) =>
      !SEND_PARAMS.has(k) ||
      (k === 'metadata' && params.metadata !== undefined && !isEmptyObject(params.metadata)),
  );
  if (read.status === 'not_covered' || read.wire.role !== 'ROLE_USER' || extra !== undefined) {
    const field =
      read.status === 'not_covered' ? read.field : extra !== undefined ? `params.${extra}` : 'role';
    return refusedView(
      200,
      rpcError(
        E.refused,
        `The message carries content its envelope does not cover (${field.slice(0, 64)})`,
        'unsigned_content',
      ),
    );
  }
  let signer: Caller | undefined;
  try {
    const kid = decodeProtectedHeader(read.wire.metadata.envelope).kid;
    signer = kid ? parseKeyId(kid) : undefined;
  } catch {
    signer = undefined;
  }
  return { wire: read.wire, signer, problem: undefined };
}

/** The early problem of a SendMessage, or its envelope not signed by the authenticated caller. */
export function checkSendMessage(
  view: SendMessageView,
  caller: Caller,
): { status: number; error: JsonRpcError } | undefined {
  if (view.problem) return view.problem;
  const signer = view.signer;
  if (!signer || signer.tenantId !== caller.tenantId || signer.agentId !== caller.agentId) {
    return {
      status: 200,
      error: rpcError(E.refused, 'The envelope is not signed by the caller', 'caller_not_sender'),
    };
  }
  return undefined;
}
