/**
 * HTTP primitives of the kernel: error responses in the spec's body shape, JSON responses,
 * request ids and a size-limited body reader.
 */
import { errorOf, type GovernanceError, json, toErrorBody, ValidationError } from '@agentgov/core';

/** Default request body limit: 1 MiB. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

const REQUEST_ID_RE = /^[A-Za-z0-9._:-]{1,128}$/;

/** The incoming `X-Request-Id` when it is well-formed (1–128 of `[A-Za-z0-9._:-]`), otherwise a new UUID. */
export function requestIdFrom(request: Request): string {
  const incoming = request.headers.get('x-request-id');
  return incoming && REQUEST_ID_RE.test(incoming) ? incoming : crypto.randomUUID();
}

/**
 * The `WWW-Authenticate` challenge of a 401 (RFC 6750 section 3): no `error` when no credentials
 * were presented, `error="invalid_token"` when they were presented and refused. A webhook's 401
 * is not a Bearer challenge.
 */
function bearerChallenge(code: string): string | undefined {
  if (code === 'authentication_required' || code === 'no_session') return 'Bearer realm="agentgov"';
  if (code === 'invalid_token' || code === 'session_expired') {
    const why = code === 'session_expired' ? 'The session has expired' : 'The token is not valid';
    return `Bearer realm="agentgov", error="invalid_token", error_description="${why}"`;
  }
  return undefined;
}

export function errorResponse(error: GovernanceError, headers?: HeadersInit): Response {
  const h = new Headers(headers);
  const challenge = error.status === 401 ? bearerChallenge(error.code) : undefined;
  if (challenge && !h.has('www-authenticate')) h.set('www-authenticate', challenge);
  return json(error.status, toErrorBody(error), h);
}

/**
 * Reads the body as bytes, failing with 413 `payload_too_large` as soon as more than `limit`
 * bytes arrived — also when no Content-Length was sent (chunked bodies are counted as they stream).
 */
export async function readBodyLimited(request: Request, limit: number): Promise<Uint8Array> {
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > limit) {
    throw errorOf('payload_too_large', `The request body exceeds ${limit} bytes`);
  }
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw errorOf('payload_too_large', `The request body exceeds ${limit} bytes`);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/** Parses a JSON body; an empty body is `undefined` (so a required body reports `missing_type`). */
export function parseJsonBody(bytes: Uint8Array): unknown {
  if (bytes.byteLength === 0) return undefined;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw ValidationError.invalid('(body)', 'the body is not valid UTF-8');
  }
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw ValidationError.invalid('(body)', 'the body is not valid JSON');
  }
}

/** Reads one cookie from a Cookie header. */
export function readCookie(header: string | null, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
