/**
 * Retry policy: which failures are retried (network errors, per-attempt timeouts, 429, 502, 503, 504),
 * for which methods (idempotent ones unless the caller opts in), how long to wait (jittered
 * exponential backoff, or the server's `Retry-After`), and the total deadline of a call.
 */
export type { RetryOptions } from './input/options';

import type { RetryOptions } from './input/options';

export type ResolvedRetry = Required<RetryOptions>;

/** Statuses that can succeed on a second try. A 500 (e.g. a malformed full-text query) cannot. */
export const RETRY_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

export const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

export function resolveRetry(options: RetryOptions | false | undefined): ResolvedRetry {
  if (options === false) {
    return {
      retries: 0,
      minDelayMs: 0,
      maxDelayMs: 0,
      factor: 2,
      jitter: 'none',
      deadlineMs: 0,
      maxRetryAfterMs: 0,
      nonIdempotent: false,
    };
  }
  return {
    retries: options?.retries ?? 2,
    minDelayMs: options?.minDelayMs ?? 250,
    maxDelayMs: options?.maxDelayMs ?? 5000,
    factor: options?.factor ?? 2,
    jitter: options?.jitter ?? 'full',
    deadlineMs: options?.deadlineMs ?? 60_000,
    maxRetryAfterMs: options?.maxRetryAfterMs ?? 60_000,
    nonIdempotent: options?.nonIdempotent ?? false,
  };
}

/**
 * Delay before retry number `attempt` (1-based): `min(maxDelayMs, minDelayMs * factor^(attempt-1))`,
 * scaled by `random()` in [0, 1) under full jitter.
 */
export function backoffDelay(
  attempt: number,
  options: ResolvedRetry,
  random: () => number = Math.random,
): number {
  const capped = cappedExponential(attempt, options.minDelayMs, options.factor, options.maxDelayMs);
  return options.jitter === 'full' ? Math.floor(capped * random()) : capped;
}

/**
 * `min(maxDelayMs, minDelayMs * factor^(attempt-1))` for a 1-based attempt (an overflow counts as the
 * cap): the exponential backoff shared by HTTP retries and WebSocket reconnects.
 */
export function cappedExponential(
  attempt: number,
  minDelayMs: number,
  factor: number,
  maxDelayMs: number,
): number {
  const exp = minDelayMs * factor ** Math.max(0, attempt - 1);
  return Math.min(maxDelayMs, Number.isFinite(exp) ? exp : maxDelayMs);
}

/**
 * A `Retry-After` header (RFC 9110 §10.2.3) in milliseconds from `nowMs`: delay-seconds (`120`) or
 * an HTTP date (`Wed, 21 Oct 2026 07:28:00 GMT`; a past date is 0). `undefined` when absent or unparsable.
 */
export function parseRetryAfter(value: string | null | undefined, nowMs: number): number | undefined {
  if (value === null || value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  if (!/[a-z]/i.test(trimmed)) return undefined; // "-1", "1.5": not a date either
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}

/** Sleeps `ms`, rejecting with the signal's reason if it aborts first. */
export function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
