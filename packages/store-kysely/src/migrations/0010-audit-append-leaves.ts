/**
 * `0010_audit_append_leaves` (issue 26): `audit_append` takes the rows' leaves as their own
 * parameter, and reads its JSON rows once.
 *
 * - `p_leaves text DEFAULT NULL`: the leaves of the rows in order, joined by a line feed (LF). A
 *   leaf is canonical JSON, which never holds a raw LF (control characters are escaped), so the
 *   split is exact; the caller sends them this way only when every record has a non-empty leaf
 *   without one (`audit-sql.ts`), else in the rows' `l` key as 0009 did. Inside the JSON
 *   parameter each ~1 kB leaf was a JSON string within JSON (every quote escaped by the caller,
 *   unescaped again by `json_to_recordset`); as one text parameter it is split in one pass.
 * - The count check (as many rows as the head moves) no longer parses the JSON parameter a
 *   second time (`json_array_length`) before the inserts: the rows inserted are counted
 *   (`GET DIAGNOSTICS`) and a mismatch raises the same exception, which rolls back the head
 *   and every row of the call. So do leaves that are not one per row.
 * - The old six-argument signature keeps working (a caller of 0009 sends no `p_leaves`: the default
 *   applies, its leaves come from `l`).
 *
 * What a row stores is unchanged (the same columns, the same leaf text); so are the
 * compare-and-set of the head, the lookup rows, and one implicit transaction per call.
 */
import type { Kysely, Migration } from 'kysely';
import { sql } from 'kysely';
import { appendFunction } from './0009-audit-leaf';

/** The rows' columns in the JSON parameter (keys: see migration 0006; `l` the leaf, 0009). */
const ROW_COLUMNS = sql`s bigint, i text, u text, t timestamptz, a text, ad jsonb, da jsonb, mu text, mt jsonb,
  dc text, pa text, pr text, pn text, o text, q text, ph text, h text, c jsonb, x boolean, l text`;

/** The inserts of one call from the CTE `r` (rows with their leaf in `l`); see 0006 / 0009. */
const INSERTS = sql`entries AS (
    INSERT INTO audit_entries (tenant_id, seq, id, user_id, "timestamp", action_type, action_detail,
      data_accessed, model_used, model_tokens, data_classification, policy_applied, policy_result,
      policy_reason, outcome, request_id, prev_hash, hash, commitments, leaf)
    SELECT p_tenant, s, i, u, t, a, ad, da, mu, mt, dc, pa, pr, pn, o, q, ph, h, c, l FROM r
  ), ids AS (
    INSERT INTO audit_id_index (tenant_id, id, seq, "timestamp")
    SELECT p_tenant, i, s, t FROM r WHERE x
  )
  INSERT INTO audit_request_index (tenant_id, request_id, seq, "timestamp")
    SELECT p_tenant, q, s, t FROM r`;

const HEAD_CAS = sql`IF p_expected_seq = 0 THEN
    INSERT INTO audit_chain_heads AS h (tenant_id, seq, hash) VALUES (p_tenant, p_seq, p_hash)
      ON CONFLICT (tenant_id) DO UPDATE SET seq = EXCLUDED.seq, hash = EXCLUDED.hash, updated_at = now()
      WHERE h.seq = 0 AND h.hash = p_expected_hash;
  ELSE
    UPDATE audit_chain_heads SET seq = p_seq, hash = p_hash, updated_at = now()
      WHERE tenant_id = p_tenant AND seq = p_expected_seq AND hash = p_expected_hash;
  END IF;
  IF NOT FOUND THEN RETURN false; END IF;`;

const COUNT_ERROR = sql`RAISE EXCEPTION 'audit_append: % rows do not move the head of tenant % from seq % to %',
      n, p_tenant, p_expected_seq, p_seq;`;

export const auditAppendLeaves: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`DROP FUNCTION audit_append(text, bigint, text, bigint, text, json)`.execute(db);
    await sql`CREATE FUNCTION audit_append(p_tenant text, p_expected_seq bigint, p_expected_hash text,
        p_seq bigint, p_hash text, p_rows json, p_leaves text DEFAULT NULL) RETURNS boolean
      LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
      DECLARE n bigint; leaves text[];
      BEGIN
        ${HEAD_CAS}
        IF p_leaves IS NULL THEN
          WITH r AS MATERIALIZED (SELECT * FROM json_to_recordset(p_rows) AS r(${ROW_COLUMNS})),
          ${INSERTS};
          GET DIAGNOSTICS n = ROW_COUNT;
        ELSE
          leaves := string_to_array(p_leaves, E'\\n');
          WITH r AS MATERIALIZED (
            SELECT j.s, j.i, j.u, j.t, j.a, j.ad, j.da, j.mu, j.mt, j.dc, j.pa, j.pr, j.pn, j.o, j.q, j.ph,
              j.h, j.c, j.x, lv.l
            FROM ROWS FROM (json_to_recordset(p_rows) AS (${ROW_COLUMNS})) WITH ORDINALITY
              AS j(s, i, u, t, a, ad, da, mu, mt, dc, pa, pr, pn, o, q, ph, h, c, x, l, n)
            LEFT JOIN unnest(leaves) WITH ORDINALITY AS lv(l, n) ON lv.n = j.n
          ),
          ${INSERTS};
          GET DIAGNOSTICS n = ROW_COUNT;
          IF cardinality(leaves) <> n THEN
            RAISE EXCEPTION 'audit_append: % leaves for % rows of tenant %', cardinality(leaves), n, p_tenant;
          END IF;
        END IF;
        IF n <> p_seq - p_expected_seq THEN
          ${COUNT_ERROR}
        END IF;
        RETURN true;
      END $$`.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await sql`DROP FUNCTION IF EXISTS audit_append(text, bigint, text, bigint, text, json, text)`.execute(db);
    await appendFunction(true).execute(db); // 0009's
  },
};
