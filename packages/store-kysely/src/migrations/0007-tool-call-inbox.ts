import type { Kysely, Migration } from 'kysely';
import { sql } from 'kysely';

/**
 * `0007_tool_call_inbox`: the tool calls of `@agentgov/mcp` waiting for a human
 * (`KyselyToolCallInbox`). `tool_approvals`: one row per approval, bound to (tenant, user, policy
 * tool, arguments digest); at most one `pending` row per key (a partial unique index, so two
 * processes asking at once share one approval); `seq` orders rows created in the same instant.
 * `tool_notices`: the calls of `notify` tools.
 */
export const toolCallInbox: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    const statements = [
      sql`CREATE TABLE tool_approvals (
        tenant_id        text NOT NULL,
        id               text NOT NULL,
        seq              bigint GENERATED ALWAYS AS IDENTITY,
        user_id          text NOT NULL,
        tool             text NOT NULL,
        policy_tool      text NOT NULL,
        upstream         text NOT NULL,
        arguments_digest text NOT NULL,
        reason           text NOT NULL,
        status           text NOT NULL
          CHECK (status IN ('pending', 'approved', 'rejected', 'consumed', 'expired')),
        created_at       timestamptz NOT NULL,
        expires_at       timestamptz NOT NULL,
        decided_at       timestamptz,
        decided_by       text,
        note             text,
        consumed_at      timestamptz,
        PRIMARY KEY (tenant_id, id)
      )`,
      sql`CREATE UNIQUE INDEX tool_approvals_one_pending ON tool_approvals
        (tenant_id, user_id, policy_tool, arguments_digest) WHERE status = 'pending'`,
      sql`CREATE INDEX tool_approvals_approved_idx ON tool_approvals
        (tenant_id, user_id, policy_tool, arguments_digest) WHERE status = 'approved'`,
      sql`CREATE INDEX tool_approvals_newest_idx ON tool_approvals (tenant_id, created_at DESC, seq DESC)`,
      sql`CREATE TABLE tool_notices (
        tenant_id        text NOT NULL,
        id               text NOT NULL,
        seq              bigint GENERATED ALWAYS AS IDENTITY,
        user_id          text NOT NULL,
        tool             text NOT NULL,
        upstream         text NOT NULL,
        arguments_digest text NOT NULL,
        outcome          text NOT NULL CHECK (outcome IN ('success', 'error')),
        at               timestamptz NOT NULL,
        PRIMARY KEY (tenant_id, id)
      )`,
      sql`CREATE INDEX tool_notices_newest_idx ON tool_notices (tenant_id, at DESC, seq DESC)`,
    ];
    for (const s of statements) await s.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await sql`DROP TABLE IF EXISTS tool_notices`.execute(db);
    await sql`DROP TABLE IF EXISTS tool_approvals`.execute(db);
  },
};
