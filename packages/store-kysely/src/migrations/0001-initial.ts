/**
 * `0001_initial`: the audit log (entries partitioned by month, chain heads, checkpoints, the
 * append-only triggers and the anonymization path) and the policies.
 */
import type { Kysely, Migration } from 'kysely';
import { sql } from 'kysely';
import { PARTITION_MONTHS_AHEAD } from './partitions';

export const initial: Migration = {
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
