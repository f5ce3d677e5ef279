/**
 * One request through the kernel, in order: route match → body size check → authentication (a
 * failure counts against the caller address's `auth_failures` limit) → the request context (built
 * once) → role guard → rate limit (so refused callers never use others' budget) → input bounds →
 * params, query and body (read once,
 * bounded) validated → the route's handler → the spec's error body for any failure. Every
 * response carries `X-Request-Id` and, on limited routes, the `RateLimit-*` headers.
 */
import {
  type AnyRoute,
  type Clock,
  createRequestContext,
  errorOf,
  GovernanceError,
  hasRole,
  json,
  type Logger,
  type Principal,
  queryObject,
  type RateLimit,
  type RateLimiter,
  type RequestObserver,
  type RequestOutcome,
  ValidationError,
  validationErrorFromZod,
} from '@agentgov/core';
import { errorResponse, parseJsonBody, readBodyLimited, requestIdFrom } from './http';
import type { IdempotencyHook } from './idempotency';
import { checkInputBounds } from './input-bounds';
import { AUTH_FAILURES, rateLimitHeaders } from './rate-limit';
import type { Router } from './router';

export interface PipelineOptions {
  basePath: string;
  router: Router;
  bodyLimit: number;
  rateLimits: Readonly<Record<string, RateLimit>>;
  rateLimiter: RateLimiter;
  clock: Clock;
  logger: Logger;
  /** The principal of a request on an authenticated route (throws the spec's 401 errors). */
  authenticate(request: Request, mode: 'required' | 'session'): Promise<Principal>;
  /** Records what an authenticated principal's claims tell (tenant, org placement, activity). */
  learn(principal: Principal): Promise<void>;
  onError(error: unknown, request: Request): void;
  /** Idempotency-Key handling around the handler (./idempotency.ts); absent: none. */
  idempotency?: IdempotencyHook;
  /** Request observers (request log, metrics, tracing), composed by the kernel. */
  observe?: RequestObserver;
}

/** What dispatch learnt about a request, for its observers. */
interface Seen {
  started: number;
  route?: string;
  principal?: Principal;
  error?: GovernanceError;
}

export type RequestHandler = (request: Request, remoteAddress?: string) => Promise<Response>;

function validate(schema: AnyRoute['params'], input: unknown): unknown {
  if (!schema) return input;
  const r = schema.safeParse(input);
  if (!r.success) throw validationErrorFromZod(r.error, input, '');
  return r.data;
}

