/**
 * The verifier's checks of one record, in order: its seq, its link to the previous record, its
 * content (entry schema, id, tenant, commitments) and its recomputed hash. Each returns the first
 * problem, or undefined.
 */
import { AuditEntrySchema, type AuditRecord, isUlid } from '@agentgov/core';
import { isHash } from './crypto';
import { plainlyValidEntry } from './entry-input';
import { anonymizedPlaceholder, computeRecordHash, isAnonymizedPlaceholder, valueAt } from './records';
import type { Problem } from './verify-report';

/**
 * ULIDs in plain ASCII Crockford base32 (either case): every such string is a ULID to `isUlid`,
 * which is tried only when this does not match (it also accepts characters whose upper case is a
 * base32 digit, and costs a split and a scan per character).
 */
const ASCII_ULID = /^[0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{26}$/;

const pathParts = new Map<string, readonly string[]>();
/** A commitment path split at its dots (remembered: the same few paths recur in every record). */
function partsOf(path: string): readonly string[] {
  let parts = pathParts.get(path);
  if (!parts) {
    parts = path.split('.');
    if (pathParts.size >= 256) pathParts.clear();
    pathParts.set(path, parts);
  }
  return parts;
}

/** Checks one record's content (not its link); returns the first problem. */
function checkContent(
  record: AuditRecord,
  tenantId: string,
  commit: ((clearValue: string) => string) | undefined,
): Problem | undefined {
  const entry = record.entry as unknown;
  if (entry === null || typeof entry !== 'object' || !plainlyValidEntry(entry as Record<string, unknown>)) {
    const parsed = AuditEntrySchema.safeParse(record.entry);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = `entry.${issue?.path.map(String).join('.') ?? ''}`;
      return { reason: 'invalid_entry', field, detail: `${field}: ${issue?.message ?? 'invalid'}` };
    }
  }
  if (!ASCII_ULID.test(record.entry.id) && !isUlid(record.entry.id))
    return { reason: 'invalid_entry', field: 'entry.id', detail: 'entry.id is not a ULID' };
  if (record.entry.tenantId !== tenantId) {
    return {
      reason: 'invalid_entry',
      field: 'entry.tenantId',
      detail: 'record of another tenant in the chain',
      expected: tenantId,
      actual: record.entry.tenantId,
    };
  }
  const commitments = record.commitments as unknown;
  if (commitments === null || typeof commitments !== 'object' || Array.isArray(commitments)) {
    return { reason: 'commitment_mismatch', field: 'commitments', detail: 'commitments is not an object' };
  }
  if (!('userId' in commitments)) {
    return { reason: 'commitment_mismatch', field: 'commitments.userId', detail: 'userId is not committed' };
  }
  for (const path of Object.keys(commitments)) {
    const commitment = (commitments as Record<string, unknown>)[path];
    const value = valueAt(record.entry, partsOf(path));
    // With the key, a clear value that reproduces its commitment passes every check below (the
    // commitment is then a 64-digit hex HMAC): settled without them.
    if (
      commit &&
      typeof value === 'string' &&
      !isAnonymizedPlaceholder(value) &&
      commit(value) === commitment
    )
      continue;
    if (!isHash(commitment)) {
      const field = `commitments.${path}`;
      return { reason: 'commitment_mismatch', field, detail: `${field} is not a 64-digit hex HMAC` };
    }
    if (typeof value !== 'string') {
      return {
        reason: 'commitment_mismatch',
        field: `entry.${path}`,
        detail: `committed path ${path} holds no string`,
      };
    }
    if (isAnonymizedPlaceholder(value)) {
      const expected = anonymizedPlaceholder(commitment);
      if (value !== expected) {
        return {
          reason: 'commitment_mismatch',
          field: `entry.${path}`,
          detail: `anonymized ${path} does not match its commitment`,
          expected,
          actual: value,
        };
      }
    } else if (commit && commit(value) !== commitment) {
      return {
        reason: 'commitment_mismatch',
        field: `entry.${path}`,
        detail: `${path} does not match its commitment (the clear value was changed)`,
      };
    }
  }
  return undefined;
}

/**
 * The first problem of a record expected at `expectedSeq` after a record of hash `prevHash`;
 * `commit` (the tenant's commitment function, when the key is known) checks clear identifiers.
 */
export function checkRecord(
  record: AuditRecord,
  expectedSeq: number,
  prevHash: string,
  tenantId: string,
  commit: ((clearValue: string) => string) | undefined,
): Problem | undefined {
  if (record.seq !== expectedSeq) {
    return {
      reason: 'seq_gap',
      field: 'seq',
      detail: `expected seq ${expectedSeq}, found ${record.seq}`,
      expected: expectedSeq,
      actual: record.seq,
    };
  }
  if (record.prevHash !== prevHash) {
    return {
      reason: 'prev_hash_mismatch',
      field: 'prevHash',
      detail: 'prevHash does not link to the previous record',
      expected: prevHash,
      actual: record.prevHash,
    };
  }
  const problem = checkContent(record, tenantId, commit);
  if (problem) return problem;
  let recomputed: string;
  try {
    recomputed = computeRecordHash(record);
  } catch (error) {
    return { reason: 'invalid_entry', field: 'entry', detail: `not canonicalizable: ${String(error)}` };
  }
  if (recomputed !== record.hash) {
    return {
      reason: 'hash_mismatch',
      field: 'hash',
      detail: 'the stored hash does not match the recomputed hash (a hashed field was changed)',
      expected: recomputed,
      actual: record.hash,
    };
  }
  return undefined;
}
