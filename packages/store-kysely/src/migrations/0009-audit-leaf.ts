/**
 * `0009_audit_leaf` (issue 26): each audit entry keeps its leaf — the exact text its hash covers
 * (`@agentgov/audit`'s `recordHashInput`), as Certificate Transparency logs keep their leaves — so
 * the verifier checks the chain over the stored leaves without re-deriving them from the columns
 * (that is `verifyTenant`'s `deep` check).
 *
 * - `audit_entries.leaf text` (NULL for the rows stored before this migration: the verifier
 *   re-derives those from their columns, as it always did);
 * - `audit_append` (same signature as in 0006) stores the leaf of each row from the rows' `l` key.
 *   A caller of an earlier version, which sends no `l`, stores NULL: still verifiable.
 *
 * The append-only trigger covers the new column like every other; erasure (`audit_anonymize`)
 * never touches it: a leaf holds the commitments, never the clear identifiers.
 */
import type { Kysely, Migration } from 'kysely';
import { sql } from 'kysely';

/** The body of `audit_append` with or without the leaf column (`down` restores 0006's; 0010's `down` this one's). */
export function appendFunction(withLeaf: boolean) {
  const leafColumn = withLeaf ? sql`, leaf` : sql``;
  const leafValue = withLeaf ? sql`, l` : sql``;
  const leafKey = withLeaf ? sql`, l text` : sql``;
  return sql`CREATE OR REPLACE FUNCTION audit_append(p_tenant text, p_expected_seq bigint, p_expected_hash text,
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
          ph text, h text, c jsonb, x boolean${leafKey})
      ), entries AS (
        INSERT INTO audit_entries (tenant_id, seq, id, user_id, "timestamp", action_type, action_detail,
          data_accessed, model_used, model_tokens, data_classification, policy_applied, policy_result,
          policy_reason, outcome, request_id, prev_hash, hash, commitments${leafColumn})
        SELECT p_tenant, s, i, u, t, a, ad, da, mu, mt, dc, pa, pr, pn, o, q, ph, h, c${leafValue} FROM r
      ), ids AS (
        INSERT INTO audit_id_index (tenant_id, id, seq, "timestamp")
        SELECT p_tenant, i, s, t FROM r WHERE x
      )
      INSERT INTO audit_request_index (tenant_id, request_id, seq, "timestamp")
        SELECT p_tenant, q, s, t FROM r;
      RETURN true;
    END $$`;
}

export const auditLeaf: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`ALTER TABLE audit_entries ADD COLUMN leaf text`.execute(db);
    await appendFunction(true).execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await appendFunction(false).execute(db);
    await sql`ALTER TABLE audit_entries DROP COLUMN IF EXISTS leaf`.execute(db);
  },
};
