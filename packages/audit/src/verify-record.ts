/**
 * The verifier's checks of one record, in order: its seq, its link to the previous record, its
 * content (entry schema, id, tenant, commitments) and its recomputed hash. Each returns the first
 * problem, or undefined.
 */
import { AuditEntrySchema, type AuditRecord, getPath, isUlid } from '@agentgov/core';
import { isHash } from './crypto';
import { anonymizedPlaceholder, computeRecordHash, isAnonymizedPlaceholder } from './records';
import type { Problem } from './verify-report';

/** Checks one record's content (not its link); returns the first problem. */
function checkContent(
  record: AuditRecord,
  tenantId: string,
  commit: ((clearValue: string) => string) | undefined,
): Problem | undefined {
  const parsed = AuditEntrySchema.safeParse(record.entry);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = `entry.${issue?.path.map(String).join('.') ?? ''}`;
    return { reason: 'invalid_entry', field, detail: `${field}: ${issue?.message ?? 'invalid'}` };
  }
  if (!isUlid(record.entry.id))
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
  for (const [path, commitment] of Object.entries(commitments as Record<string, unknown>)) {
    const field = `commitments.${path}`;
    if (!isHash(commitment))
      return { reason: 'commitment_mismatch', field, detail: `${field} is not a 64-digit hex HMAC` };
    const value = getPath(record.entry, path);
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
