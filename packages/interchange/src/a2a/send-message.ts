/**
 * A SendMessage as the A2A gate (`./server`) reads it before anything in it is verified: the
 * request-level checks that come first (metadata size, an envelope at all, envelope size, every
 * field of the message covered by the envelope or checked here), the signer the envelope's header
 * names (unverified: the interchange node verifies the envelope), the check that this signer is
 * the authenticated caller, and the SendMessage configuration passed on to the SDK (its documented
 * fields only). Nothing here verifies a signature; it only refuses early and cheaply.
 */
import { isAscii } from 'node:buffer';
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
  const metadata = message?.metadata ?? null;
  const bound = jsonSizeBound(metadata, 0);
  if (bound > metadataLimit && Buffer.byteLength(JSON.stringify(metadata) ?? '') > metadataLimit)
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
    const kid = envelopeHeader(read.wire.metadata.envelope).kid;
    signer = kid ? parseKeyId(kid as string) : undefined;
  } catch {
    signer = undefined;
  }
  return { wire: read.wire, signer, problem: undefined };
}

const B64URL = /^[A-Za-z0-9_-]+$/;

/**
 * jose's `decodeProtectedHeader(jws)`, read directly when the JWS is plainly three segments whose
 * header is canonical-length base64url of ASCII JSON naming an object; anything else (five
 * segments, other characters, non-ASCII, not JSON, not an object) goes to jose, its errors included.
 */
export function envelopeHeader(jws: string): Record<string, unknown> {
  const dot = jws.indexOf('.');
  const second = dot > 0 ? jws.indexOf('.', dot + 1) : -1;
  if (second > 0 && jws.indexOf('.', second + 1) === -1 && dot % 4 !== 1) {
    const segment = jws.slice(0, dot);
    const bytes = B64URL.test(segment) ? Buffer.from(segment, 'base64url') : undefined;
    if (bytes && isAscii(bytes)) {
      try {
        const h = JSON.parse(bytes.toString('latin1')) as unknown;
        if (typeof h === 'object' && h !== null && !Array.isArray(h)) return h as Record<string, unknown>;
      } catch {
        // jose decides (and throws)
      }
    }
  }
  return decodeProtectedHeader(jws);
}

/** Deeper metadata is measured by JSON.stringify itself. */
const MAX_BOUND_DEPTH = 8;

/**
 * An upper bound of `Buffer.byteLength(JSON.stringify(value))` for plain JSON data (a string's
 * UTF-8 form is at most 6 bytes per UTF-16 unit escaped, a number at most 32 characters,
 * an omitted member still counted); Infinity for anything else (toJSON, other prototypes, bigint,
 * deep nesting): then JSON.stringify measures it. Only ever used to say "within the limit".
 */
export function jsonSizeBound(value: unknown, depth: number): number {
  switch (typeof value) {
    case 'string':
      return value.length * 6 + 2;
    case 'number':
    case 'boolean':
    case 'undefined':
      return 32;
    case 'function':
    case 'symbol':
      return 4;
    case 'object': {
      if (value === null) return 4;
      if (depth >= MAX_BOUND_DEPTH || typeof (value as { toJSON?: unknown }).toJSON === 'function')
        return Number.POSITIVE_INFINITY;
      const proto = Object.getPrototypeOf(value);
      let size = 2;
      if (Array.isArray(value)) {
        if (proto !== Array.prototype) return Number.POSITIVE_INFINITY;
        for (let i = 0; i < value.length; i++) size += 1 + jsonSizeBound(value[i], depth + 1);
        return size;
      }
      if (proto !== Object.prototype && proto !== null) return Number.POSITIVE_INFINITY;
      for (const key of Object.keys(value))
        size += key.length * 6 + 4 + jsonSizeBound((value as Record<string, unknown>)[key], depth + 1);
      return size;
    }
    default:
      return Number.POSITIVE_INFINITY;
  }
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
