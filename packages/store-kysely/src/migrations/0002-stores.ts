import type { Kysely, Migration } from 'kysely';
import { sql } from 'kysely';

/**
 * `0002_stores`: the remaining store ports. Every resource that has a tenant carries `tenant_id`
 * and is keyed by it first; identifiers that lists are ordered by are `COLLATE "C"` (code-point
 * order, like the in-memory stores, and usable by the indexes); nested values are `jsonb`;
 * timestamps are `timestamptz` (read back as text, see `sql-util.ts`).
 */
export const stores: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    const statements = [
      sql`CREATE TABLE tenants (
        id         text COLLATE "C" PRIMARY KEY,
        name       text NOT NULL,
        status     text NOT NULL,
        created_at timestamptz NOT NULL
      )`,

      sql`CREATE TABLE connectors (
        tenant_id              text NOT NULL,
        id                     text COLLATE "C" NOT NULL,
        type                   text NOT NULL,
        user_id                text,
        permissions            text NOT NULL,
        default_classification text NOT NULL,
        status                 text NOT NULL,
        credentials_ref        text NOT NULL,
        last_sync_at           timestamptz,
        error_details          text,
        config                 jsonb NOT NULL,
        created_at             timestamptz NOT NULL,
        PRIMARY KEY (tenant_id, id)
      )`,
      sql`CREATE INDEX connectors_tenant_created_idx ON connectors (tenant_id, created_at, id)`,

      // Sessions: keyed by the SHA-256 of the session id (the id itself is never stored).
      sql`CREATE TABLE sessions (
        id_hash    text PRIMARY KEY,
        tenant_id  text NOT NULL,
        user_id    text NOT NULL,
        email      text NOT NULL,
        roles      jsonb NOT NULL,
        org_unit   text,
        team       text,
        created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL
      )`,
      sql`CREATE INDEX sessions_expires_idx ON sessions (expires_at)`,
      sql`CREATE INDEX sessions_tenant_user_idx ON sessions (tenant_id, user_id)`,

      sql`CREATE TABLE exchanges (
        tenant_id            text NOT NULL,
        exchange_id          text COLLATE "C" NOT NULL,
        conversation_id      text NOT NULL,
        initiator_agent_id   text NOT NULL,
        initiator_user_id    text NOT NULL,
        responder_agent_id   text NOT NULL,
        responder_user_id    text NOT NULL,
        exchange_type        text NOT NULL,
        current_round        integer NOT NULL,
        max_rounds           integer NOT NULL,
        classification_level text NOT NULL,
        outcome              text NOT NULL,
        escalation_reason    text,
        data_shared          jsonb NOT NULL,
        data_withheld        jsonb NOT NULL,
        policy_applied       text NOT NULL,
        transcript           jsonb NOT NULL,
        channel              text NOT NULL,
        started_at           timestamptz NOT NULL,
        ended_at             timestamptz,
        PRIMARY KEY (tenant_id, exchange_id)
      )`,
      sql`CREATE INDEX exchanges_tenant_conversation_idx ON exchanges (tenant_id, conversation_id, started_at, exchange_id)`,

      sql`CREATE TABLE tasks (
        tenant_id              text NOT NULL,
        id                     text COLLATE "C" NOT NULL,
        user_id                text NOT NULL,
        title                  text NOT NULL,
        description            text NOT NULL,
        priority_score         integer NOT NULL,
        status                 text NOT NULL,
        sources                jsonb NOT NULL,
        correlation_id         text,
        correlation_confidence double precision,
        deadline               timestamptz,
        urgency_signals        jsonb NOT NULL,
        classification         text NOT NULL,
        discovered_at          timestamptz NOT NULL,
        completed_at           timestamptz,
        archived_at            timestamptz,
        purge_at               timestamptz,
        PRIMARY KEY (tenant_id, id)
      )`,
      sql`CREATE INDEX tasks_tenant_discovered_idx ON tasks (tenant_id, discovered_at, id)`,
      sql`CREATE INDEX tasks_tenant_user_discovered_idx ON tasks (tenant_id, user_id, discovered_at, id)`,
      sql`CREATE INDEX tasks_purge_idx ON tasks (purge_at) WHERE purge_at IS NOT NULL`,

      sql`CREATE TABLE briefings (
        tenant_id             text NOT NULL,
        id                    text COLLATE "C" NOT NULL,
        user_id               text NOT NULL,
        generated_at          timestamptz NOT NULL,
        tasks                 jsonb NOT NULL,
        time_blocks           jsonb NOT NULL,
        auto_response_summary jsonb NOT NULL,
        org_news_items        jsonb NOT NULL,
        doc_change_alerts     jsonb NOT NULL,
        alerts                jsonb NOT NULL,
        connector_status      jsonb NOT NULL,
        delivery_channel      text NOT NULL,
        delivered_at          timestamptz,
        PRIMARY KEY (tenant_id, id)
      )`,
      sql`CREATE INDEX briefings_tenant_user_generated_idx ON briefings (tenant_id, user_id, generated_at, id)`,

      sql`CREATE TABLE classifications (
        tenant_id       text NOT NULL,
        data_ref        text COLLATE "C" NOT NULL,
        level           text NOT NULL,
        assigned_by     text NOT NULL,
        original_level  text,
        override_by     text,
        override_reason text,
        assessed_at     timestamptz NOT NULL,
        PRIMARY KEY (tenant_id, data_ref)
      )`,
      sql`CREATE INDEX classifications_tenant_level_idx ON classifications (tenant_id, level, data_ref)`,

      // Org directory learned from claims: orgs, teams (with their org, when known), user placements.
      sql`CREATE TABLE directory_orgs (
        tenant_id text NOT NULL,
        org_id    text COLLATE "C" NOT NULL,
        PRIMARY KEY (tenant_id, org_id)
      )`,
      sql`CREATE TABLE directory_teams (
        tenant_id text NOT NULL,
        team_id   text COLLATE "C" NOT NULL,
        org_id    text,
        PRIMARY KEY (tenant_id, team_id)
      )`,
      sql`CREATE INDEX directory_teams_org_idx ON directory_teams (tenant_id, org_id)`,
      sql`CREATE TABLE directory_users (
        tenant_id text NOT NULL,
        user_id   text COLLATE "C" NOT NULL,
        org_id    text,
        team_id   text,
        PRIMARY KEY (tenant_id, user_id)
      )`,
      sql`CREATE INDEX directory_users_team_idx ON directory_users (tenant_id, team_id)`,
      sql`CREATE INDEX directory_users_org_idx ON directory_users (tenant_id, org_id)`,

      // Live gateway processes sharing this database (not tenant-scoped: a process serves all).
      sql`CREATE TABLE gateway_instances (
        instance_id text PRIMARY KEY,
        expires_at  timestamptz NOT NULL
      )`,
      sql`CREATE INDEX gateway_instances_expires_idx ON gateway_instances (expires_at)`,
    ];
    for (const statement of statements) await statement.execute(db);
  },
};
