/**
 * The append of ONE record on a known head, as one plain statement with a parameter per column
 * (issue 26): the fast path of `appendRows` (`audit-sql.ts`) for the usual append ×1.
 *
 * `audit_append` (migrations 0006, 0010) decodes its JSON rows parameter, runs a plpgsql body and
 * counts what it inserted: for one record that costs more than the writes. This statement does
 * the same writes in one data-modifying CTE, run as a prepared statement (`prepared.ts`: parsed
 * and planned once per connection):
 *
 * - the compare-and-set of the head: `UPDATE audit_chain_heads … WHERE seq = <expected> AND hash
 *   = <expected> AND <new seq> = <expected seq> + 1 RETURNING`; the row lock it takes serializes
 *   writers as in `audit_append` (a concurrent writer's committed move makes the WHERE false on
 *   the row's new version: nothing is written, the caller gets false and retries locked);
 * - only when that UPDATE returned its row, the INSERT of the entry and of its request-id lookup
 *   row (`FROM h`); one statement, so one implicit transaction: all three or none.
 *
 * Accept-only: `oneRowParams` returns undefined — and the record goes through `audit_append` as
 * before — for anything but a record whose every text column is a well-formed string without NUL,
 * whose seq follows the expected head and links to it, and whose id tells its partition (no
 * `audit_id_index` row: every entry the log appends with its own clock). An empty chain (no
 * expected head) also goes through `audit_append` (its upsert of the head row). What is stored
 * is what `audit_append` stores for the same record (the property test `audit-append-one`).
 */
import type { AuditRecord, ChainHead } from '@agentgov/core';
import { prepared } from './prepared';

/** The statement (parameters: see `oneRowParams`). */
export const APPEND_ONE = prepared(`WITH h AS (
  UPDATE audit_chain_heads SET seq = $4::bigint, hash = $20::text, updated_at = now()
  WHERE tenant_id = $1::text AND seq = $2::bigint AND hash = $3::text AND $4::bigint = $2::bigint + 1
  RETURNING 1
), e AS (
  INSERT INTO audit_entries (tenant_id, seq, id, user_id, "timestamp", action_type, action_detail,
    data_accessed, model_used, model_tokens, data_classification, policy_applied, policy_result,
    policy_reason, outcome, request_id, prev_hash, hash, commitments, leaf)
  SELECT $1::text, $4::bigint, $5::text, $6::text, $7::timestamptz, $8::text, $9::jsonb, $10::jsonb,
    $11::text, $12::jsonb, $13::text, $14::text, $15::text, $16::text, $17::text, $18::text, $19::text,
    $20::text, $21::jsonb, $22::text FROM h
), q AS (
  INSERT INTO audit_request_index (tenant_id, request_id, seq, "timestamp")
  SELECT $1::text, $18::text, $4::bigint, $7::timestamptz FROM h
)
SELECT EXISTS (SELECT FROM h) AS written`);

/** NUL or a lone surrogate (with `u`, a surrogate pair is one code point and does not match). */
const NOT_PLAIN = /[\0\uD800-\uDFFF]/u;

/** A text column's value: a well-formed string without NUL (sent as is), else undefined. */
function text(value: unknown): string | undefined {
  return typeof value === 'string' && !NOT_PLAIN.test(value) ? value : undefined;
}

/** An optional text column (`audit_append` stores NULL / its default for an absent one). */
function optionalText(value: unknown, absent: string | null): string | null | undefined {
  return value === undefined || value === null ? absent : text(value);
}

/**
 * A jsonb column's text, as `audit_append` receives the value inside its JSON rows; undefined for
 * a value that is no JSON or JSON `null` there (`audit_append` reads a JSON null as SQL NULL).
 */
function json(value: unknown): string | undefined {
  const s = JSON.stringify(value);
  return typeof s === 'string' && s !== 'null' ? s : undefined;
}

/**
 * The parameters of `APPEND_ONE` for `record` on `expected`, or undefined when the record is not
 * one the statement takes (it then goes through `audit_append`). The caller has checked that the
 * record's id tells its partition (`idOutsideItsTime` false).
 */
export function oneRowParams(
  tenantId: string,
  expected: ChainHead,
  record: AuditRecord,
): (string | number | null)[] | undefined {
  const e = record.entry;
  if (
    !Number.isSafeInteger(expected.seq) ||
    expected.seq < 1 ||
    record.seq !== expected.seq + 1 ||
    record.prevHash !== expected.hash
  )
    return undefined;
  const columns = [
    text(tenantId),
    text(expected.hash),
    text(e.id),
    text(e.userId),
    text(e.timestamp),
    text(e.actionType),
    text(e.dataClassification),
    text(e.policyApplied),
    text(e.policyResult),
    text(e.outcome),
    text(e.requestId),
    text(record.hash),
  ];
  if (columns.includes(undefined)) return undefined;
  const modelUsed = optionalText(e.modelUsed, null);
  const policyReason = optionalText(e.policyReason, '');
  const leaf = optionalText(record.leaf, null);
  const detail = json(e.actionDetail ?? {});
  const accessed = json(e.dataAccessed ?? []);
  const tokens = e.modelTokens === undefined || e.modelTokens === null ? null : json(e.modelTokens);
  const commitments = json(record.commitments ?? {});
  if (
    modelUsed === undefined ||
    policyReason === undefined ||
    leaf === undefined ||
    detail === undefined ||
    accessed === undefined ||
    tokens === undefined ||
    commitments === undefined
  )
    return undefined;
  return [
    tenantId,
    expected.seq,
    expected.hash,
    record.seq,
    e.id,
    e.userId,
    e.timestamp,
    e.actionType,
    detail,
    accessed,
    modelUsed,
    tokens,
    e.dataClassification,
    e.policyApplied,
    e.policyResult,
    policyReason,
    e.outcome,
    e.requestId,
    record.prevHash,
    record.hash,
    commitments,
    leaf,
  ];
}
