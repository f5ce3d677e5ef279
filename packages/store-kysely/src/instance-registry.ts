import type { InstanceRegistry } from '@agentgov/core';
import { type Kysely, sql } from 'kysely';
import type { Database } from './schema';
import { toNumber, ts } from './sql-util';

/** Rows whose heartbeat expired this long ago are deleted by the next heartbeat (crashed processes). */
const FORGET_AFTER_MS = 86_400_000;

/**
 * `InstanceRegistry` on PostgreSQL / PGlite: `gateway_instances (instance_id → expires_at)`, so
 * every server process sharing the database counts the others. A heartbeat upserts its row and
 * deletes rows expired for more than a day; `countLive` counts rows with `expires_at > now`.
 */
export class KyselyInstanceRegistry implements InstanceRegistry {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async heartbeat(instanceId: string, now: Date, ttlMs: number): Promise<void> {
    const until = new Date(now.getTime() + ttlMs).toISOString();
    await sql`INSERT INTO gateway_instances (instance_id, expires_at) VALUES (${instanceId}, ${ts(until)})
      ON CONFLICT (instance_id) DO UPDATE SET expires_at = EXCLUDED.expires_at`.execute(this.#db);
    const forgetBefore = new Date(now.getTime() - FORGET_AFTER_MS).toISOString();
    await sql`DELETE FROM gateway_instances WHERE expires_at < ${ts(forgetBefore)}`.execute(this.#db);
  }

  async countLive(now: Date): Promise<number> {
    const { rows } = await sql<{ n: string }>`SELECT count(*)::text AS n FROM gateway_instances
      WHERE expires_at > ${ts(now.toISOString())}`.execute(this.#db);
    return toNumber(rows[0]?.n ?? 0);
  }

  async remove(instanceId: string): Promise<void> {
    await sql`DELETE FROM gateway_instances WHERE instance_id = ${instanceId}`.execute(this.#db);
  }
}
