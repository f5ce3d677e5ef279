/**
 * Rate limits of the spec ("Limits"): one category per route, per tenant (status: per client
 * address). The RateLimiter port comes from core; the two implementations here use
 * rate-limiter-flexible (fixed windows): in-process memory, or Redis shared by every process.
 */
import { GovernanceError, type RateLimit, type RateLimitDecision, type RateLimiter } from '@agentgov/core';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';

export const RATE_LIMIT_CATEGORIES = {
  policy_mutations: { points: 60, durationSeconds: 60 },
  audit_queries: { points: 120, durationSeconds: 60 },
  audit_export: { points: 10, durationSeconds: 60 },
  admin: { points: 60, durationSeconds: 60 },
  system_status: { points: 300, durationSeconds: 60 },
} as const satisfies Record<string, RateLimit>;

export type RateLimitCategory = keyof typeof RATE_LIMIT_CATEGORIES;
export type RateLimitTable = Record<RateLimitCategory, RateLimit>;

/** `RateLimit-*` headers (draft-ietf-httpapi-ratelimit-headers) plus `Retry-After` when refused. */
export function rateLimitHeaders(category: string, limit: RateLimit, d: RateLimitDecision): Headers {
  const h = new Headers();
  h.set('RateLimit-Limit', String(d.limit));
  h.set('RateLimit-Remaining', String(Math.max(0, d.remaining)));
  h.set('RateLimit-Reset', String(Math.max(0, d.resetSeconds)));
  h.set('RateLimit-Policy', `${limit.points};w=${limit.durationSeconds};name="${category}"`);
  if (!d.allowed) h.set('Retry-After', String(Math.max(1, d.resetSeconds)));
  return h;
}

type Flexible = RateLimiterMemory | RateLimiterRedis;

function fromRes(res: RateLimiterRes, allowed: boolean, points: number): RateLimitDecision {
  const reset = Math.ceil(res.msBeforeNext / 1000);
  return {
    allowed,
    limit: points,
    remaining: res.remainingPoints,
    resetSeconds: allowed ? reset : Math.max(1, reset),
  };
}

abstract class FlexibleRateLimiter implements RateLimiter {
  readonly #limiters = new Map<string, Flexible>();
  protected abstract create(limit: RateLimit): Flexible;
  async consume(key: string, limit: RateLimit): Promise<RateLimitDecision> {
    const id = `${limit.points}/${limit.durationSeconds}`;
    let limiter = this.#limiters.get(id);
    if (!limiter) {
      limiter = this.create(limit);
      this.#limiters.set(id, limiter);
    }
    try {
      return fromRes(await limiter.consume(key, 1), true, limit.points);
    } catch (error) {
      if (error instanceof RateLimiterRes) return fromRes(error, false, limit.points);
      throw new GovernanceError('service_unavailable', 'The rate-limit store is unavailable', {
        cause: error,
      });
    }
  }
}

/** In-process limits (one server process). */
export class MemoryRateLimiter extends FlexibleRateLimiter {
  protected create(limit: RateLimit): Flexible {
    return new RateLimiterMemory({ points: limit.points, duration: limit.durationSeconds });
  }
}

/**
 * The part of an ioredis client the Redis-backed helpers use (structural, so the gateway does not
 * depend on a driver): pass `new Redis(process.env.REDIS_URL)`.
 */
export interface RedisLike {
  get(key: string): Promise<string | null>;
  set(key: string, value: string, px: 'PX', milliseconds: number, nx: 'NX'): Promise<'OK' | null>;
  del(key: string): Promise<number>;
  zadd(key: string, score: number, member: string): Promise<unknown>;
  zcount(key: string, min: number | string, max: number | string): Promise<number>;
  zremrangebyscore(key: string, min: number | string, max: number | string): Promise<unknown>;
  zrem(key: string, member: string): Promise<unknown>;
  pexpire(key: string, milliseconds: number): Promise<unknown>;
  scan(
    cursor: string,
    match: 'MATCH',
    pattern: string,
    count: 'COUNT',
    n: number,
  ): Promise<[string, string[]]>;
}

/** Limits shared through Redis by every process using the same `keyPrefix` (an ioredis client). */
export class RedisRateLimiter extends FlexibleRateLimiter {
  readonly #redis: unknown;
  readonly #prefix: string;
  constructor(redis: unknown, options: { keyPrefix?: string } = {}) {
    super();
    this.#redis = redis;
    this.#prefix = options.keyPrefix ?? 'agentgov:rl';
  }
  protected create(limit: RateLimit): Flexible {
    return new RateLimiterRedis({
      storeClient: this.#redis,
      keyPrefix: `${this.#prefix}:${limit.points}:${limit.durationSeconds}`,
      points: limit.points,
      duration: limit.durationSeconds,
      rejectIfRedisNotReady: true,
    });
  }
}

export function createMemoryRateLimiter(): RateLimiter {
  return new MemoryRateLimiter();
}

export function createRedisRateLimiter(redis: unknown, options?: { keyPrefix?: string }): RateLimiter {
  return new RedisRateLimiter(redis, options);
}
