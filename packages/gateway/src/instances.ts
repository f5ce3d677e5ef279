/**
 * InstanceRegistry: which gateway processes are alive (for a tenant's `gatewayInstances`), from a
 * heartbeat each process writes every `heartbeatMs` (unref'd timer). An instance is live while its
 * last heartbeat is younger than its TTL (3 × the interval). Implementations: memory (one process,
 * `@agentgov/core`), Redis (processes sharing Redis, here), SQL (`@agentgov/store-kysely`).
 *
 * ActivityTracker: which users made an authenticated request recently (`activeUsers` of /metrics).
 */
import type { InstanceRegistry } from '@agentgov/core';
import type { RedisLike } from './rate-limit';

/** Instances in one Redis sorted set (member = instance id, score = expiry in ms). */
export class RedisInstanceRegistry implements InstanceRegistry {
  readonly #redis: RedisLike;
  readonly #key: string;
  constructor(redis: RedisLike, options: { keyPrefix?: string } = {}) {
    this.#redis = redis;
    this.#key = `${options.keyPrefix ?? 'agentgov'}:instances`;
  }
  async heartbeat(instanceId: string, now: Date, ttlMs: number): Promise<void> {
    await this.#redis.zadd(this.#key, now.getTime() + ttlMs, instanceId);
    await this.#redis.zremrangebyscore(this.#key, '-inf', now.getTime() - 86_400_000);
  }
  async countLive(now: Date): Promise<number> {
    return this.#redis.zcount(this.#key, `(${now.getTime()}`, '+inf');
  }
  async remove(instanceId: string): Promise<void> {
    await this.#redis.zrem(this.#key, instanceId);
  }
}

export interface ActivityTracker {
  /** Records an authenticated request of `userId` at `now`. */
  touch(tenantId: string, userId: string, now: Date): Promise<void>;
  /** Distinct users of the tenant with a request at or after `since`. */
  countActive(tenantId: string, since: Date): Promise<number>;
}

export class InMemoryActivityTracker implements ActivityTracker {
  readonly #seen = new Map<string, Map<string, number>>();
  async touch(tenantId: string, userId: string, now: Date): Promise<void> {
    let t = this.#seen.get(tenantId);
    if (!t) {
      t = new Map();
      this.#seen.set(tenantId, t);
    }
    t.set(userId, now.getTime());
  }
  async countActive(tenantId: string, since: Date): Promise<number> {
    const t = this.#seen.get(tenantId);
    if (!t) return 0;
    let n = 0;
    for (const [u, at] of t) {
      if (at >= since.getTime()) n++;
      else t.delete(u);
    }
    return n;
  }
}

/** Activity in one Redis sorted set per tenant (member = user id, score = last request in ms). */
export class RedisActivityTracker implements ActivityTracker {
  readonly #redis: RedisLike;
  readonly #prefix: string;
  constructor(redis: RedisLike, options: { keyPrefix?: string } = {}) {
    this.#redis = redis;
    this.#prefix = `${options.keyPrefix ?? 'agentgov'}:active`;
  }
  async touch(tenantId: string, userId: string, now: Date): Promise<void> {
    const key = `${this.#prefix}:${tenantId}`;
    await this.#redis.zadd(key, now.getTime(), userId);
    await this.#redis.pexpire(key, 2 * 86_400_000);
  }
  async countActive(tenantId: string, since: Date): Promise<number> {
    const key = `${this.#prefix}:${tenantId}`;
    await this.#redis.zremrangebyscore(key, '-inf', `(${since.getTime() - 86_400_000}`);
    return this.#redis.zcount(key, since.getTime(), '+inf');
  }
}
