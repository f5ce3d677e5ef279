import type { Kysely, Migration } from 'kysely';
import { sql } from 'kysely';

/**
 * `0008_connector_sync`: scheduled pulls of connectors and runs of scheduled jobs.
 * `connectors.sync_failures` (consecutive failed pulls) and `connectors.next_sync_at` (when the
 * next pull is due, also the lease of a pull in progress; null: never pulled, due at once) —
 * `KyselyConnectorStore.claimSync / finishSync`. `scheduled_runs`: one row per run of a job
 * (`KyselyScheduledRunStore`), so a run happens once across processes and restarts.
 */
export const connectorSync: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    const statements = [
      sql`ALTER TABLE connectors ADD COLUMN sync_failures integer NOT NULL DEFAULT 0`,
      sql`ALTER TABLE connectors ADD COLUMN next_sync_at timestamptz`,
      sql`CREATE INDEX connectors_sync_due_idx ON connectors (next_sync_at NULLS FIRST, created_at, id)
        WHERE status <> 'disabled'`,
      sql`CREATE TABLE scheduled_runs (
        tenant_id  text NOT NULL,
        job        text COLLATE "C" NOT NULL,
        run_key    text COLLATE "C" NOT NULL,
        owner      text NOT NULL,
        claimed_at timestamptz NOT NULL,
        PRIMARY KEY (tenant_id, job, run_key)
      )`,
    ];
    for (const s of statements) await s.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await sql`DROP TABLE IF EXISTS scheduled_runs`.execute(db);
    await sql`DROP INDEX IF EXISTS connectors_sync_due_idx`.execute(db);
    await sql`ALTER TABLE connectors DROP COLUMN IF EXISTS next_sync_at`.execute(db);
    await sql`ALTER TABLE connectors DROP COLUMN IF EXISTS sync_failures`.execute(db);
  },
};
