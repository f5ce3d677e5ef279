import type { InstanceRegistry } from '@agentgov/core';
import { execResults, type RedisConnection, type RedisLike, resolveConnection } from './redis';

/**
 * InstanceRegistry on Redis: the live server processes sharing one Redis, in one sorted set
 * (member = instance id, score = expiry in ms). Key: `<keyPrefix>:instances` (default
 * `agentgov:instances`).
 */
export class RedisInstanceRegistry implements InstanceRegistry {
  readonly #redis: RedisLike;
  readonly #owned: boolean;
  readonly #key: string;
  constructor(redis: RedisConnection, options: { keyPrefix?: string } = {}) {
    const { client, owned } = resolveConnection(redis);
    this.#redis = client;
    this.#owned = owned;
    this.#key = `${options.keyPrefix ?? 'agentgov'}:instances`;
  }
  async heartbeat(instanceId: string, now: Date, ttlMs: number): Promise<void> {
    // One round trip: record this instance, forget instances gone for more than a day.
    const reply = await this.#redis
      .multi()
      .zadd(this.#key, now.getTime() + ttlMs, instanceId)
      .zremrangebyscore(this.#key, '-inf', now.getTime() - 86_400_000)
      .exec();
    execResults(reply);
  }
  async countLive(now: Date): Promise<number> {
    return this.#redis.zcount(this.#key, `(${now.getTime()}`, '+inf');
  }
  async remove(instanceId: string): Promise<void> {
    await this.#redis.zrem(this.#key, instanceId);
  }
  /** Quits the client when this registry opened it from a URL; a client passed in is left open. */
  async close(): Promise<void> {
    if (this.#owned) await this.#redis.quit();
  }
}
