/**
 * ActivityTracker on Redis: one sorted set per tenant (member = user id, score = time of the last
 * request in ms), key `<keyPrefix>:active:<tenantId>`, shared by every process on the same Redis.
 *
 * Writes are coalesced, because `touch` runs on every authenticated request: a (tenant, user) pair
 * is written at most once per `coalesceMs` (1 s) by a process. The first touch of a pair is written
 * at once (ZADD + PEXPIRE in one MULTI, one round trip) and awaited; touches of the same pair within
 * the next `coalesceMs` only update an in-process buffer and return without I/O. The buffer is
 * written `coalesceMs` later in one MULTI for all pairs (the latest touch of each), and before every
 * `countActive` of the tenant (in the same MULTI as the count), so a process always counts its own
 * touches exactly and other processes see them at most `coalesceMs` late.
 */
import type { ActivityTracker } from '@agentgov/core';
import { execResults, type RedisConnection, type RedisLike, resolveConnection } from './redis';

const DAY_MS = 86_400_000;

export interface RedisActivityTrackerOptions {
  /** Key prefix (default `agentgov`); keys are `<prefix>:active:<tenantId>`. */
  keyPrefix?: string;
  /** At most one write per (tenant, user) per this many ms (default 1000; 0 writes every touch). */
  coalesceMs?: number;
  /** Key TTL, renewed on every write (default 2 days): a tenant without activity leaves no key. */
  retentionMs?: number;
  /**
   * Called when a buffered (background) write fails. The entries stay buffered and are written
   * with the next attempt, `coalesceMs` later. Default: ignored.
   */
  onError?: (error: unknown) => void;
}

type Pending = Map<string, Map<string, number>>; // tenant → user → time of the latest touch

export class RedisActivityTracker implements ActivityTracker {
  readonly #redis: RedisLike;
  readonly #owned: boolean;
  readonly #prefix: string;
  readonly #coalesceMs: number;
  readonly #retentionMs: number;
  readonly #onError: (error: unknown) => void;
  /** (tenant, user) → touch time of the last write of the pair. */
  readonly #written = new Map<string, number>();
  #pending: Pending = new Map();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #flushing: Promise<void> | undefined;
  #lastSweep = Number.NEGATIVE_INFINITY;

  constructor(redis: RedisConnection, options: RedisActivityTrackerOptions = {}) {
    const { client, owned } = resolveConnection(redis);
    this.#redis = client;
    this.#owned = owned;
    this.#prefix = `${options.keyPrefix ?? 'agentgov'}:active`;
    this.#coalesceMs = options.coalesceMs ?? 1000;
    this.#retentionMs = options.retentionMs ?? 2 * DAY_MS;
    this.#onError = options.onError ?? (() => {});
  }

  #key(tenantId: string): string {
    return `${this.#prefix}:${tenantId}`;
  }

  async touch(tenantId: string, userId: string, now: Date): Promise<void> {
    const t = now.getTime();
    const pair = `${tenantId}\u0000${userId}`;
    const last = this.#written.get(pair);
    if (last !== undefined && Math.abs(t - last) < this.#coalesceMs) {
      let users = this.#pending.get(tenantId);
      if (!users) {
        users = new Map();
        this.#pending.set(tenantId, users);
      }
      users.set(userId, t);
      this.#schedule();
      return;
    }
    this.#written.set(pair, t);
    this.#pending.get(tenantId)?.delete(userId); // this touch is later than the buffered one
    this.#sweep(t);
    try {
      const key = this.#key(tenantId);
      execResults(await this.#redis.multi().zadd(key, t, userId).pexpire(key, this.#retentionMs).exec());
    } catch (error) {
      if (this.#written.get(pair) === t) this.#written.delete(pair);
      throw error;
    }
  }

  async countActive(tenantId: string, since: Date): Promise<number> {
    const users = this.#pending.get(tenantId);
    this.#pending.delete(tenantId);
    const key = this.#key(tenantId);
    const multi = this.#redis.multi();
    if (users?.size) this.#queueWrite(multi, tenantId, users);
    // Callers ask with a non-decreasing `since`: activity a day older than it is never asked for.
    multi.zremrangebyscore(key, '-inf', `(${since.getTime() - DAY_MS}`).zcount(key, since.getTime(), '+inf');
    let results: unknown[];
    try {
      results = execResults(await multi.exec());
    } catch (error) {
      if (users?.size) {
        this.#restore(new Map([[tenantId, users]]));
        this.#schedule();
      }
      throw error;
    }
    return Number(results[results.length - 1]);
  }

  /** Writes every buffered touch now (one MULTI). */
  async flush(): Promise<void> {
    while (this.#flushing) await this.#flushing;
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    const batch = this.#pending;
    this.#pending = new Map();
    if (![...batch.values()].some((users) => users.size > 0)) return;
    const multi = this.#redis.multi();
    for (const [tenantId, users] of batch) if (users.size) this.#queueWrite(multi, tenantId, users);
    const run = (async () => {
      try {
        execResults(await multi.exec());
      } catch (error) {
        this.#restore(batch);
        throw error;
      }
    })();
    this.#flushing = run.then(
      () => {},
      () => {},
    );
    try {
      await run;
    } finally {
      this.#flushing = undefined;
    }
  }

  /** Writes the buffered touches, stops the timer, and quits the client if this tracker opened it. */
  async close(): Promise<void> {
    try {
      await this.flush();
    } finally {
      if (this.#timer !== undefined) clearTimeout(this.#timer);
      this.#timer = undefined;
      if (this.#owned) await this.#redis.quit();
    }
  }

  #queueWrite(multi: ReturnType<RedisLike['multi']>, tenantId: string, users: Map<string, number>): void {
    const key = this.#key(tenantId);
    const scoreMembers: (string | number)[] = [];
    for (const [userId, t] of users) {
      scoreMembers.push(t, userId);
      this.#written.set(`${tenantId}\u0000${userId}`, t);
    }
    multi.zadd(key, ...scoreMembers).pexpire(key, this.#retentionMs);
  }

  /**
   * Puts a batch whose write failed back into the buffer, except the entries a later touch replaced
   * (buffered again, or written directly: either moved the pair's write mark).
   */
  #restore(batch: Pending): void {
    for (const [tenantId, users] of batch) {
      for (const [userId, t] of users) {
        const pair = `${tenantId}\u0000${userId}`;
        let current = this.#pending.get(tenantId);
        if (current?.has(userId) || this.#written.get(pair) !== t) continue;
        if (!current) {
          current = new Map();
          this.#pending.set(tenantId, current);
        }
        current.set(userId, t);
      }
    }
  }

  #schedule(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.flush().catch((error: unknown) => {
        this.#onError(error);
        if (this.#pending.size) this.#schedule();
      });
    }, this.#coalesceMs);
    this.#timer.unref?.();
  }

  /** Forgets write marks that no longer coalesce anything (once a minute of touch time). */
  #sweep(t: number): void {
    if (Math.abs(t - this.#lastSweep) < 60_000) return;
    this.#lastSweep = t;
    for (const [pair, last] of this.#written) {
      if (Math.abs(t - last) >= this.#coalesceMs) this.#written.delete(pair);
    }
  }
}
