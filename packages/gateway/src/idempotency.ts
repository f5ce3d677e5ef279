/**
 * `Idempotency-Key` (draft-ietf-httpapi-idempotency-key-header) for every POST, PUT, PATCH and
 * DELETE of an authenticated route. The first response to a key (status, body, content headers)
 * is kept for 24 hours per (tenant, principal, key) and replayed — with `Idempotent-Replayed:
 * true` — for a retry carrying the same request (method, path, query and canonical JSON body);
 * the same key with another request is 422 `idempotency_key_reused`; a retry while the first
 * request is still running is 409 `idempotency_key_in_use`. A 5xx (or an unexpected failure) is
 * not kept: the key is released so the retry runs. Without the header nothing changes.
 */
import { createHash } from 'node:crypto';
import {
  type Clock,
  canonicalJson,
  errorOf,
  GovernanceError,
  IdempotencyKeySchema,
  type IdempotencyScope,
  type IdempotencyStore,
  nowMs,
  type Principal,
  type StoredResponse,
  ValidationError,
} from '@agentgov/core';
import { errorResponse } from './http';

/** How long a stored response is replayed (the draft's suggested 24 hours). */
const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;
/** How long an in-flight claim holds a key when its process dies before answering. */
const LOCK_SECONDS = 60;
/** Expired records are swept at most this often (by the request that notices). */
const SWEEP_EVERY_MS = 60_000;
const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const REPLAYED_HEADERS = ['content-type', 'location', 'content-disposition', 'etag', 'last-modified'];

export type IdempotencyHook = (
  request: Request,
  url: URL,
  principal: Principal | undefined,
  rawBody: Uint8Array | undefined,
  run: () => Promise<Response>,
) => Promise<Response>;

/** The header's key: a Structured Field string (`"…"`) or the same characters bare. */
function keyOf(header: string): string {
  const trimmed = header.trim();
  const inner =
    trimmed.length >= 2 && trimmed.startsWith('"') && trimmed.endsWith('"') ? trimmed.slice(1, -1) : trimmed;
  const parsed = IdempotencyKeySchema.safeParse(inner);
  if (!parsed.success) {
    throw ValidationError.invalid('Idempotency-Key', parsed.error.issues[0]?.message ?? 'invalid key');
  }
  return parsed.data;
}

/** What makes two requests "the same": method, path, query and the body (canonical JSON when it is JSON). */
function fingerprintOf(request: Request, url: URL, rawBody: Uint8Array | undefined): string {
  const h = createHash('sha256');
  h.update(`${request.method}\n${url.pathname}\n${url.search}\n`);
  if (rawBody && rawBody.byteLength > 0) {
    let canonical: string | undefined;
    try {
      canonical = canonicalJson(JSON.parse(Buffer.from(rawBody).toString('utf8')));
    } catch {
      canonical = undefined;
    }
    h.update(canonical ?? rawBody);
  }
  return h.digest('hex');
}

/** The hook the pipeline calls around a route's handler. */
export function createIdempotency(store: IdempotencyStore, clock: Clock): IdempotencyHook {
  let lastSweep = 0;
  const sweep = (now: Date) => {
    if (now.getTime() - lastSweep < SWEEP_EVERY_MS) return;
    lastSweep = now.getTime();
    store.deleteExpired(now).catch(() => {});
  };

  return async (request, url, principal, rawBody, run) => {
    const header = request.headers.get('idempotency-key');
    if (header === null || !principal || !WRITE_METHODS.has(request.method)) return run();
    const scope: IdempotencyScope = {
      tenantId: principal.tenantId,
      principalId: principal.userId,
      key: keyOf(header),
    };
    const fingerprint = fingerprintOf(request, url, rawBody);
    const now = clock.now();
    sweep(now);
    const found = await store.begin(scope, fingerprint, now, new Date(now.getTime() + LOCK_SECONDS * 1000));
    if (found.state !== 'started') {
      if (found.fingerprint !== fingerprint) {
        throw errorOf('idempotency_key_reused', undefined, { key: scope.key });
      }
      if (found.state === 'in_flight') throw errorOf('idempotency_key_in_use', undefined, { key: scope.key });
      const headers = new Headers(found.response.headers);
      headers.set('idempotent-replayed', 'true');
      return new Response(found.response.body, { status: found.response.status, headers });
    }

    let response: Response;
    try {
      response = await run();
    } catch (error) {
      if (!(error instanceof GovernanceError) || error.status >= 500) {
        await store.release(scope).catch(() => {});
        throw error;
      }
      response = errorResponse(error);
    }
    if (response.status >= 500) {
      await store.release(scope).catch(() => {});
      return response;
    }
    const body = await response.text();
    const kept: StoredResponse = { status: response.status, headers: {}, body };
    for (const name of REPLAYED_HEADERS) {
      const value = response.headers.get(name);
      if (value !== null) kept.headers[name] = value;
    }
    // The write is done: a store failure now only loses the replay (the key's claim lapses).
    await store
      .complete(scope, kept, new Date(nowMs(clock) + IDEMPOTENCY_TTL_SECONDS * 1000))
      .catch(() => {});
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
