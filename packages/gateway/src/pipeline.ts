/**
 * One request through the kernel, in order: route match → body size check → authentication (a
 * failure with credentials presented counts against the caller address's `auth_failures` limit) → the request context (built
 * once) → role guard → rate limit (so refused callers never use others' budget) → input bounds →
 * params, query and body (read once, bounded) validated → the route's handler → the spec's error
 * body for any failure. Every response carries `X-Request-Id` and, on limited routes, the
 * rate-limit headers.
 *
 * The pipeline reads an `Incoming` (a Fetch `Request`, or on Node a light view of the
 * `IncomingMessage`, ./node.ts) and answers an `Outcome` (status, headers, body) that the
 * transport writes: as a Fetch `Response`, or straight to the Node response with a
 * Content-Length. So a Node request never pays for building a Fetch Request and Response unless a
 * route asks for one. The route's input (bounded, validated, the body read once) is read by
 * ./pipeline-input.ts.
 */
import {
  type Clock,
  createRequestContext,
  errorOf,
  GovernanceError,
  hasRole,
  type Logger,
  type Principal,
  type RateLimit,
  type RateLimiter,
  type RequestObserver,
  type RequestOutcome,
} from '@agentgov/core';
import { presentedNone, presentedTenant } from './auth/authenticate';
import { errorOutcome, type Outcome, outcomeOf, readBodyLimited, requestIdFrom, responseOf } from './http';
import type { IdempotencyHook } from './idempotency';
import { createInputReader } from './pipeline-input';
import { AUTH_FAILURES, setRateLimitHeaders } from './rate-limit';
import type { Router } from './router';

/** A request as the pipeline reads it. */
export interface Incoming {
  /**
   * The request as the kernel's hooks see it (authentication, observers, Idempotency-Key,
   * `onError`): the Fetch Request itself, or on Node a view whose method, url, headers and signal
   * are read without building one (anything else builds it).
   */
  readonly request: Request;
  readonly method: string;
  /** A request header by lower-case name (several values joined), or null. */
  header(name: string): string | null;
  /** The absolute URL (a target that is not one is a 400). */
  url(): URL;
  /** The target's path and query as `url()` would give them (on Node read without building a URL). */
  target(): RequestTarget;
  /** The body, read once and bounded: 413 `payload_too_large` past `limit` bytes. */
  readBody(limit: number): Promise<Uint8Array>;
  /** The Fetch Request a handler may read (`input.request`); on Node built on first use. */
  fetchRequest(): Request;
  readonly signal: AbortSignal;
}

/** A request target's `pathname` and `search`, as a WHATWG URL has them. */
export interface RequestTarget {
  readonly pathname: string;
  readonly search: string;
}

export interface PipelineOptions {
  basePath: string;
  router: Router;
  bodyLimit: number;
  rateLimits: Readonly<Record<string, RateLimit>>;
  rateLimiter: RateLimiter;
  clock: Clock;
  logger: Logger;
  /**
   * The principal of a request on an authenticated route (throws the spec's 401 errors); reads
   * headers through `incoming.header`, the request (view) only for a session lookup. Answered at
   * once when it needs no I/O (a cached Bearer verification), else as a promise.
   */
  authenticate(incoming: Incoming, mode: 'required' | 'session'): Principal | Promise<Principal>;
  /**
   * Records what an authenticated principal's claims tell (tenant, org placement, activity): a
   * promise while it writes, nothing when there is nothing to write.
   */
  learn(principal: Principal): Promise<void> | undefined;
  /** The client address: the peer's, or behind trusted proxies the forwarded one (./client-address.ts). */
  clientAddress(peer: string | undefined, header: (name: string) => string | null): string | undefined;
  onError(error: unknown, request: Request): void;
  /**
   * Refuses a cookie-authenticated write from another origin (./auth/origin.ts); absent: none.
   */
  checkOrigin?: (incoming: Incoming) => void;
  /** Idempotency-Key handling around the handler (./idempotency.ts); absent: none. */
  idempotency?: IdempotencyHook;
  /**
   * The `Set-Cookie` that clears the session cookie: sent with every 401 `session_expired`, so a
   * browser drops a cookie that will never work again (a logout with it included).
   */
  clearSessionCookie?: string;
  /** Request observers (request log, metrics, tracing), composed by the kernel. */
  observe?: RequestObserver;
}

