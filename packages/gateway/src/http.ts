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

export function errorResponse(error: GovernanceError, headers?: HeadersInit): Response {
  return json(error.status, toErrorBody(error), headers);
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
