import type { InstanceRegistry } from '@agentgov/core';
import { type Kysely, sql } from 'kysely';
import type { Database } from './schema';
import { setExcluded, toNumber } from './sql-util';

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
    const row = { instance_id: instanceId, expires_at: new Date(now.getTime() + ttlMs).toISOString() };
    await this.#db
      .insertInto('gateway_instances')
      .values(row)
      .onConflict((oc) => oc.column('instance_id').doUpdateSet(setExcluded(row, ['instance_id'])))
      .execute();
    const forgetBefore = new Date(now.getTime() - FORGET_AFTER_MS).toISOString();
    await this.#db.deleteFrom('gateway_instances').where('expires_at', '<', forgetBefore).execute();
  }

  async countLive(now: Date): Promise<number> {
    const { n } = await this.#db
      .selectFrom('gateway_instances')
      .select(sql<string>`count(*)::text`.as('n'))
      .where('expires_at', '>', now.toISOString())
      .executeTakeFirstOrThrow();
    return toNumber(n);
  }

  async remove(instanceId: string): Promise<void> {
    await this.#db.deleteFrom('gateway_instances').where('instance_id', '=', instanceId).execute();
  }
}
