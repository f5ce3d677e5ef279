/**
 * How one record of the chain is computed: identifier commitments, the hash input, the hash.
 *
 * hash = SHA-256 hex of the canonical JSON (RFC 8785) of
 *   { commitments, entry: committedEntry, prevHash, seq }
 * where `committedEntry` is the entry with the value at every committed path replaced by its
 * commitment HMAC-SHA256(tenantKey, clearValue) (hex). The clear identifiers never enter the
 * hash, so anonymization can replace them; the commitments map itself is covered, so no path
 * can be silently un-committed.
 */
import type { AuditEntry, AuditRecord } from '@agentgov/core';
import { getPath } from '@agentgov/core';
import { canonicalJson, hmacHex, sha256Hex } from './crypto';

/**
 * Paths of personal identifiers that are committed when they hold a string. `userId` always
 * does; the `actionDetail` ones cover the exchange sides, approvers and policy authors.
 */
export const PERSONAL_IDENTIFIER_PATHS: readonly string[] = Object.freeze([
  'userId',
  'actionDetail.userId',
  'actionDetail.initiatorUserId',
  'actionDetail.responderUserId',
  'actionDetail.approverUserId',
  'actionDetail.requesterUserId',
  'actionDetail.targetUserId',
  'actionDetail.subjectUserId',
  'actionDetail.assigneeUserId',
  'actionDetail.createdBy',
]);

/** Prefix of anonymization placeholders; clear identifiers may not start with it. */
export const ANONYMIZED_PREFIX = 'anon:';

/** The placeholder that replaces an erased identifier: `anon:` + first 16 hex digits of its commitment. */
export function anonymizedPlaceholder(commitment: string): string {
  return `${ANONYMIZED_PREFIX}${commitment.slice(0, 16)}`;
}

export function isAnonymizedPlaceholder(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith(ANONYMIZED_PREFIX);
}

export function commitmentOf(tenantKey: Uint8Array, clearValue: string): string {
  return hmacHex(tenantKey, clearValue);
}

/** The value at a dotted path already split into its parts (`getPath` without the split). */
export function valueAt(target: unknown, parts: readonly string[]): unknown {
  let cur: unknown = target;
  for (const part of parts) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

/** Commitments of every identifier path of `paths` that holds a string in `entry`. */
export function commitIdentifiers(
  entry: AuditEntry,
  tenantKey: Uint8Array,
  paths: readonly string[] = PERSONAL_IDENTIFIER_PATHS,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const path of paths) {
    const value = getPath(entry, path);
    if (typeof value === 'string') out[path] = commitmentOf(tenantKey, value);
  }
  return out;
}

/** Copy-on-write set of a dotted path (copies only the objects along the path). */
function withValueAt(
  target: Record<string, unknown>,
  parts: readonly string[],
  value: unknown,
): Record<string, unknown> {
  const [head, ...rest] = parts;
  if (head === undefined) return target;
  const copy = { ...target };
  if (rest.length === 0) {
    copy[head] = value;
    return copy;
  }
  const child = target[head];
  if (child === null || typeof child !== 'object' || Array.isArray(child)) return copy;
  copy[head] = withValueAt(child as Record<string, unknown>, rest, value);
  return copy;
}

/** The entry as it enters the hash: each committed path holds its commitment instead of the value. */
export function committedEntry(entry: AuditEntry, commitments: Readonly<Record<string, string>>): unknown {
  let out = entry as unknown as Record<string, unknown>;
  for (const [path, commitment] of Object.entries(commitments)) {
    out = withValueAt(out, path.split('.'), commitment);
  }
  return out;
}

/** The exact string that is hashed for a record (exported for auditors and tests). */
export function recordHashInput(
  record: Pick<AuditRecord, 'entry' | 'seq' | 'prevHash' | 'commitments'>,
): string {
  return canonicalJson({
    commitments: record.commitments,
    entry: committedEntry(record.entry, record.commitments),
    prevHash: record.prevHash,
    seq: record.seq,
  });
}

export function computeRecordHash(
  record: Pick<AuditRecord, 'entry' | 'seq' | 'prevHash' | 'commitments'>,
): string {
  return sha256Hex(recordHashInput(record));
}
