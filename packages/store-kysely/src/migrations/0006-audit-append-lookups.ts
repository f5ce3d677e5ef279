/**
 * `0006_audit_append_lookups` (issue 13): the audit append as one function call, and the two small
 * lookup tables that let a get by id or by request id read one partition instead of all of them.
 *
 * - `audit_append(tenant, expected seq, expected hash, new seq, new hash, rows json)`: moves the
 *   tenant's head in `audit_chain_heads` from the expected head to the new one (compare-and-set; the
 *   row lock it takes serializes writers) and, only when it moved, inserts the rows into
 *   `audit_entries` and the lookup tables — one call, one implicit transaction, one round trip.
 *   False (nothing written) when the head was not the expected one.
 * - `audit_request_index`: request id → (seq, timestamp) of every entry, so a request-id lookup
 *   joins on the entries' primary key and PostgreSQL prunes to the partition of each entry. It
 *   replaces the per-partition `audit_entries_request_id_idx` (a request id was looked up in every
 *   partition's index), so an append still maintains as many indexes as before.
 * - `audit_id_index`: id → (seq, timestamp) of the entries whose id does not tell their partition:
 *   an id that is not a ULID, or whose ULID time is a day or more away from the entry's timestamp
 *   (a caller-given timestamp). Every other entry is found in the partition(s) of its id's time.
 * - `audit_rebuild_lookups()`: fills both tables from `audit_entries`, idempotently (run here for the
 *   entries that exist; again for rows loaded into `audit_entries` without `audit_append`, e.g. by
 *   a process of an earlier version during a rolling upgrade).
 *
 * Both lookup tables are append-only like the entries (the same trigger function).
 */
import type { Kysely, Migration } from 'kysely';
import { sql } from 'kysely';

