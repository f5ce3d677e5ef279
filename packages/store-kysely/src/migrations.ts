/**
 * The one migration set shared by PostgreSQL and PGlite, as code objects (a kysely
 * `MigrationProvider`), so the built package never reads migration files at runtime.
 *
 * Every statement is unqualified: it runs in the store's schema because each connection's
 * `search_path` is that schema, and every function pins it with `SET search_path FROM CURRENT`
 * so triggers behave the same whichever session fires them.
 */
import { type Kysely, type Migration, type MigrationProvider, sql } from 'kysely';

/** Months ahead (after the current one) that `ensurePartitions()` and the migration create. */
export const PARTITION_MONTHS_AHEAD = 12;

const initial: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    const statements = [
      // --- audit chain heads: one row per tenant, the per-tenant lock and the authoritative head.
      sql`CREATE TABLE audit_chain_heads (
        tenant_id  text PRIMARY KEY,
        seq        bigint NOT NULL CHECK (seq >= 0),
        hash       text NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`,
      // --- audit entries: every AuditEntry field in its own typed column, partitioned by month.
      sql`CREATE TABLE audit_entries (
        tenant_id           text NOT NULL,
        seq                 bigint NOT NULL CHECK (seq >= 1),
        id                  text NOT NULL,
        user_id             text NOT NULL,
        "timestamp"         timestamptz NOT NULL,
        action_type         text NOT NULL,
        action_detail       jsonb NOT NULL,
        data_accessed       jsonb NOT NULL,
        model_used          text,
        model_tokens        jsonb,
        data_classification text NOT NULL,
        policy_applied      text NOT NULL,
        policy_result       text NOT NULL,
        policy_reason       text NOT NULL,
        outcome             text NOT NULL,
        request_id          text NOT NULL,
        prev_hash           text NOT NULL,
        hash                text NOT NULL,
        commitments         jsonb NOT NULL,
        PRIMARY KEY (tenant_id, seq, "timestamp")
      ) PARTITION BY RANGE ("timestamp")`,
      sql`CREATE TABLE audit_entries_default PARTITION OF audit_entries DEFAULT`,
      sql`CREATE INDEX audit_entries_tenant_user_time_idx ON audit_entries (tenant_id, user_id, "timestamp")`,
      sql`CREATE INDEX audit_entries_tenant_action_time_idx ON audit_entries (tenant_id, action_type, "timestamp")`,
      sql`CREATE INDEX audit_entries_request_id_idx ON audit_entries (request_id)`,
      sql`CREATE INDEX audit_entries_tenant_id_idx ON audit_entries (tenant_id, id)`,

      // --- append-only guard. The single exception: an UPDATE issued by audit_anonymize_apply()
      // (a trigger, so pg_trigger_depth() > 1 — a plain UPDATE statement always runs its row
      // triggers at depth 1), while that function has set the transaction-local flag, and only
      // when nothing but identifier columns changed.
      sql`CREATE FUNCTION audit_mask_identifiers(detail jsonb, commitments jsonb) RETURNS jsonb
        LANGUAGE plpgsql IMMUTABLE SET search_path FROM CURRENT AS $$
        DECLARE p text; path text[];
        BEGIN
          FOR p IN SELECT jsonb_object_keys(commitments) LOOP
            IF left(p, 13) = 'actionDetail.' THEN
              path := string_to_array(substr(p, 14), '.');
              IF detail #> path IS NOT NULL THEN
                detail := jsonb_set(detail, path, 'null'::jsonb, false);
              END IF;
            END IF;
          END LOOP;
          RETURN detail;
        END $$`,
      sql`CREATE FUNCTION audit_rewrite_identifiers(detail jsonb, commitments jsonb, clear text, replacement text)
        RETURNS jsonb LANGUAGE plpgsql IMMUTABLE SET search_path FROM CURRENT AS $$
        DECLARE p text; path text[];
        BEGIN
          FOR p IN SELECT jsonb_object_keys(commitments) LOOP
            IF left(p, 13) = 'actionDetail.' THEN
              path := string_to_array(substr(p, 14), '.');
              IF jsonb_typeof(detail #> path) = 'string' AND detail #>> path = clear THEN
                detail := jsonb_set(detail, path, to_jsonb(replacement), false);
              END IF;
            END IF;
          END LOOP;
          RETURN detail;
        END $$`,
      // Rows as jsonb: a row trigger on a partition sees the partition's row type, not the parent's.
      sql`CREATE FUNCTION audit_only_identifiers_changed(o jsonb, n jsonb) RETURNS boolean
        LANGUAGE sql IMMUTABLE SET search_path FROM CURRENT AS $$
          SELECT (n - 'user_id' - 'action_detail') = (o - 'user_id' - 'action_detail')
             AND audit_mask_identifiers(n -> 'action_detail', o -> 'commitments')
                 IS NOT DISTINCT FROM audit_mask_identifiers(o -> 'action_detail', o -> 'commitments')
        $$`,
      sql`CREATE FUNCTION audit_reject_change() RETURNS trigger
        LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
        BEGIN
          IF TG_OP = 'UPDATE' AND TG_TABLE_NAME LIKE 'audit_entries%'
             AND pg_trigger_depth() > 1
             AND current_setting('agentgov.audit_anonymize', true) = 'on'
             AND audit_only_identifiers_changed(to_jsonb(OLD), to_jsonb(NEW)) THEN
            RETURN NEW;
          END IF;
          RAISE EXCEPTION 'agentgov: % is append-only; % rejected', TG_TABLE_NAME, TG_OP
            USING HINT = 'personal identifiers are erased with audit_anonymize(tenant, user, replacement)';
        END $$`,
      sql`CREATE TRIGGER audit_entries_append_only BEFORE UPDATE OR DELETE ON audit_entries
        FOR EACH ROW EXECUTE FUNCTION audit_reject_change()`,
      sql`CREATE TRIGGER audit_entries_no_truncate BEFORE TRUNCATE ON audit_entries
        FOR EACH STATEMENT EXECUTE FUNCTION audit_reject_change()`,
      sql`CREATE TRIGGER audit_entries_no_truncate BEFORE TRUNCATE ON audit_entries_default
        FOR EACH STATEMENT EXECUTE FUNCTION audit_reject_change()`,

      // --- anonymization path: a row inserted here is never stored (BEFORE trigger returns NULL);
      // the trigger rewrites the identifiers of the tenant's entries and reports the row count.
      sql`CREATE TABLE audit_anonymize_requests (
        tenant_id text NOT NULL, user_id text NOT NULL, replacement text NOT NULL
      )`,
      sql`CREATE FUNCTION audit_anonymize_apply() RETURNS trigger
        LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
        DECLARE n bigint;
        BEGIN
          PERFORM set_config('agentgov.audit_anonymize', 'on', true);
          UPDATE audit_entries e
             SET user_id = CASE WHEN e.user_id = NEW.user_id THEN NEW.replacement ELSE e.user_id END,
                 action_detail = audit_rewrite_identifiers(e.action_detail, e.commitments, NEW.user_id, NEW.replacement)
           WHERE e.tenant_id = NEW.tenant_id
             AND NEW.user_id IS DISTINCT FROM NEW.replacement
             AND (e.user_id = NEW.user_id
                  OR (jsonb_path_exists(e.action_detail, '$.** ? (@ == $u)', jsonb_build_object('u', NEW.user_id))
                      AND audit_rewrite_identifiers(e.action_detail, e.commitments, NEW.user_id, NEW.replacement)
                          IS DISTINCT FROM e.action_detail));
          GET DIAGNOSTICS n = ROW_COUNT;
          PERFORM set_config('agentgov.audit_anonymize', 'off', true);
          PERFORM set_config('agentgov.audit_anonymized_rows', n::text, true);
          RETURN NULL;
        END $$`,
      sql`CREATE TRIGGER audit_anonymize_apply BEFORE INSERT ON audit_anonymize_requests
        FOR EACH ROW EXECUTE FUNCTION audit_anonymize_apply()`,
      sql`CREATE FUNCTION audit_anonymize(p_tenant text, p_user text, p_replacement text) RETURNS bigint
        LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
        BEGIN
          INSERT INTO audit_anonymize_requests (tenant_id, user_id, replacement)
            VALUES (p_tenant, p_user, p_replacement);
          RETURN current_setting('agentgov.audit_anonymized_rows')::bigint;
        END $$`,

      // --- monthly partitions: idempotent, serialized, never blocked by a row in the default
      // partition (such a month is reported 'blocked' and left to the default partition).
      sql`CREATE FUNCTION audit_ensure_partitions(from_ts timestamptz, months_ahead integer DEFAULT 12)
        RETURNS TABLE (partition_name text, status text)
        LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
        DECLARE
          first_month timestamp := date_trunc('month', from_ts AT TIME ZONE 'UTC');
          m timestamp; lo timestamptz; hi timestamptz; name text;
        BEGIN
          PERFORM pg_advisory_xact_lock(hashtext(current_schema() || '.audit_ensure_partitions'));
          FOR i IN 0..months_ahead LOOP
            m  := first_month + make_interval(months => i);
            lo := m AT TIME ZONE 'UTC';
            hi := (m + interval '1 month') AT TIME ZONE 'UTC';
            name := 'audit_entries_p' || to_char(m, 'YYYYMM');
            CONTINUE WHEN to_regclass(quote_ident(name)) IS NOT NULL;
            IF EXISTS (SELECT 1 FROM audit_entries_default d WHERE d."timestamp" >= lo AND d."timestamp" < hi) THEN
              partition_name := name; status := 'blocked'; RETURN NEXT; CONTINUE;
            END IF;
            EXECUTE format('CREATE TABLE %I PARTITION OF audit_entries FOR VALUES FROM (%L) TO (%L)', name, lo, hi);
            EXECUTE format('CREATE TRIGGER audit_entries_no_truncate BEFORE TRUNCATE ON %I
                            FOR EACH STATEMENT EXECUTE FUNCTION audit_reject_change()', name);
            partition_name := name; status := 'created'; RETURN NEXT;
          END LOOP;
        END $$`,

      // --- checkpoints: append-only too.
      sql`CREATE TABLE audit_checkpoints (
        tenant_id text NOT NULL,
        tree_size bigint NOT NULL CHECK (tree_size >= 0),
        root_hash text NOT NULL,
        issued_at timestamptz NOT NULL,
        jws       text NOT NULL,
        PRIMARY KEY (tenant_id, tree_size)
      )`,
      sql`CREATE TRIGGER audit_checkpoints_append_only BEFORE UPDATE OR DELETE ON audit_checkpoints
        FOR EACH ROW EXECUTE FUNCTION audit_reject_change()`,

      // --- policies (tenant on every row).
      sql`CREATE TABLE policies (
        tenant_id     text NOT NULL,
        id            text NOT NULL,
        scope         text NOT NULL,
        scope_id      text NOT NULL,
        domain        text NOT NULL,
        name          text NOT NULL,
        version       text NOT NULL,
        content       text NOT NULL,
        status        text NOT NULL,
        created_by    text NOT NULL,
        created_at    timestamptz NOT NULL,
        updated_at    timestamptz NOT NULL,
        change_reason text NOT NULL,
        PRIMARY KEY (tenant_id, id)
      )`,
      sql`CREATE INDEX policies_tenant_target_idx ON policies (tenant_id, scope, scope_id)`,
      sql`CREATE INDEX policies_tenant_created_idx ON policies (tenant_id, created_at, id)`,

      // Partitions for the current month and the next 12 at migration time.
      sql`SELECT * FROM audit_ensure_partitions(now(), ${sql.lit(PARTITION_MONTHS_AHEAD)})`,
    ];
    for (const statement of statements) await statement.execute(db);
  },
};

/**
 * `0002_stores`: the remaining store ports. Every resource that has a tenant carries `tenant_id`
 * and is keyed by it first; identifiers that lists are ordered by are `COLLATE "C"` (code-point
 * order, like the in-memory stores, and usable by the indexes); nested values are `jsonb`;
 * timestamps are `timestamptz` (read back as text, see `sql-util.ts`).
 */
const stores: Migration = {
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

/** Migration names, in order. */
export const MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0001_initial': initial,
  '0002_stores': stores,
};

/** The migrations as a kysely `MigrationProvider` (code objects, no files). */
export const migrationProvider: MigrationProvider = {
  async getMigrations() {
    return { ...MIGRATIONS };
  },
};