export function createPipeline(o: PipelineOptions): RequestHandler {
  const { basePath } = o;

  /** Counts one request of `category` for `subject`; sets the headers; 429 when over the limit. */
  async function consume(category: string, subject: string, headers: Headers): Promise<void> {
    const limit = o.rateLimits[category];
    if (!limit) throw new Error(`unknown rate-limit category ${category}`);
    const decision = await o.rateLimiter.consume(`${category}:${subject}`, limit);
    rateLimitHeaders(category, limit, decision).forEach((v, k) => {
      headers.set(k, v);
    });
    if (!decision.allowed) {
      throw errorOf(
        'rate_limit_exceeded',
        `Rate limit of ${limit.points} requests per ${limit.durationSeconds}s exceeded`,
        { category, retryAfterSeconds: decision.resetSeconds },
      );
    }
  }

  async function limitAuthFailure(remoteAddress: string | undefined, headers: Headers): Promise<void> {
    if (!o.rateLimits[AUTH_FAILURES]) return;
    await consume(AUTH_FAILURES, `addr:${remoteAddress ?? 'unknown'}`, headers);
  }

  async function dispatch(
    request: Request,
    requestId: string,
    remoteAddress: string | undefined,
    headers: Headers,
    seen: Seen,
  ): Promise<Response> {
    const url = new URL(request.url);
    const path = url.pathname;
    if (path !== basePath && !path.startsWith(`${basePath}/`))
      throw errorOf('NOT_FOUND', `No route for ${path}`);
    const match = o.router.match(request.method, path.slice(basePath.length) || '/');
    if (match.kind === 'not_found') throw errorOf('NOT_FOUND', `No route for ${request.method} ${path}`);
    if (match.kind === 'method_not_allowed') {
      headers.set('allow', match.allow.join(', '));
      throw errorOf('method_not_allowed', `${request.method} is not allowed on ${path}`);
    }
    const route = match.mounted.route;
    seen.route = route.path;
    const declared = request.headers.get('content-length');
    if (declared !== null && Number(declared) > o.bodyLimit) {
      throw errorOf('payload_too_large', `The request body exceeds ${o.bodyLimit} bytes`);
    }

    let principal: Principal | undefined;
    if (route.auth !== 'none') {
      try {
        principal = await o.authenticate(request, route.auth);
      } catch (error) {
        // A request that fails authentication never counts against a tenant's budget; it counts
        // against the caller address's own, stricter `auth_failures` limit (429 once exhausted).
        await limitAuthFailure(remoteAddress, headers);
        throw error;
      }
      seen.principal = principal;
      await o.learn(principal);
    }
    const ctx = createRequestContext({
      requestId,
      principal,
      remoteAddress,
      clock: o.clock,
      logger: o.logger,
      signal: request.signal,
    });

    // Authorisation before counting: a caller without the route's role is refused without using
    // the budget of the principals who have it.
    if (route.roles && principal && !hasRole(principal, ...route.roles)) {
      throw errorOf('forbidden', `This action requires one of the roles: ${route.roles.join(', ')}`);
    }
    if (route.rateLimit) {
      // The spec's categories are per tenant ("Rate limits are per tenant"); `/status` (no
      // authentication) is per client address.
      const subject =
        route.rateLimit === 'system_status' || !principal
          ? `addr:${remoteAddress ?? 'unknown'}`
          : `tenant:${principal.tenantId}`;
      await consume(route.rateLimit, subject, headers);
    }

    checkInputBounds(match.params, '(path)');
    const rawQuery = queryObject(url);
    checkInputBounds(rawQuery, '(query)');
    const params = validate(route.params, match.params);
    const query = validate(route.query, rawQuery);
    let body: unknown;
    let rawBody: Uint8Array | undefined;
    if (route.body) {
      rawBody = await readBodyLimited(request, o.bodyLimit);
      const raw = parseJsonBody(rawBody);
      checkInputBounds(raw, '(body)');
      if (raw !== undefined && (raw === null || typeof raw !== 'object' || Array.isArray(raw))) {
        throw ValidationError.invalid('(body)', 'the body must be a JSON object');
      }
      body = validate(route.body, raw ?? undefined);
    }

    const run = async (): Promise<Response> => {
      const result = await route.handler({ request, url, params, query, body, rawBody }, ctx);
      return result instanceof Response ? result : json(result.status, result.body, result.headers);
    };
    // --- Idempotency-Key (./idempotency.ts): replay the stored response of a retried write.
    return o.idempotency ? o.idempotency(request, url, principal, rawBody, run) : run();
  }

  return async function handle(request, remoteAddress) {
    const requestId = requestIdFrom(request);
    const extra = new Headers();
    const end = o.observe?.(request, requestId);
    const seen: Seen = { started: end ? performance.now() : 0 };
    let response: Response;
    try {
      response = await dispatch(request, requestId, remoteAddress, extra, seen);
    } catch (error) {
      if (error instanceof GovernanceError) {
        seen.error = error;
        response = errorResponse(error);
      } else {
        o.onError(error, request);
        response = errorResponse(new GovernanceError('internal_error'));
      }
    }
    const headers = new Headers(response.headers);
    extra.forEach((v, k) => {
      headers.set(k, v);
    });
    headers.set('x-request-id', requestId);
    if (end) reportOutcome(end, request.method, requestId, response.status, seen);
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
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
      errorCode: error?.code ?? (status >= 500 ? 'internal_error' : undefined),
      rateLimitCategory: typeof detail?.category === 'string' ? detail.category : undefined,
    });
  } catch {
    // An observer's failure is its own; the caller still gets the response.
  }
}
