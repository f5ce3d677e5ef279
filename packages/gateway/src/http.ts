/**
 * HTTP primitives of the kernel: error responses in the spec's body shape, JSON responses,
 * request ids, a size-limited body reader, and the `Outcome` — the response as the pipeline
 * builds it (status, headers, body) before a transport writes it: as a Fetch `Response`
 * (`responseOf`) or straight to a Node `ServerResponse` (./node.ts).
 */
import { randomUUID } from 'node:crypto';
import {
  type ErrorBody,
  errorOf,
  type GovernanceError,
  json,
  type RouteResult,
  readUpTo,
  toErrorBody,
  ValidationError,
} from '@agentgov/core';

/** Response headers by lower-case name; `set-cookie` is the only one kept as several values. */
type OutHeaders = Map<string, string | string[]>;

/** A response before it is written: a JSON text, bytes, a stream (from a handler's Response) or none. */
export interface Outcome {
  status: number;
  headers: OutHeaders;
  body: string | Uint8Array | ReadableStream<Uint8Array> | null;
  /** How the caller authenticated, when it did (a session may have a renewed cookie to add). */
  via?: 'bearer' | 'session' | undefined;
}

const JSON_TYPE = 'application/json; charset=utf-8';
/** Statuses that never carry a body (RFC 9110). */
const NO_BODY = new Set([101, 204, 205, 304]);

/** Copies any HeadersInit (Headers, pairs, record) into `into`, lower-casing names. */
function addHeaders(into: OutHeaders, init: HeadersInit | undefined): void {
  if (!init) return;
  if (init instanceof Headers) {
    init.forEach((value, key) => {
      if (key !== 'set-cookie') into.set(key, value);
    });
    const cookies = init.getSetCookie();
    if (cookies.length > 0) into.set('set-cookie', cookies);
    return;
  }
  const pairs = Array.isArray(init) ? init : Object.entries(init);
  for (const [name, value] of pairs as [string, string][]) {
    const key = name.toLowerCase();
    if (key === 'set-cookie') {
      const prev = into.get(key);
      into.set(key, [...(prev === undefined ? [] : Array.isArray(prev) ? prev : [prev]), value]);
    } else into.set(key, value);
  }
}

/**
 * The JSON text of every deep-frozen plain body answered so far (a record a store hands out frozen
 * and the same for each read, e.g. `InMemoryPolicyStore`'s): such a value cannot change, so its
 * text is made once. Weak: it goes with the value.
 */
const frozenTexts = new WeakMap<object, string>();

/** `JSON.stringify(body)`, made once for a deep-frozen plain value (see `frozenTexts`). */
function jsonText(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || !Object.isFrozen(body))
    return JSON.stringify(body) as string | undefined;
  const known = frozenTexts.get(body);
  if (known !== undefined) return known;
  const text = JSON.stringify(body) as string | undefined;
  if (text !== undefined && isFrozenPlain(body)) frozenTexts.set(body, text);
  return text;
}

/**
 * A value whose JSON cannot change: a primitive, or a frozen array or plain object (prototype
 * `Object.prototype` or none) of data properties only (no getter), each such a value — so no
 * `toJSON` function, no Date (a frozen Date still changes), no class instance.
 */
function isFrozenPlain(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return typeof value !== 'function';
  if (!Object.isFrozen(value)) return false;
  const proto = Object.getPrototypeOf(value);
  if (Array.isArray(value) ? proto !== Array.prototype : proto !== Object.prototype && proto !== null)
    return false;
  for (const d of Object.values(Object.getOwnPropertyDescriptors(value))) {
    if (!('value' in d) || !isFrozenPlain(d.value)) return false;
  }
  return true;
}

/** A JSON outcome (what `json()` of core builds as a Response, without building one). */
function jsonOutcome(status: number, body: unknown, headers?: HeadersInit): Outcome {
  const h: OutHeaders = new Map();
  addHeaders(h, headers);
  h.set('content-type', JSON_TYPE);
  const text = NO_BODY.has(status) ? undefined : jsonText(body);
  return { status, headers: h, body: text ?? null };
}

/** The outcome of a handler's result: its Response as it is (body streamed), or status + JSON. */
export function outcomeOf(result: RouteResult): Outcome {
  if (!(result instanceof Response)) return jsonOutcome(result.status, result.body, result.headers);
  const h: OutHeaders = new Map();
  addHeaders(h, result.headers);
  return { status: result.status, headers: h, body: result.body };
}

/**
 * The spec's error body: `{error, message, detail}` with `detail` "optional text or array" — a
 * detail of any other shape (an object naming the active policy, a rate limit's category) is
 * answered as an array of that one value.
 */
function httpErrorBody(error: GovernanceError): ErrorBody {
  const body = toErrorBody(error);
  const { detail } = body;
  if (detail !== undefined && typeof detail !== 'string' && !Array.isArray(detail)) body.detail = [detail];
  return body;
}

/** The spec's error body (and, on 401, the Bearer challenge) as an outcome. */
export function errorOutcome(error: GovernanceError): Outcome {
  const challenge = error.status === 401 ? bearerChallenge(error.code) : undefined;
  const out = jsonOutcome(error.status, httpErrorBody(error));
  if (challenge) out.headers.set('www-authenticate', challenge);
  return out;
}

/** The outcome as a Fetch Response. */
export function responseOf(outcome: Outcome): Response {
  const headers = new Headers();
  for (const [key, value] of outcome.headers) {
    if (Array.isArray(value)) for (const v of value) headers.append(key, v);
    else headers.set(key, value);
  }
  return new Response(outcome.body as BodyInit | null, { status: outcome.status, headers });
}

/** Default request body limit: 1 MiB. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

const REQUEST_ID_RE = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The incoming `X-Request-Id` (of a request, or the header's value) when it is well-formed (1–128
 * of `[A-Za-z0-9._:-]`), otherwise a new UUID.
 */
export function requestIdFrom(request: Request | string | null): string {
  const incoming =
    request === null || typeof request === 'string' ? request : request.headers.get('x-request-id');
  return incoming && REQUEST_ID_RE.test(incoming) ? incoming : randomUUID();
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
  return json(error.status, httpErrorBody(error), h);
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
  const bytes = await readUpTo(request.body, limit);
  if (!bytes) throw errorOf('payload_too_large', `The request body exceeds ${limit} bytes`);
  return bytes;
}

/** One strict UTF-8 decoder for every body (a one-shot `decode` keeps no state between calls). */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** Parses a JSON body; an empty body is `undefined` (so a required body reports `missing_type`). */
export function parseJsonBody(bytes: Uint8Array): unknown {
  if (bytes.byteLength === 0) return undefined;
  let text: string;
  try {
    text = UTF8.decode(bytes);
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

/**
 * Reads one cookie from a Cookie header; undefined when absent, and when the header holds two
 * different values under that name. A browser sends both when another site of the same domain
 * (a sibling subdomain, a plain-HTTP page of the host) set one with another Path or a Domain —
 * "cookie tossing" — and lists the tossed one first when its Path is longer: taking the first
 * would make the request the tosser's (their session, their login). Two are no one's.
 */
export function readCookie(header: string | null, name: string): string | undefined {
  if (!header) return undefined;
  let found: string | undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim();
    if (found !== undefined && found !== value) return undefined;
    found = value;
  }
  return found;
}
