import type { Kysely, Migration } from 'kysely';
import { sql } from 'kysely';

/**
 * `0004_idempotency`: the responses of requests sent with an `Idempotency-Key` header
 * (`KyselyIdempotencyStore`), one row per (tenant, principal, key). A row without a response is a
 * request in flight; `expires_at` is its lock's end, or the end of the response's 24 hours.
 */
export const idempotency: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`CREATE TABLE idempotency_keys (
      tenant_id        text NOT NULL,
      principal_id     text NOT NULL,
      key              text NOT NULL,
      fingerprint      text NOT NULL,
      expires_at       timestamptz NOT NULL,
      response_status  integer,
      response_headers jsonb,
      response_body    text,
      PRIMARY KEY (tenant_id, principal_id, key)
    )`.execute(db);
    await sql`CREATE INDEX idempotency_keys_expires_idx ON idempotency_keys (expires_at)`.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await sql`DROP TABLE idempotency_keys`.execute(db);
  },
};
