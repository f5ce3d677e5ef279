/**
 * The RateLimiter port in one process: rate-limiter-flexible's memory limiter (fixed windows),
 * one per distinct limit. The Redis implementation, shared by every process, is
 * `@agentgov/store-redis`.
 */
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { RateLimit, RateLimitDecision, RateLimiter } from './port';

/** In-process limits (one server process), on rate-limiter-flexible's memory limiter. */
export class MemoryRateLimiter implements RateLimiter {
  readonly #limiters = new Map<string, RateLimiterMemory>();
  async consume(key: string, limit: RateLimit): Promise<RateLimitDecision> {
    const id = `${limit.points}/${limit.durationSeconds}`;
    let limiter = this.#limiters.get(id);
    if (!limiter) {
      limiter = new RateLimiterMemory({ points: limit.points, duration: limit.durationSeconds });
      this.#limiters.set(id, limiter);
    }
    try {
      return rateLimitDecisionOf(await limiter.consume(key, 1), true, limit.points);
    } catch (error) {
      if (error instanceof RateLimiterRes) return rateLimitDecisionOf(error, false, limit.points);
      throw error;
    }
  }
}

/** The port's decision for a rate-limiter-flexible answer (allowed, or its RateLimiterRes rejection). */
export function rateLimitDecisionOf(
  res: RateLimiterRes,
  allowed: boolean,
  points: number,
): RateLimitDecision {
  const reset = Math.ceil(res.msBeforeNext / 1000);
  return {
    allowed,
    limit: points,
    remaining: res.remainingPoints,
    resetSeconds: allowed ? reset : Math.max(1, reset),
  };
}

export function createMemoryRateLimiter(): RateLimiter {
  return new MemoryRateLimiter();
}
