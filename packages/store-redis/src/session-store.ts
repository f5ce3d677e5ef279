import type { SessionRecord, SessionStore } from '@agentgov/core';
import { type RedisConnection, type RedisLike, resolveConnection } from './redis';

export interface RedisSessionStoreOptions {
  /** Key prefix (default `agentgov:session`); keys are `<prefix>:<idHash>`. */
  keyPrefix?: string;
  /**
   * How long an expired session stays readable (so a request can be told `session_expired`
   * rather than `no_session`) before Redis drops the key. Default 24 h.
   */
  graceSeconds?: number;
  /** Clock for key TTLs (default Date.now). */
  now?: () => number;
}

/** SessionStore on Redis: one JSON value per session under its id hash, with a key TTL. */
export class RedisSessionStore implements SessionStore {
  readonly #redis: RedisLike;
  readonly #owned: boolean;
  readonly #prefix: string;
  readonly #graceMs: number;
  readonly #now: () => number;
  constructor(redis: RedisConnection, options: RedisSessionStoreOptions = {}) {
    const { client, owned } = resolveConnection(redis);
    this.#redis = client;
    this.#owned = owned;
    this.#prefix = options.keyPrefix ?? 'agentgov:session';
    this.#graceMs = (options.graceSeconds ?? 86_400) * 1000;
    this.#now = options.now ?? Date.now;
  }
  #key(idHash: string): string {
    return `${this.#prefix}:${idHash}`;
  }
  async create(session: SessionRecord): Promise<void> {
    const ttl = Math.max(0, Date.parse(session.expiresAt) - this.#now()) + this.#graceMs;
    const res = await this.#redis.set(this.#key(session.idHash), JSON.stringify(session), 'PX', ttl, 'NX');
    if (res !== 'OK') throw new Error('session already exists');
  }
  async get(idHash: string): Promise<SessionRecord | undefined> {
    const raw = await this.#redis.get(this.#key(idHash));
    return raw === null ? undefined : (JSON.parse(raw) as SessionRecord);
  }
  async delete(idHash: string): Promise<boolean> {
    return (await this.#redis.del(this.#key(idHash))) > 0;
  }
  async deleteExpired(now: Date): Promise<number> {
    let cursor = '0';
    let removed = 0;
    do {
      const [next, keys] = await this.#redis.scan(cursor, 'MATCH', `${this.#prefix}:*`, 'COUNT', 500);
      cursor = next;
      for (const key of keys) {
        const raw = await this.#redis.get(key);
        if (raw === null) continue;
        const s = JSON.parse(raw) as SessionRecord;
        if (Date.parse(s.expiresAt) < now.getTime() && (await this.#redis.del(key)) > 0) removed++;
      }
    } while (cursor !== '0');
    return removed;
  }
  /** Quits the client when this store opened it from a URL; a client passed in is left open. */
  async close(): Promise<void> {
    if (this.#owned) await this.#redis.quit();
  }
}
