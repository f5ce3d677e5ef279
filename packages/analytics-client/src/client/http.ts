// The client's HTTP transport: request URLs under the base URL, default and per-call headers, JSON
// bodies, the retry loop (which failures, which methods, `Retry-After`, backoff, the total deadline),
// JSON parsing and schema validation. One attempt (fetch, timeout, hooks) is in ./attempt.
import type { z } from 'zod';
import { AnalyticsApiError, type RedactedRequest, redactRequest } from '../errors';
import { validate } from '../input/common';
import { callOptions } from '../input/options';
import { buildQuery, type QueryValue } from '../params';
import {
  backoffDelay,
  defaultSleep,
  IDEMPOTENT_METHODS,
  type ResolvedRetry,
  type RetryOptions,
  resolveRetry,
} from '../retry';
import { type AttemptEnv, attempt, type Sent } from './attempt';
import type { RequestHookContext } from './hooks';
import { type AnalyticsClientOptions, type CallOptions, DEFAULT_TIMEOUT_MS } from './options';

export interface RequestSpec {
  method: string;
  path: string;
  query?: Record<string, QueryValue>;
  body?: unknown;
  /** The `Accept` header (default `application/json`); the client's and the call's headers override it. */
  accept?: string;
}

type TransportOptions = Pick<
  AnalyticsClientOptions,
  'fetch' | 'headers' | 'timeoutMs' | 'retry' | 'sleep' | 'random' | 'hooks' | 'now' | 'timeoutSignal'
>;

/**
 * `base` with `path` appended to its path (a trailing slash of the base is dropped), the given search
 * string and no fragment; with `protocol`, the scheme is replaced first.
 */
export function joinUrl(base: URL, path: string, search = '', protocol?: string): URL {
  const url = new URL(base.href);
  if (protocol !== undefined) url.protocol = protocol;
  url.pathname = `${url.pathname.replace(/\/$/, '')}${path}`;
  url.search = search;
  url.hash = '';
  return url;
}

export class HttpTransport {
  private readonly env: AttemptEnv;
  private readonly headers: Record<string, string>;
  private readonly timeoutMs: number;
  private readonly retry: RetryOptions | false | undefined;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly random: () => number;

  constructor(
    private readonly baseUrl: URL,
    options: TransportOptions,
  ) {
    // The options were checked by the client (`clientOptions`, which includes the transport's).
    const f = options.fetch ?? globalThis.fetch;
    if (typeof f !== 'function') throw new TypeError('No fetch implementation: pass options.fetch');
    this.env = {
      fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
      hooks: { ...options.hooks },
      now: options.now ?? Date.now,
      timeoutSignal: options.timeoutSignal ?? ((ms) => AbortSignal.timeout(ms)),
    };
    this.headers = { ...options.headers };
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.retry = options.retry;
    this.sleep = options.sleep ?? defaultSleep;
    this.random = options.random ?? Math.random;
  }

