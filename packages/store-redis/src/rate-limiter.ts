/**
 * RateLimiter on Redis: fixed windows through rate-limiter-flexible's `RateLimiterRedis` (one Lua
 * INCR+PTTL per decision), shared by every process using the same Redis and `keyPrefix`.
 *
 * Redis outage: each Redis limiter has an in-process `RateLimiterMemory` as its `insuranceLimiter`.
 * While the connection is not ready (`rejectIfRedisNotReady`: no waiting on a dead socket) or a
 * command fails, the decision comes from the process's memory limiter with the same window, so
 * limits are still enforced — approximately: per process rather than shared, and counting from
 * zero when the outage begins. As soon as the client is ready again, decisions come from Redis
 * again, with the exact shared counts it kept. `consume` therefore no longer throws
 * `service_unavailable` when Redis is away; pass `insurance: false` to get that behaviour back.
 */
import {
  GovernanceError,
  type RateLimit,
  type RateLimitDecision,
  type RateLimiter,
  rateLimitDecisionOf,
} from '@agentgov/core';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { type RedisConnection, type RedisRateLimiterClient, resolveConnection } from './redis';

export interface RedisRateLimiterOptions {
  /** Key prefix (default `agentgov:rl`); keys are `<prefix>:<points>:<durationSeconds>:<key>`. */
  keyPrefix?: string;
  /**
   * The in-process fallback while Redis is unavailable. `true` (default): each process allows the
   * full limit per window on its own. `{ processes: n }`: each process allows
   * `ceil(points / n)` per window, so n processes together stay near the shared limit.
   * `false`: no fallback — `consume` throws `GovernanceError('service_unavailable')` while Redis is
   * unavailable.
   */
  insurance?: boolean | { processes: number };
}

/** Limits shared through Redis by every process using the same `keyPrefix` (an ioredis client or URL). */
export class RedisRateLimiter implements RateLimiter {
  readonly #redis: RedisRateLimiterClient;
  readonly #owned: boolean;
  readonly #prefix: string;
  readonly #insuranceShare: number | undefined;
  readonly #limiters = new Map<string, RateLimiterRedis>();
  constructor(redis: RedisConnection<RedisRateLimiterClient>, options: RedisRateLimiterOptions = {}) {
    const { client, owned } = resolveConnection(redis);
    this.#redis = client;
    this.#owned = owned;
    this.#prefix = options.keyPrefix ?? 'agentgov:rl';
    const insurance = options.insurance ?? true;
    if (insurance === false) this.#insuranceShare = undefined;
    else if (insurance === true) this.#insuranceShare = 1;
    else {
      if (!Number.isInteger(insurance.processes) || insurance.processes < 1)
        throw new RangeError('insurance.processes must be a positive integer');
      this.#insuranceShare = insurance.processes;
    }
  }
  #limiter(limit: RateLimit): RateLimiterRedis {
    const id = `${limit.points}:${limit.durationSeconds}`;
    let limiter = this.#limiters.get(id);
    if (!limiter) {
      const share = this.#insuranceShare;
      limiter = new RateLimiterRedis({
        storeClient: this.#redis,
        keyPrefix: `${this.#prefix}:${id}`,
        points: limit.points,
        duration: limit.durationSeconds,
        rejectIfRedisNotReady: true,
        insuranceLimiter:
          share === undefined
            ? undefined
            : new RateLimiterMemory({
                points: Math.ceil(limit.points / share),
                duration: limit.durationSeconds,
              }),
      });
      this.#limiters.set(id, limiter);
    }
    return limiter;
  }
  async consume(key: string, limit: RateLimit): Promise<RateLimitDecision> {
    try {
      return rateLimitDecisionOf(await this.#limiter(limit).consume(key, 1), true, limit.points);
    } catch (error) {
      if (error instanceof RateLimiterRes) return rateLimitDecisionOf(error, false, limit.points);
      throw new GovernanceError('service_unavailable', 'The rate-limit store is unavailable', {
        cause: error,
      });
    }
  }
  /** Quits the client when this limiter opened it from a URL; a client passed in is left open. */
  async close(): Promise<void> {
    if (this.#owned) await (this.#redis as unknown as { quit(): Promise<unknown> }).quit();
  }
}

export function createRedisRateLimiter(
  redis: RedisConnection<RedisRateLimiterClient>,
  options?: RedisRateLimiterOptions,
): RedisRateLimiter {
  return new RedisRateLimiter(redis, options);
}