/** What dispatch learnt about a request, for its observers. */
interface Seen {
  started: number;
  route?: string;
  principal?: Principal;
  error?: GovernanceError;
  /** Headers every answer carries (`Allow`, the rate-limit headers), made when the first is set. */
  extra?: Outcome['headers'];
}

function extraOf(seen: Seen): Outcome['headers'] {
  seen.extra ??= new Map();
  return seen.extra;
}

export type Pipeline = (incoming: Incoming, peerAddress?: string) => Promise<Outcome>;

export function createPipeline(o: PipelineOptions): Pipeline {
  const { basePath } = o;
  const basePrefix = `${basePath}/`;
  const readInput = createInputReader(o.bodyLimit);

  /** Counts one request of `category` for `subject`; sets the headers; 429 when over the limit. */
  async function consume(category: string, subject: string, out: Outcome['headers']): Promise<void> {
    const limit = o.rateLimits[category];
    if (!limit) throw new Error(`unknown rate-limit category ${category}`);
    const decision = await o.rateLimiter.consume(`${category}:${subject}`, limit);
    setRateLimitHeaders(out, category, limit, decision);
    if (!decision.allowed) {
      throw errorOf(
        'rate_limit_exceeded',
        `Rate limit of ${limit.points} requests per ${limit.durationSeconds}s exceeded`,
        { category, retryAfterSeconds: decision.resetSeconds },
      );
    }
  }

  async function limitAuthFailure(remoteAddress: string | undefined, out: Outcome['headers']): Promise<void> {
    if (!o.rateLimits[AUTH_FAILURES]) return;
    await consume(AUTH_FAILURES, `addr:${remoteAddress ?? 'unknown'}`, out);
  }

  async function dispatch(
    incoming: Incoming,
    requestId: string,
    peerAddress: string | undefined,
    seen: Seen,
  ): Promise<Outcome> {
    const { method } = incoming;
    const { pathname: path, search } = incoming.target();
    if (path !== basePath && !path.startsWith(basePrefix)) throw errorOf('NOT_FOUND', `No route for ${path}`);
    const match = o.router.match(method, path.slice(basePath.length) || '/');
    // A HEAD is answered as its GET would be, messages too (same Content-Length).
    const shown = method === 'HEAD' ? 'GET' : method;
    if (match.kind === 'not_found') throw errorOf('NOT_FOUND', `No route for ${shown} ${path}`);
    if (match.kind === 'method_not_allowed') {
      extraOf(seen).set('allow', match.allow.join(', '));
      throw errorOf('method_not_allowed', `${shown} is not allowed on ${path}`);
    }
    const route = match.mounted.route;
    seen.route = route.path;
    const declared = incoming.header('content-length');
    if (declared !== null && Number(declared) > o.bodyLimit) {
      throw errorOf('payload_too_large', `The request body exceeds ${o.bodyLimit} bytes`);
    }
    const remoteAddress = o.clientAddress(peerAddress, (name) => incoming.header(name));

    let principal: Principal | undefined;
    if (route.auth !== 'none') {
      try {
        // No await (and no microtask) when authentication answered at once.
        const found = o.authenticate(incoming, route.auth);
        principal = found instanceof Promise ? await found : found;
      } catch (error) {
        // A request that fails authentication never counts against a tenant's budget; one that
        // presented credentials counts against the caller address's own, stricter `auth_failures`
        // limit (429 once exhausted). One that presented none is always the spec's 401.
        if (!presentedNone(error)) await limitAuthFailure(remoteAddress, extraOf(seen));
        throw error;
      }
      seen.principal = principal;
      if (principal.via === 'session') o.checkOrigin?.(incoming);
      const learning = o.learn(principal);
      if (learning) await learning;
    }
    const ctx = createRequestContext({
      requestId,
      principal,
      remoteAddress,
      clock: o.clock,
      logger: o.logger,
      // Made when a handler reads it (on Node it costs an AbortController and a listener).
      signal: () => incoming.signal,
    });

    // Authorisation before counting: a caller without the route's role is refused without using
    // the budget of the principals who have it.
    if (route.roles && principal && !hasRole(principal, ...route.roles)) {
      throw errorOf('forbidden', `This action requires one of the roles: ${route.roles.join(', ')}`);
    }
    if (route.rateLimit) {
      // The spec's categories are per tenant ("Rate limits are per tenant"). `/status` needs no
      // authentication: a caller presenting valid credentials counts for its tenant, any other
      // caller (none, or invalid ones — never a 401 there) per client address.
      const tenantId =
        principal?.tenantId ??
        (route.rateLimit === 'system_status' ? await presentedTenant(o.authenticate, incoming) : undefined);
      const subject = tenantId === undefined ? `addr:${remoteAddress ?? 'unknown'}` : `tenant:${tenantId}`;
      await consume(route.rateLimit, subject, extraOf(seen));
    }
    // No await (and no microtask) for a route without a body.
    const read = readInput(incoming, route, match.params, search);
    const input = read instanceof Promise ? await read : read;
    const { rawBody } = input;
    // --- Idempotency-Key (./idempotency.ts): replay the stored response of a retried write. The
    // hook answers `run()` itself without the header, so a request without one skips it (and
    // awaits the handler here, without a promise of its own).
    if (!o.idempotency || incoming.header('idempotency-key') === null)
      return outcomeOf(await route.handler(input, ctx));
    const run = async (): Promise<Outcome> => outcomeOf(await route.handler(input, ctx));
    const response = await o.idempotency(incoming.request, incoming.url(), principal, rawBody, () =>
      run().then(responseOf),
    );
    return outcomeOf(response);
  }

  return async function handle(incoming, peerAddress) {
    const requestId = requestIdFrom(incoming.header('x-request-id'));
    const end = o.observe?.(incoming.request, requestId);
    const seen: Seen = {
      started: end ? performance.now() : 0,
      route: undefined,
      principal: undefined,
      error: undefined,
      extra: undefined,
    };
    let outcome: Outcome;
    try {
      outcome = await dispatch(incoming, requestId, peerAddress, seen);
    } catch (error) {
      if (error instanceof GovernanceError) {
        seen.error = error;
        outcome = errorOutcome(error);
        if (error.code === 'session_expired' && o.clearSessionCookie)
          outcome.headers.set('set-cookie', o.clearSessionCookie);
      } else {
        o.onError(error, incoming.request);
        seen.error = new GovernanceError('internal_error');
        outcome = errorOutcome(seen.error);
      }
    }
    if (seen.extra) for (const [k, v] of seen.extra) outcome.headers.set(k, v);
    outcome.headers.set('x-request-id', requestId);
    // Every answer is what its Content-Type says: no browser sniffs a JSON error body (which may
    // echo a request's text) or an export into something it would run.
    if (!outcome.headers.has('x-content-type-options'))
      outcome.headers.set('x-content-type-options', 'nosniff');
    outcome.via = seen.principal?.via;
    // HEAD (a GET route answered it): the headers of the GET — its Content-Length when it is
    // known, none for a stream (RFC 9110 8.6) — and no body.
    if (incoming.method === 'HEAD' && outcome.body !== null) {
      const { body } = outcome;
      if (body instanceof ReadableStream) void body.cancel().catch(() => {});
      else
        outcome.headers.set(
          'content-length',
          String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength),
        );
      outcome.body = null;
    }
    if (end) reportOutcome(end, incoming.method, requestId, outcome.status, seen);
    return outcome;
  };
}

/** Hands the outcome to the observers (what they throw never reaches the caller). */
function reportOutcome(
  end: (outcome: RequestOutcome) => void,
  method: string,
  requestId: string,
  status: number,
  seen: Seen,
): void {
  const error = status >= 400 ? seen.error : undefined;
  const detail = error?.code === 'rate_limit_exceeded' ? (error.detail as { category?: unknown }) : undefined;
  try {
    end({
      requestId,
      method,
      route: seen.route,
      status,
      durationMs: performance.now() - seen.started,
      tenantId: seen.principal?.tenantId,
      userId: seen.principal?.userId,
      errorCode: error?.code,
      rateLimitCategory: typeof detail?.category === 'string' ? detail.category : undefined,
    });
  } catch {
    // An observer's failure is its own; the caller still gets the response.
  }
}

/** The Fetch side: a Request read as it is. */
export function fetchIncoming(request: Request): Incoming {
  const url = new URL(request.url);
  return {
    request,
    method: request.method,
    header: (name) => request.headers.get(name),
    url: () => url,
    target: () => url,
    readBody: (limit) => readBodyLimited(request, limit),
    fetchRequest: () => request,
    signal: request.signal,
  };
}
