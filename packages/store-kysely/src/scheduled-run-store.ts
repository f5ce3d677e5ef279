import type { ScheduledRun, ScheduledRunStore } from '@agentgov/core';
import { type Kysely, sql } from 'kysely';
import type { Database, ScheduledRunsTable, StoredRow } from './schema';
import { isoFromText, isoText } from './sql-util';

/**
 * `ScheduledRunStore` on PostgreSQL / PGlite: `scheduled_runs`, one row per run keyed by
 * (tenant_id, job, run_key); a claim is an `INSERT … ON CONFLICT DO NOTHING`, so of concurrent
 * claims of one run exactly one inserts.
 */
export class KyselyScheduledRunStore implements ScheduledRunStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async claim(run: ScheduledRun): Promise<boolean> {
    const r = await this.#db
      .insertInto('scheduled_runs')
      .values({
        tenant_id: run.tenantId,
        job: run.job,
        run_key: run.key,
        owner: run.owner,
        claimed_at: run.claimedAt,
      })
      .onConflict((oc) => oc.columns(['tenant_id', 'job', 'run_key']).doNothing())
      .executeTakeFirst();
    return (r.numInsertedOrUpdatedRows ?? 0n) > 0n;
  }

  async release(tenantId: string, job: string, key: string): Promise<boolean> {
    const r = await this.#db
      .deleteFrom('scheduled_runs')
      .where('tenant_id', '=', tenantId)
      .where('job', '=', job)
      .where('run_key', '=', key)
      .executeTakeFirst();
    return r.numDeletedRows > 0n;
  }

  async get(tenantId: string, job: string, key: string): Promise<ScheduledRun | undefined> {
    const { rows } = await sql<StoredRow<ScheduledRunsTable>>`SELECT tenant_id, job, run_key, owner,
      ${isoText('claimed_at')} AS claimed_at_text FROM scheduled_runs
      WHERE tenant_id = ${tenantId} AND job = ${job} AND run_key = ${key}`.execute(this.#db);
    const row = rows[0];
    return (
      row && {
        tenantId: row.tenant_id,
        job: row.job,
        key: row.run_key,
        owner: row.owner,
        claimedAt: isoFromText(row.claimed_at_text),
      }
    );
  }
}
