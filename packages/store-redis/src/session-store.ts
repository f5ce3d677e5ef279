import type { SessionRecord, SessionStore } from '@agentgov/core';
import { type RedisConnection, type RedisLike, resolveConnection } from './redis';

export interface RedisSessionStoreOptions {
  /**
   * Key prefix (default `agentgov:session`); sessions are `<prefix>:<idHash>`, the per-user index
   * `<prefix>-user:<tenantId>:<userId>` (both ids URI-encoded).
   */
  keyPrefix?: string;
  /**
   * How long an expired session stays readable (so a request can be told `session_expired`
   * rather than `no_session`) before Redis drops the key. Default 24 h.
   */
  graceSeconds?: number;
  /** Clock for key TTLs (default Date.now). */
  now?: () => number;
}

/**
 * SessionStore on Redis: one JSON value per session under its id hash, with a key TTL (so expired
 * sessions leave by themselves, `graceSeconds` after their expiry), and one set per user of their
 * session hashes (for the session list; it expires with the user's longest-lived session and
 * drops members whose session is gone when it is read).
 */
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
  #userKey(tenantId: string, userId: string): string {
    return `${this.#prefix}-user:${encodeURIComponent(tenantId)}:${encodeURIComponent(userId)}`;
  }
  /** Key TTL for an expiry: kept readable `graceSeconds` after it (measured from now if already past). */
  #ttl(expiresAt: string): number {
    return Math.max(0, Date.parse(expiresAt) - this.#now()) + this.#graceMs;
  }
  async create(session: SessionRecord): Promise<void> {
    const ttl = this.#ttl(session.expiresAt);
    const res = await this.#redis.set(this.#key(session.idHash), JSON.stringify(session), 'PX', ttl, 'NX');
    if (res !== 'OK') throw new Error('session already exists');
    const userKey = this.#userKey(session.tenantId, session.userId);
    const longest = Math.max(Date.parse(session.absoluteExpiresAt), Date.parse(session.expiresAt));
    const indexTtl = this.#ttl(new Date(longest).toISOString());
    await this.#redis.sadd(userKey, session.idHash);
    // A new set has no TTL (NX sets it); an existing one only ever lives longer (GT).
    await this.#redis.pexpire(userKey, indexTtl, 'NX');
    await this.#redis.pexpire(userKey, indexTtl, 'GT');
  }
  async get(idHash: string): Promise<SessionRecord | undefined> {
    const raw = await this.#redis.get(this.#key(idHash));
    return raw === null ? undefined : (JSON.parse(raw) as SessionRecord);
  }
  async delete(idHash: string): Promise<boolean> {
    const raw = await this.#redis.get(this.#key(idHash));
    const removed = (await this.#redis.del(this.#key(idHash))) > 0;
    if (raw !== null) {
      const s = JSON.parse(raw) as SessionRecord;
      await this.#redis.srem(this.#userKey(s.tenantId, s.userId), idHash);
    }
    return removed;
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
        if (Date.parse(s.expiresAt) < now.getTime() && (await this.#redis.del(key)) > 0) {
          removed++;
          await this.#redis.srem(this.#userKey(s.tenantId, s.userId), s.idHash);
        }
      }
    } while (cursor !== '0');
    return removed;
  }
  async touch(idHash: string, lastSeenAt: string, expiresAt: string): Promise<boolean> {
    const raw = await this.#redis.get(this.#key(idHash));
    if (raw === null) return false;
    const s: SessionRecord = { ...(JSON.parse(raw) as SessionRecord), lastSeenAt, expiresAt };
    // XX: a session deleted since the read stays deleted (a revocation is never undone).
    const res = await this.#redis.set(this.#key(idHash), JSON.stringify(s), 'PX', this.#ttl(expiresAt), 'XX');
    return res === 'OK';
  }
  async listByUser(tenantId: string, userId: string): Promise<SessionRecord[]> {
    const userKey = this.#userKey(tenantId, userId);
    const hashes = await this.#redis.smembers(userKey);
    const found: SessionRecord[] = [];
    const gone: string[] = [];
    for (const idHash of hashes) {
      const s = await this.get(idHash);
      if (s && s.tenantId === tenantId && s.userId === userId) found.push(s);
      else gone.push(idHash);
    }
    if (gone.length > 0) await this.#redis.srem(userKey, ...gone);
    return found.sort(
      (a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt) || (a.idHash < b.idHash ? -1 : 1),
    );
  }
  /** Quits the client when this store opened it from a URL; a client passed in is left open. */
  async close(): Promise<void> {
    if (this.#owned) await this.#redis.quit();
  }
}
