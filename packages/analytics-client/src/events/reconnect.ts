// The event stream's reconnect policy and delays (exponential backoff, capped, jittered into [½, 1)).
import { cappedExponential } from '../retry';

export interface ReconnectOptions {
  /** Delay before the first reconnect. Default 500 ms. */
  minDelayMs?: number;
  /** Cap. Default 30 s. */
  maxDelayMs?: number;
  /** Default 2. */
  factor?: number;
  /** Scale each delay by a random factor in [0.5, 1). Default true. */
  jitter?: boolean;
  /** Give up after this many consecutive failed attempts. Default: never. */
  maxAttempts?: number;
}

/** `min(maxDelayMs, minDelayMs * factor^(attempt-1))`, optionally jittered into [half, full). */
export function reconnectDelay(
  attempt: number,
  options: ReconnectOptions = {},
  random: () => number = Math.random,
) {
  const min = options.minDelayMs ?? 500;
  const max = options.maxDelayMs ?? 30_000;
  const factor = options.factor ?? 2;
  const capped = cappedExponential(attempt, min, factor, max);
  return options.jitter === false ? capped : Math.floor(capped * (0.5 + random() / 2));
}
