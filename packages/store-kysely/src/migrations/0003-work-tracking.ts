import type { Kysely, Migration } from 'kysely';
import { sql } from 'kysely';

/**
 * `0003_work_tracking`: the WorkTrackingStore of `@agentgov/work-tracking` — processed webhook
 * deliveries (idempotency), the activity they recorded (standups), the tracker-write outbox and
 * the plugin's counters (/metrics).
 */
export const workTracking: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    const statements = [
      sql`CREATE TABLE webhook_deliveries (
        tenant_id   text NOT NULL,
        source      text NOT NULL,
        delivery_id text NOT NULL,
        event       text NOT NULL,
        received_at timestamptz NOT NULL,
        PRIMARY KEY (tenant_id, source, delivery_id)
      )`,
      sql`CREATE TABLE work_activities (
        tenant_id   text NOT NULL,
        id          text COLLATE "C" NOT NULL,
        user_id     text NOT NULL,
        kind        text NOT NULL,
        occurred_at timestamptz NOT NULL,
        source      text NOT NULL,
        delivery_id text NOT NULL,
        subject     text NOT NULL,
        title       text NOT NULL,
        url         text NOT NULL,
        tickets     jsonb NOT NULL,
        detail      jsonb NOT NULL,
        PRIMARY KEY (tenant_id, id)
      )`,
      sql`CREATE INDEX work_activities_user_time_idx ON work_activities (tenant_id, user_id, occurred_at, id)`,
      sql`CREATE TABLE tracker_writes (
        tenant_id       text NOT NULL,
        id              text COLLATE "C" NOT NULL,
        tool            text NOT NULL,
        ticket_id       text NOT NULL,
        comment         text,
        transition_name text,
        state           text NOT NULL,
        attempts        integer NOT NULL,
        next_attempt_at timestamptz NOT NULL,
        last_error      text,
        created_at      timestamptz NOT NULL,
        delivered_at    timestamptz,
        user_id         text NOT NULL,
        request_id      text NOT NULL,
        delivery_id     text NOT NULL,
        policy_applied  text NOT NULL,
        policy_reason   text NOT NULL,
        PRIMARY KEY (tenant_id, id)
      )`,
      // The outbox worker's query: due pending writes of every tenant, oldest first.
      sql`CREATE INDEX tracker_writes_due_idx ON tracker_writes (next_attempt_at, created_at, id) WHERE state = 'pending'`,
      sql`CREATE INDEX tracker_writes_tenant_created_idx ON tracker_writes (tenant_id, created_at, id)`,
      sql`CREATE TABLE work_counters (
        tenant_id text NOT NULL,
        name      text NOT NULL,
        value     bigint NOT NULL,
        PRIMARY KEY (tenant_id, name)
      )`,
    ];
    for (const s of statements) await s.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    for (const t of ['work_counters', 'tracker_writes', 'work_activities', 'webhook_deliveries'])
      await sql`DROP TABLE IF EXISTS ${sql.id(t)}`.execute(db);
  },
};
