/** Retry policy for idempotent requests (GET, PUT, DELETE): exponential backoff with full jitter. */
export interface RetryOptions {
  /** Retries after the first attempt. Default 2; 0 disables retries. */
  retries?: number;
  /** Delay before the first retry (before jitter). Default 250 ms. */
  minDelayMs?: number;
  /** Cap on any single delay. Default 5000 ms. */
  maxDelayMs?: number;
  /** Growth per attempt. Default 2. */
  factor?: number;
  /** `'full'` (default): a uniform delay in [0, backoff]; `'none'`: exactly the backoff. */
  jitter?: 'full' | 'none';
}

export type ResolvedRetry = Required<RetryOptions>;

export function resolveRetry(options: RetryOptions | false | undefined): ResolvedRetry {
  if (options === false) return { retries: 0, minDelayMs: 0, maxDelayMs: 0, factor: 2, jitter: 'none' };
  return {
    retries: options?.retries ?? 2,
    minDelayMs: options?.minDelayMs ?? 250,
    maxDelayMs: options?.maxDelayMs ?? 5000,
    factor: options?.factor ?? 2,
    jitter: options?.jitter ?? 'full',
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

export const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

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
