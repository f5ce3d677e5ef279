// The client's HTTP transport: request URLs under the base URL, headers and JSON bodies, a timeout per
// attempt, the caller's abort signal, retries of idempotent methods with backoff, JSON parsing and
// schema validation, and the mapping of every failure to an AnalyticsApiError.
import type { z } from 'zod';
import { AnalyticsApiError, type RedactedRequest, redactRequest } from '../errors';
import { buildQuery, type QueryValue } from '../params';
import { backoffDelay, defaultSleep, IDEMPOTENT_METHODS, type RetryOptions, resolveRetry } from '../retry';
import { wireError } from '../wire/common';
import { type AnalyticsClientOptions, type CallOptions, DEFAULT_TIMEOUT_MS, type FetchLike } from './options';

export interface RequestSpec {
  method: string;
  path: string;
  query?: Record<string, QueryValue>;
  body?: unknown;
}

type TransportOptions = Pick<
  AnalyticsClientOptions,
  'fetch' | 'headers' | 'timeoutMs' | 'retry' | 'sleep' | 'random'
>;

interface Sent<Text> {
  response: Response;
  text: Text;
  request: RedactedRequest;
}

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
  private readonly fetchImpl: FetchLike;
  private readonly headers: Record<string, string>;
  private readonly timeoutMs: number;
  private readonly retry: RetryOptions | false | undefined;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly random: () => number;

  constructor(
    private readonly baseUrl: URL,
    options: TransportOptions,
  ) {
    const f = options.fetch ?? globalThis.fetch;
    if (typeof f !== 'function') throw new TypeError('No fetch implementation: pass options.fetch');
    this.fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.headers = { ...options.headers };
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.retry = options.retry;
    this.sleep = options.sleep ?? defaultSleep;
    this.random = options.random ?? Math.random;
  }

  /** Sends, then parses the body as JSON and validates it with `schema` (else `invalid_response`). */
  async json<S extends z.ZodType>(spec: RequestSpec, schema: S, options?: CallOptions): Promise<z.output<S>> {
    const { text, request, response } = await this.send(spec, options, true);
    const value = parseJson(text, request, response.status);
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      throw new AnalyticsApiError({
        kind: 'invalid_response',
        request,
        status: response.status,
        body: text,
        cause: parsed.error,
      });
    }
    return parsed.data;
  }

  /**
   * Sends with timeout, abort and retries. Resolves with a 2xx response; with `readText`, the body is
   * read inside the same attempt (so a body cut off mid-way is a retryable network error).
   */
  async send(spec: RequestSpec, options: CallOptions | undefined, readText: true): Promise<Sent<string>>;
  async send(spec: RequestSpec, options: CallOptions | undefined, readText: false): Promise<Sent<undefined>>;
  async send(
    spec: RequestSpec,
    options: CallOptions | undefined,
    readText: boolean,
  ): Promise<Sent<string | undefined>> {
    const method = spec.method.toUpperCase();
    const url = joinUrl(this.baseUrl, spec.path, spec.query ? buildQuery(spec.query).toString() : '');
    const request = redactRequest(method, url);
    const policy = resolveRetry(IDEMPOTENT_METHODS.has(method) ? (options?.retry ?? this.retry) : false);
    const timeoutMs = options?.timeoutMs ?? this.timeoutMs;
    const signal = options?.signal;
    const headers: Record<string, string> = { accept: 'application/json', ...this.headers };
    let body: string | undefined;
    if (spec.body !== undefined) {
      body = JSON.stringify(spec.body);
      headers['content-type'] = 'application/json';
    }

    for (let attempt = 1; ; attempt++) {
      try {
        return await this.attempt(url, method, headers, body, request, signal, timeoutMs, readText, attempt);
      } catch (error) {
        if (!(error instanceof AnalyticsApiError)) throw error;
        if (!error.isTransient || attempt > policy.retries) throw error;
        try {
          await this.sleep(backoffDelay(attempt, policy, this.random), signal);
        } catch (cause) {
          throw new AnalyticsApiError({ kind: 'aborted', request, attempts: attempt, cause });
        }
      }
    }
  }

  private async attempt(
    url: URL,
    method: string,
    headers: Record<string, string>,
    body: string | undefined,
    request: RedactedRequest,
    signal: AbortSignal | undefined,
    timeoutMs: number,
    readText: boolean,
    attempts: number,
  ): Promise<Sent<string | undefined>> {
    const aborted = () =>
      new AnalyticsApiError({ kind: 'aborted', request, attempts, cause: signal?.reason });
    if (signal?.aborted) throw aborted();
    const controller = new AbortController();
    let timedOut = false;
    const onAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    const timer =
      timeoutMs > 0
        ? setTimeout(() => {
            timedOut = true;
            controller.abort(new Error(`Timed out after ${timeoutMs} ms`));
          }, timeoutMs)
        : undefined;
    const classify = (cause: unknown): AnalyticsApiError => {
      if (signal?.aborted) return aborted();
      if (timedOut) return new AnalyticsApiError({ kind: 'timeout', request, attempts, cause });
      return new AnalyticsApiError({ kind: 'network', request, attempts, cause });
    };
    let streaming = false;
    try {
      let response: Response;
      try {
        response = await this.fetchImpl(url.href, { method, headers, body, signal: controller.signal });
      } catch (cause) {
        throw classify(cause);
      }
      if (!response.ok || readText) {
        let text: string;
        try {
          text = await response.text();
        } catch (cause) {
          throw classify(cause);
        }
        if (!response.ok) {
          throw new AnalyticsApiError({
            kind: 'http',
            request,
            attempts,
            status: response.status,
            serverMessage: serverMessage(text),
            body: text,
          });
        }
        return { response, text, request };
      }
      streaming = true;
      return { response, text: undefined, request };
    } finally {
      if (timer !== undefined) clearTimeout(timer);
      // A streamed body stays tied to the caller's signal until it is read.
      if (!streaming) signal?.removeEventListener('abort', onAbort);
    }
  }
}

export function parseJson(text: string, request: RedactedRequest, status: number): unknown {
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new AnalyticsApiError({ kind: 'invalid_response', request, status, body: text, cause });
  }
}

/** `{"error": "..."}` -> its text; a plain-text body (`404 page not found`) -> the trimmed text. */
export function serverMessage(body: string): string | undefined {
  const trimmed = body.trim();
  if (trimmed === '') return undefined;
  try {
    const parsed = wireError.safeParse(JSON.parse(trimmed));
    if (parsed.success) return parsed.data.error;
  } catch {
    // not JSON: fall through to plain text
  }
  if (trimmed.startsWith('<')) return undefined; // an HTML page says nothing useful
  return trimmed.length > 200 ? `${trimmed.slice(0, 200)}…` : trimmed;
}
