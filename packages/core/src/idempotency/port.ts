import type { IdempotencyBegin, IdempotencyScope, StoredResponse } from './schema';

/**
 * Stored responses of keyed requests (the `Idempotency-Key` header). A record is either in flight
 * (a request holds the key) or completed (its response is kept for replay); both carry an expiry,
 * after which the record counts as absent. Implementations: memory (one process), SQL
 * (`@agentgov/store-kysely`, shared by every process on the database).
 */
export interface IdempotencyStore {
  /**
   * Atomically claims the key for a request with `fingerprint` until `lockUntil`, unless a live
   * (unexpired at `now`) record exists — then that record's state is returned unchanged. An
   * expired record is replaced. Two concurrent calls for one key: exactly one gets `started`.
   */
  begin(scope: IdempotencyScope, fingerprint: string, now: Date, lockUntil: Date): Promise<IdempotencyBegin>;
  /** Stores the response of the request holding the key, kept until `expiresAt`. */
  complete(scope: IdempotencyScope, response: StoredResponse, expiresAt: Date): Promise<void>;
  /** Drops an in-flight record (the request ended without a response worth keeping); a completed record stays. */
  release(scope: IdempotencyScope): Promise<void>;
  /** Removes every record that expired at or before `now`; returns how many. */
  deleteExpired(now: Date): Promise<number>;
}
