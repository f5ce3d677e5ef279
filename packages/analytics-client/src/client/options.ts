// The client's options and the parameter types every API area shares (call options, paging, dates).
import type { EventStreamOptions } from '../events';
import type { DateInput } from '../params';
import type { RetryOptions } from '../retry';

export const DEFAULT_BASE_URL = 'http://127.0.0.1:3000';
export const DEFAULT_TIMEOUT_MS = 30_000;

export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export interface AnalyticsClientOptions {
  /** Default `http://127.0.0.1:3000`. A path prefix (reverse proxy) is kept. */
  baseUrl?: string | URL;
  /** Injected `fetch` (tests, proxies, custom agents). Default: `globalThis.fetch`. */
  fetch?: FetchLike;
  /** Extra headers on every request (e.g. a proxy's `Authorization`); never copied into errors. */
  headers?: Record<string, string>;
  /** Per-attempt timeout until the response (and, for JSON, its body) arrives. Default 30 s; 0 disables. */
  timeoutMs?: number;
  /** Retry policy for GET/PUT/DELETE on network errors, timeouts and 5xx; `false` disables. */
  retry?: RetryOptions | false;
  /** Injectable sleep used between retries (tests). Must reject when `signal` aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Injectable randomness for jitter (tests). */
  random?: () => number;
  /** Defaults for {@link AnalyticsClient.events}. */
  events?: Omit<EventStreamOptions, 'url' | 'signal'>;
  /** WebSocket URL; default derived from `baseUrl` (`http` -> `ws`, `https` -> `wss`) plus `/ws`. */
  wsUrl?: string | URL;
}

export interface CallOptions {
  signal?: AbortSignal;
  /** Overrides the client's timeout for this call. */
  timeoutMs?: number;
  /** Overrides the client's retry policy for this call (still only for idempotent methods). */
  retry?: RetryOptions | false;
}

export interface PageParams {
  /** Page size, >= 1. The server's default is 50 (and treats negative values as "no limit"). */
  limit?: number;
  offset?: number;
}

export interface IterateOptions extends CallOptions {
  /** Items per request. Default 50. */
  pageSize?: number;
  /** Offset to start from. Default 0. */
  startOffset?: number;
}

export interface DateRange {
  /** Inclusive lower bound. See {@link formatDateParam} for how values are sent. */
  from?: DateInput;
  /** Inclusive upper bound; a `YYYY-MM-DD` day includes that whole (UTC) day. */
  to?: DateInput;
}
