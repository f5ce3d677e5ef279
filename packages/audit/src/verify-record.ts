/**
 * The verifier's checks of one record: the leaf check (`checkLeaf`: its seq, its link to the
 * previous record, its stored leaf against its hash and its place) and the check from its columns
 * (`checkRecord`: seq, link, content — entry schema, id, tenant, commitments — and the hash
 * recomputed from them). Each returns the first problem, or undefined.
 */
import { AuditEntrySchema, type AuditLeaf, type AuditRecord, isUlid } from '@agentgov/core';
import { isHash, sha256Hex } from './crypto';
import { plainlyValidEntry } from './entry-input';
import { anonymizedPlaceholder, isAnonymizedPlaceholder, recordHashInput, valueAt } from './records';
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

/** The first problem of a link's place: its seq and its link to the previous record. */
function checkPlace(
  link: Pick<AuditLeaf, 'seq' | 'prevHash'>,
  expectedSeq: number,
  prevHash: string,
): Problem | undefined {
  if (link.seq !== expectedSeq) {
    return {
      reason: 'seq_gap',
      field: 'seq',
      detail: `expected seq ${expectedSeq}, found ${link.seq}`,
      expected: expectedSeq,
      actual: link.seq,
    };
  }
  if (link.prevHash !== prevHash) {
    return {
      reason: 'prev_hash_mismatch',
      field: 'prevHash',
      detail: 'prevHash does not link to the previous record',
      expected: prevHash,
      actual: link.prevHash,
    };
  }
  return undefined;
}

/** How every leaf begins (the canonical JSON of a hash input: its first member). */
const LEAF_START = '{"commitments":';
const PREV_KEY = ',"prevHash":';
const SEQ_KEY = ',"seq":';
/** The text around a hex prevHash: `,"prevHash":"` before it, `","seq":` after it. */
const BEFORE_PREV = `${PREV_KEY}"`;
const AFTER_PREV = `"${SEQ_KEY}`;

/**
 * Whether a leaf names this place: it begins as a hash input does and ends with
 * `,"prevHash":<prevHash as JSON>,"seq":<seq>}` (the last members in key order). Compared in
 * place, no tail string built: a 64-character prevHash is taken as its hex digits, its own JSON
 * text between quotes (every prevHash is a checked SHA-256 hex digest but the range's first,
 * and a leaf naming anything else there is no canonical JSON: it fails the deep check).
 */
function namesPlace(leaf: string, prevHash: string, seq: number): boolean {
  if (prevHash.length !== 64) return leaf.endsWith(`${PREV_KEY}${JSON.stringify(prevHash)}${SEQ_KEY}${seq}}`);
  const end = leaf.length - 1;
  if (leaf.charCodeAt(end) !== 125 /* } */ || !Number.isSafeInteger(seq) || seq < 0) return false;
  // The seq's decimal digits, read from the end (no string made for them).
  let at = end;
  let rest = seq;
  do {
    at--;
    if (leaf.charCodeAt(at) !== 48 + (rest % 10)) return false;
    rest = Math.floor(rest / 10);
  } while (rest > 0);
  const afterPrev = at - AFTER_PREV.length;
  const atPrev = afterPrev - 64;
  return (
    leaf.startsWith(AFTER_PREV, afterPrev) &&
    leaf.startsWith(prevHash, atPrev) &&
    leaf.startsWith(BEFORE_PREV, atPrev - BEFORE_PREV.length) &&
    leaf.startsWith(LEAF_START)
  );
}

/**
 * The leaf check of a link stored with its leaf (the exact text its hash covers), as a
 * Certificate Transparency log checks its entries: its seq and link, the leaf hashing to the
 * stored hash, and the leaf naming that link (its canonical JSON ends with `"prevHash"` and
 * `"seq"`, the last members in key order). The columns are not read: `checkRecord` re-derives
 * the leaf from them (the deep check).
 */
export function checkLeaf(
  link: Pick<AuditLeaf, 'seq' | 'prevHash' | 'hash'>,
  leaf: string,
  expectedSeq: number,
  prevHash: string,
): Problem | undefined {
  const place = checkPlace(link, expectedSeq, prevHash);
  if (place) return place;
  const hashed = sha256Hex(leaf);
  if (hashed !== link.hash) {
    return {
      reason: 'hash_mismatch',
      field: 'hash',
      detail: 'the stored hash is not the hash of the stored leaf (the leaf or the hash was changed)',
      expected: hashed,
      actual: link.hash,
    };
  }
  if (!namesPlace(leaf, prevHash, expectedSeq)) {
    const tail = `,"prevHash":${JSON.stringify(prevHash)},"seq":${expectedSeq}}`;
    return {
      reason: 'leaf_mismatch',
      field: 'leaf',
      detail: `the leaf does not name this record's place (prevHash and seq ${expectedSeq}): it is another record's`,
      expected: tail.slice(1, -1),
      actual: leaf.slice(Math.max(0, leaf.length - tail.length + 1), -1),
    };
  }
  return undefined;
}

/**
 * The first problem of a record expected at `expectedSeq` after a record of hash `prevHash`,
 * re-derived from its columns; `commit` (the tenant's commitment function, when the key is
 * known) checks clear identifiers. `checkedLeaf`: the record's stored leaf when `checkLeaf` has
 * just found that it hashes to the record's hash — then the re-derived hash input is compared
 * with it as text (equal text, equal hash; unequal text, a hash that differs from the leaf's, as
 * SHA-256 gives no collisions), and hashed only to report a mismatch: one SHA-256 a record, not two.
 */
export function checkRecord(
  record: AuditRecord,
  expectedSeq: number,
  prevHash: string,
  tenantId: string,
  commit: ((clearValue: string) => string) | undefined,
  checkedLeaf?: string,
): Problem | undefined {
  const place = checkPlace(record, expectedSeq, prevHash);
  if (place) return place;
  const problem = checkContent(record, tenantId, commit);
  if (problem) return problem;
  let input: string;
  try {
    input = recordHashInput(record);
  } catch (error) {
    return { reason: 'invalid_entry', field: 'entry', detail: `not canonicalizable: ${String(error)}` };
  }
  if (checkedLeaf !== undefined && input === checkedLeaf) return undefined;
  const recomputed = sha256Hex(input);
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
