import type { IdempotencyBegin, IdempotencyScope, IdempotencyStore, StoredResponse } from '@agentgov/core';
import { type Kysely, sql } from 'kysely';
import type { Database } from './schema';
import { jsonb } from './sql-util';

interface Row {
  fingerprint: string;
  response_status: number | null;
  response_headers: Record<string, string> | null;
  response_body: string | null;
}

/**
 * `IdempotencyStore` on PostgreSQL / PGlite (table `idempotency_keys`, migration
 * `0004_idempotency`). `begin` is one `INSERT … ON CONFLICT DO UPDATE … WHERE expired`: the
 * database serialises concurrent claims of one key, so exactly one request — in any process —
 * holds it.
 */
export class KyselyIdempotencyStore implements IdempotencyStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async begin(
    scope: IdempotencyScope,
    fingerprint: string,
    now: Date,
    lockUntil: Date,
  ): Promise<IdempotencyBegin> {
    const { tenantId, principalId, key } = scope;
    // A live row can expire (and be deleted) between the claim and the read: then claim again.
    for (let attempt = 0; attempt < 3; attempt++) {
      const claimed = await sql<{ claimed: number }>`INSERT INTO idempotency_keys
          (tenant_id, principal_id, key, fingerprint, expires_at)
        VALUES (${tenantId}, ${principalId}, ${key}, ${fingerprint}, ${lockUntil.toISOString()})
        ON CONFLICT (tenant_id, principal_id, key) DO UPDATE SET
          fingerprint = EXCLUDED.fingerprint, expires_at = EXCLUDED.expires_at,
          response_status = NULL, response_headers = NULL, response_body = NULL
        WHERE idempotency_keys.expires_at <= ${now.toISOString()}::timestamptz
        RETURNING 1 AS claimed`.execute(this.#db);
      if (claimed.rows.length > 0) return { state: 'started' };
      const { rows } = await sql<Row>`SELECT fingerprint, response_status, response_headers, response_body
        FROM idempotency_keys
        WHERE tenant_id = ${tenantId} AND principal_id = ${principalId} AND key = ${key}
          AND expires_at > ${now.toISOString()}::timestamptz`.execute(this.#db);
      const row = rows[0];
      if (!row) continue;
      if (row.response_status === null) return { state: 'in_flight', fingerprint: row.fingerprint };
      const response: StoredResponse = {
        status: row.response_status,
        headers: row.response_headers ?? {},
        body: row.response_body ?? '',
      };
      return { state: 'completed', fingerprint: row.fingerprint, response };
    }
    throw new Error('idempotency key claim did not settle');
  }

  async complete(scope: IdempotencyScope, response: StoredResponse, expiresAt: Date): Promise<void> {
    const result = await sql`UPDATE idempotency_keys SET
        response_status = ${response.status}, response_headers = ${jsonb(response.headers)},
        response_body = ${response.body}, expires_at = ${expiresAt.toISOString()}
      WHERE tenant_id = ${scope.tenantId} AND principal_id = ${scope.principalId} AND key = ${scope.key}`.execute(
      this.#db,
    );
    if (Number(result.numAffectedRows ?? 0n) === 0) {
      throw new Error('no in-flight request holds this idempotency key');
    }
  }

  async release(scope: IdempotencyScope): Promise<void> {
    await sql`DELETE FROM idempotency_keys
      WHERE tenant_id = ${scope.tenantId} AND principal_id = ${scope.principalId} AND key = ${scope.key}
        AND response_status IS NULL`.execute(this.#db);
  }

  async deleteExpired(now: Date): Promise<number> {
    const result = await sql`DELETE FROM idempotency_keys
      WHERE expires_at <= ${now.toISOString()}::timestamptz`.execute(this.#db);
    return Number(result.numAffectedRows ?? 0n);
  }
}