  /** Sends, then parses the body as JSON and validates it with `schema` (else `invalid_response`). */
  async json<S extends z.ZodType>(
    spec: RequestSpec,
    schema: S,
    options?: CallOptions,
  ): Promise<{ value: z.output<S>; response: Response }> {
    const { text, request, response } = await this.send(spec, options, true);
    const value = parseJson(text, request, response);
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      throw new AnalyticsApiError({
        kind: 'invalid_response',
        request,
        status: response.status,
        body: text,
        response,
        cause: parsed.error,
      });
    }
    return { value: parsed.data, response };
  }

  /** Sends with hooks, timeout, abort, retries and the deadline; resolves with a 2xx response. */
  async send(
    spec: RequestSpec,
    options: CallOptions | undefined,
    readText: true,
  ): Promise<Sent<string> & { request: RedactedRequest }>;
  async send(
    spec: RequestSpec,
    options: CallOptions | undefined,
    readText: false,
  ): Promise<Sent<undefined> & { request: RedactedRequest }>;
  async send(
    spec: RequestSpec,
    options: CallOptions | undefined,
    readText: boolean,
  ): Promise<Sent<string | undefined> & { request: RedactedRequest }> {
    const method = spec.method.toUpperCase();
    if (options !== undefined) validate(callOptions, options, `${method} ${spec.path}`);
    const url = joinUrl(this.baseUrl, spec.path, spec.query ? buildQuery(spec.query).toString() : '');
    const request = redactRequest(method, url);
    const policy = resolveRetry(mergeRetry(this.retry, options?.retry));
    const retryable = policy.nonIdempotent || IDEMPOTENT_METHODS.has(method);
    const timeoutMs = options?.timeoutMs ?? this.timeoutMs;
    const signal = options?.signal ?? undefined;
    const accept = spec.accept ?? 'application/json';
    const headers = new Headers({ accept, ...this.headers, ...options?.headers });
    let body: string | undefined;
    if (spec.body !== undefined) {
      body = JSON.stringify(spec.body);
      headers.set('content-type', 'application/json');
    }
    const endpoint = `${method} ${spec.path}`;
    const deadline = policy.deadlineMs > 0 ? this.env.now() + policy.deadlineMs : Number.POSITIVE_INFINITY;

    for (let n = 1; ; n++) {
      const ctx: RequestHookContext = {
        method,
        url,
        headers: new Headers(headers),
        body,
        attempt: n,
        endpoint,
        request,
      };
      try {
        const left = deadline - this.env.now();
        if (left <= 0) {
          const cause = new Error(`Deadline of ${policy.deadlineMs} ms exceeded`);
          throw new AnalyticsApiError({ kind: 'timeout', request, attempts: n, cause });
        }
        const limit = Number.isFinite(left) ? Math.ceil(left) : 0;
        const perAttempt = timeoutMs > 0 && limit > 0 ? Math.min(timeoutMs, limit) : timeoutMs || limit;
        const sent = await attempt(this.env, ctx, signal, perAttempt, readText);
        return { ...sent, request };
      } catch (error) {
        if (!(error instanceof AnalyticsApiError)) throw error;
        const delayMs = retryable ? this.retryDelay(error, n, policy, deadline) : undefined;
        if (delayMs === undefined) {
          await this.env.hooks.onError?.({ ...ctx, error });
          throw error;
        }
        await this.env.hooks.onRetry?.({ ...ctx, error, delayMs });
        try {
          await this.sleep(delayMs, signal);
        } catch (cause) {
          const aborted = new AnalyticsApiError({ kind: 'aborted', request, attempts: n, cause });
          await this.env.hooks.onError?.({ ...ctx, error: aborted });
          throw aborted;
        }
      }
    }
  }

  /** The wait before retrying after `error` on attempt `n`, or `undefined` to give up now. */
  private retryDelay(
    error: AnalyticsApiError,
    n: number,
    policy: ResolvedRetry,
    deadline: number,
  ): number | undefined {
    if (!error.isTransient || n > policy.retries) return undefined;
    let delay: number;
    if (error.retryAfterMs !== undefined) {
      if (error.retryAfterMs > policy.maxRetryAfterMs) return undefined;
      delay = error.retryAfterMs;
    } else {
      delay = backoffDelay(n, policy, this.random);
    }
    // A wait that ends at or after the deadline leaves no time for the retry.
    if (this.env.now() + delay >= deadline) return undefined;
    return delay;
  }
}

/** The call's retry options over the client's (field by field); `false` on either level wins for that level. */
function mergeRetry(
  client: RetryOptions | false | undefined,
  call: RetryOptions | false | undefined,
): RetryOptions | false | undefined {
  if (call === undefined) return client;
  if (call === false || client === false || client === undefined) return call;
  return { ...client, ...call };
}

export function parseJson(text: string, request: RedactedRequest, response: Response): unknown {
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new AnalyticsApiError({
      kind: 'invalid_response',
      request,
      status: response.status,
      body: text,
      response,
      cause,
    });
  }
}
