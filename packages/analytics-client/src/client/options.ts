// The client's options and the options every call takes (the parameter types are inferred from the
// input schemas in src/input/).
import type { EventStreamOptions } from '../events';
import type { RetryOptions } from '../retry';
import type { ClientHooks } from './hooks';

export const DEFAULT_BASE_URL = 'http://127.0.0.1:3000';
export const DEFAULT_TIMEOUT_MS = 30_000;

export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export interface AnalyticsClientOptions {
  /**
   * Default `http://127.0.0.1:3000`. A path prefix (reverse proxy) is kept. Credentials (`user:pw@`) are
   * refused (`fetch` cannot send them): put them in `headers`.
   */
  baseUrl?: string | URL;
  /** Injected `fetch` (tests, proxies, custom agents). Default: `globalThis.fetch`. */
  fetch?: FetchLike;
  /** Default headers on every request (e.g. a proxy's `Authorization`); never copied into errors. */
  headers?: Record<string, string>;
  /** Per-attempt timeout until the response (and, for JSON, its body) arrives. Default 30 s; 0 disables. */
  timeoutMs?: number;
  /**
   * Retry policy: network errors, timeouts, 429, 502, 503, 504; GET/PUT/DELETE only unless
   * `nonIdempotent`; `Retry-After` honoured; a total `deadlineMs`. `false` disables.
   */
  retry?: RetryOptions | false;
  /** `onRequest`/`onResponse`/`onRetry`/`onError`, for logging and metrics. */
  hooks?: ClientHooks;
  /** Injectable sleep used between retries (tests). Must reject when `signal` aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Injectable randomness for jitter (tests). */
  random?: () => number;
  /** Injectable clock in ms (tests): the deadline and `Retry-After` dates. Default `Date.now`. */
  now?: () => number;
  /**
   * Injectable per-attempt timer (tests): the signal that ends an attempt after `ms`. Default
   * `AbortSignal.timeout`. A test expires it when the server holds the request, so no outcome
   * depends on the machine's speed.
   */
  timeoutSignal?: (ms: number) => AbortSignal;
  /** Defaults for {@link AnalyticsClient.events}. */
  events?: Omit<EventStreamOptions, 'url' | 'signal'>;
  /** WebSocket URL; default derived from `baseUrl` (`http` -> `ws`, `https` -> `wss`) plus `/ws`. */
  wsUrl?: string | URL;
}

export interface CallOptions {
  /** Aborts the call: the request in flight or the wait before a retry (`kind: 'aborted'`). */
  signal?: AbortSignal;
  /** Overrides the client's per-attempt timeout for this call (ms; 0 disables). */
  timeoutMs?: number;
  /**
   * This call's retry options, over the client's field by field (`{ nonIdempotent: true }` keeps the
   * client's delays); `false` disables retries for the call. POST/PATCH are retried only with `nonIdempotent`.
   */
  retry?: RetryOptions | false;
  /** Headers for this call, over the client's default headers. */
  headers?: Record<string, string>;
}

export interface IterateOptions extends CallOptions {
  /** Items per request. Default 50. */
  pageSize?: number;
  /** Offset to start from. Default 0. */
  startOffset?: number;
}