export const auditAppendLookups: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    const statements = [
      sql`CREATE TABLE audit_request_index (
        tenant_id   text NOT NULL,
        request_id  text NOT NULL,
        seq         bigint NOT NULL,
        "timestamp" timestamptz NOT NULL,
        PRIMARY KEY (tenant_id, request_id, seq) INCLUDE ("timestamp")
      )`,
      sql`CREATE TABLE audit_id_index (
        tenant_id   text NOT NULL,
        id          text NOT NULL,
        seq         bigint NOT NULL,
        "timestamp" timestamptz NOT NULL,
        PRIMARY KEY (tenant_id, id, seq) INCLUDE ("timestamp")
      )`,
      sql`CREATE TRIGGER audit_request_index_append_only BEFORE UPDATE OR DELETE ON audit_request_index
        FOR EACH ROW EXECUTE FUNCTION audit_reject_change()`,
      sql`CREATE TRIGGER audit_request_index_no_truncate BEFORE TRUNCATE ON audit_request_index
        FOR EACH STATEMENT EXECUTE FUNCTION audit_reject_change()`,
      sql`CREATE TRIGGER audit_id_index_append_only BEFORE UPDATE OR DELETE ON audit_id_index
        FOR EACH ROW EXECUTE FUNCTION audit_reject_change()`,
      sql`CREATE TRIGGER audit_id_index_no_truncate BEFORE TRUNCATE ON audit_id_index
        FOR EACH STATEMENT EXECUTE FUNCTION audit_reject_change()`,

      // The milliseconds of a ULID's time (NULL when `id` is not a ULID or its time is beyond a
      // day before the largest timestamp), as `ulidWindow` in audit-sql.ts reads it.
      sql`CREATE FUNCTION audit_ulid_ms(id text) RETURNS bigint
        LANGUAGE plpgsql IMMUTABLE STRICT SET search_path FROM CURRENT AS $$
        DECLARE ms bigint := 0; d integer;
        BEGIN
          IF length(id) <> 26 THEN RETURN NULL; END IF;
          FOR i IN 1..10 LOOP
            d := strpos('0123456789ABCDEFGHJKMNPQRSTVWXYZ', upper(substr(id, i, 1))) - 1;
            IF d < 0 THEN RETURN NULL; END IF;
            ms := ms * 32 + d;
          END LOOP;
          IF ms > 8640000000000000 - 86400000 THEN RETURN NULL; END IF;
          RETURN ms;
        END $$`,
      sql`CREATE FUNCTION audit_rebuild_lookups() RETURNS void
        LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
        BEGIN
          INSERT INTO audit_request_index (tenant_id, request_id, seq, "timestamp")
            SELECT tenant_id, request_id, seq, "timestamp" FROM audit_entries
            ON CONFLICT DO NOTHING;
          INSERT INTO audit_id_index (tenant_id, id, seq, "timestamp")
            SELECT tenant_id, id, seq, "timestamp" FROM audit_entries e
            WHERE NOT coalesce(
              e."timestamp" >= to_timestamp((audit_ulid_ms(e.id) - 86400000) / 1000.0)
                AND e."timestamp" < to_timestamp((audit_ulid_ms(e.id) + 86400000) / 1000.0), false)
            ON CONFLICT DO NOTHING;
        END $$`,
      sql`SELECT audit_rebuild_lookups()`,
      sql`DROP INDEX audit_entries_request_id_idx`,

      // Rows: a JSON array of objects, one per record in seq order: s seq, i id, u user_id,
      // t timestamp, a action_type, ad action_detail, da data_accessed, mu model_used,
      // mt model_tokens, dc data_classification, pa policy_applied, pr policy_result,
      // pn policy_reason, o outcome, q request_id, ph prev_hash, h hash, c commitments,
      // x true when the id does not tell the partition (the row goes to audit_id_index).
      sql`CREATE FUNCTION audit_append(p_tenant text, p_expected_seq bigint, p_expected_hash text,
          p_seq bigint, p_hash text, p_rows json) RETURNS boolean
        LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
        BEGIN
          IF json_array_length(p_rows) <> p_seq - p_expected_seq THEN
            RAISE EXCEPTION 'audit_append: % rows do not move the head of tenant % from seq % to %',
              json_array_length(p_rows), p_tenant, p_expected_seq, p_seq;
          END IF;
          IF p_expected_seq = 0 THEN
            INSERT INTO audit_chain_heads AS h (tenant_id, seq, hash) VALUES (p_tenant, p_seq, p_hash)
              ON CONFLICT (tenant_id) DO UPDATE SET seq = EXCLUDED.seq, hash = EXCLUDED.hash, updated_at = now()
              WHERE h.seq = 0 AND h.hash = p_expected_hash;
          ELSE
            UPDATE audit_chain_heads SET seq = p_seq, hash = p_hash, updated_at = now()
              WHERE tenant_id = p_tenant AND seq = p_expected_seq AND hash = p_expected_hash;
          END IF;
          IF NOT FOUND THEN RETURN false; END IF;
          WITH r AS MATERIALIZED (
            SELECT * FROM json_to_recordset(p_rows) AS r(s bigint, i text, u text, t timestamptz, a text,
              ad jsonb, da jsonb, mu text, mt jsonb, dc text, pa text, pr text, pn text, o text, q text,
              ph text, h text, c jsonb, x boolean)
          ), entries AS (
            INSERT INTO audit_entries (tenant_id, seq, id, user_id, "timestamp", action_type, action_detail,
              data_accessed, model_used, model_tokens, data_classification, policy_applied, policy_result,
              policy_reason, outcome, request_id, prev_hash, hash, commitments)
            SELECT p_tenant, s, i, u, t, a, ad, da, mu, mt, dc, pa, pr, pn, o, q, ph, h, c FROM r
          ), ids AS (
            INSERT INTO audit_id_index (tenant_id, id, seq, "timestamp")
            SELECT p_tenant, i, s, t FROM r WHERE x
          )
          INSERT INTO audit_request_index (tenant_id, request_id, seq, "timestamp")
            SELECT p_tenant, q, s, t FROM r;
          RETURN true;
        END $$`,
    ];
    for (const s of statements) await s.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    const statements = [
      sql`DROP FUNCTION IF EXISTS audit_append(text, bigint, text, bigint, text, json)`,
      sql`CREATE INDEX IF NOT EXISTS audit_entries_request_id_idx ON audit_entries (request_id)`,
      sql`DROP FUNCTION IF EXISTS audit_rebuild_lookups()`,
      sql`DROP FUNCTION IF EXISTS audit_ulid_ms(text)`,
      sql`DROP TABLE IF EXISTS audit_id_index`,
      sql`DROP TABLE IF EXISTS audit_request_index`,
    ];
    for (const s of statements) await s.execute(db);
  },
};
