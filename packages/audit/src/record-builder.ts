/**
 * Building and hashing the records of an append. Outside the store's lock each entry is
 * prepared as far as it can be without the chain head (`prepare`: commitments and the canonical
 * JSON around `"id":` and `"timestamp":`); under the lock `recordBuilder` assigns id, timestamp,
 * seq and prevHash and hashes each record once. Entries the fast path declines are hashed the
 * original way (`commitIdentifiers` + `computeRecordHash`); both give the same bytes.
 */
import type { AuditEntry, AuditRecord, ChainHead, Clock } from '@agentgov/core';
import { ValidationError } from '@agentgov/core';
import { err, ok, type Result } from 'neverthrow';
import { canonicalString, GENESIS_HASH, plainCanonicalJson, sha256Hex } from './crypto';
import { fieldIn, hasNul, type IdentifierPaths, reservedIssues, type Validated } from './entry-input';
import type { TenantKeys } from './keys';
import { commitIdentifiers, committedEntry, computeRecordHash, valueAt } from './records';

/**
 * An entry validated and hashed as far as it can be before the chain head is known (outside the
 * store's lock): its commitments and the canonical JSON of everything but `id`, `timestamp`,
 * `seq` and `prevHash`. `build(head)` only concatenates and hashes once (see `preparedHash`).
 */
export interface Prepared {
  entry: Validated;
  commitments: Record<string, string>;
  /** Canonical JSON of `commitments`. */
  commitmentsJson: string;
  /** Canonical JSON of the committed entry up to and including `"id":`. */
  beforeId: string;
  /** From after the id up to and including `"timestamp":`. */
  beforeTimestamp: string;
  /** Canonical JSON string of the given timestamp (undefined: the clock's time at append). */
  timestamp: string | undefined;
  /** From after the timestamp to the end of the entry (`}` included). */
  rest: string;
}

/** Either a prepared entry (fast path) or one hashed the original way under the lock. */
export type Pending =
  | { prepared: Prepared; validated?: undefined }
  | { validated: Validated; prepared?: undefined };

/** The validated entry of a pending one, whichever path it takes. */
export const validatedOf = (pending: Pending): Validated =>
  pending.prepared ? pending.prepared.entry : (pending.validated as Validated);

/** The members of an AuditEntry in RFC 8785 order (UTF-16 code units). */
const ENTRY_KEYS_SORTED = [
  'actionDetail',
  'actionType',
  'dataAccessed',
  'dataClassification',
  'id',
  'modelTokens',
  'modelUsed',
  'outcome',
  'policyApplied',
  'policyReason',
  'policyResult',
  'requestId',
  'tenantId',
  'timestamp',
  'userId',
] as const;
const ENTRY_KEY_PREFIX = new Map(ENTRY_KEYS_SORTED.map((k) => [k, `"${k}":`]));

/**
 * Fast path, step 2: the checks of `validateSlow` (same errors) plus the commitments and the
 * canonical JSON, computed once. Undefined when `jsonIssue` would reject the entry: the original
 * path then reports it, with its very message.
 */
export function prepare(
  entry: Validated,
  keys: TenantKeys,
  identifiers: IdentifierPaths,
  prefix: string,
): Result<Prepared, ValidationError> | undefined {
  let timestamp: string | undefined;
  if (entry.timestamp !== undefined) timestamp = JSON.stringify(entry.timestamp);
  // Commitments (of clear values that must themselves be representable, as jsonIssue requires).
  const commitments: Record<string, string> = {};
  for (const { path, parts } of identifiers.split) {
    const v = valueAt(entry, parts);
    if (typeof v !== 'string') continue;
    if (hasNul(v) || canonicalString(v) === undefined) return undefined;
    commitments[path] = keys.commitment(entry.tenantId, v);
  }
  let commitmentsJson = '{';
  for (const { path, json } of identifiers.sorted) {
    const c = commitments[path];
    if (c === undefined) continue;
    commitmentsJson += `${commitmentsJson.length === 1 ? '' : ','}${json}:"${c}"`;
  }
  commitmentsJson += '}';
  // Canonical JSON of the committed entry, cut around the members only known under the lock.
  const committed = committedEntry(entry as AuditEntry, commitments) as Record<string, unknown>;
  const pieces: string[] = [];
  let piece = '{';
  let first = true;
  for (const k of ENTRY_KEYS_SORTED) {
    if (k === 'id' || k === 'timestamp') {
      pieces.push(`${piece}${first ? '' : ','}"${k}":`);
      piece = '';
      first = false;
      continue;
    }
    const v = committed[k];
    if (v === undefined) continue;
    const text = plainCanonicalJson(v);
    if (text === undefined || hasNul(text)) return undefined;
    piece += `${first ? '' : ','}${ENTRY_KEY_PREFIX.get(k)}${text}`;
    first = false;
  }
  const reserved = reservedIssues(entry, identifiers, fieldIn(prefix));
  if (reserved.length > 0) return err(new ValidationError('invalid_type', reserved));
  return ok({
    entry,
    commitments,
    commitmentsJson,
    beforeId: pieces[0] as string,
    beforeTimestamp: pieces[1] as string,
    timestamp,
    rest: `${piece}}`,
  });
}

/** The record hash of a prepared entry: the same bytes `computeRecordHash` hashes. */
function preparedHash(p: Prepared, id: string, timestamp: string, seq: number, prevHash: string): string {
  const idJson = canonicalString(id);
  const prevJson = canonicalString(prevHash);
  if (idJson === undefined || prevJson === undefined) throw new TypeError('value has no JSON representation');
  return sha256Hex(
    `{"commitments":${p.commitmentsJson},"entry":${p.beforeId}${idJson}${p.beforeTimestamp}${
      p.timestamp ?? timestamp
    }${p.rest},"prevHash":${prevJson},"seq":${JSON.stringify(seq)}}`,
  );
}

/** What building records needs from the log. */
export interface BuildContext {
  clock: Clock;
  ids: () => string;
  identifiers: IdentifierPaths;
}

/**
 * The `build(head)` callback of `AuditStore.append`: the records of `entries` chained after
 * `head`, with ids from `ids()` and, for entries without a timestamp, the clock's time.
 * `key` is the tenant's commitment key (for the entries hashed the original way).
 */
export function recordBuilder(
  entries: readonly Pending[],
  key: Uint8Array,
  { clock, ids, identifiers }: BuildContext,
): (head: ChainHead | undefined) => AuditRecord[] {
  const paths = identifiers.paths;
  return (head) => {
    let seq = head?.seq ?? 0;
    let prevHash = head?.hash ?? GENESIS_HASH;
    const now = clock.now().toISOString();
    const nowJson = JSON.stringify(now);
    return entries.map((pending) => {
      const prepared = pending.prepared;
      const validated = prepared ? prepared.entry : (pending.validated as Validated);
      const entry: AuditEntry = {
        id: ids(),
        tenantId: validated.tenantId,
        userId: validated.userId,
        timestamp: validated.timestamp ?? now,
        actionType: validated.actionType,
        actionDetail: validated.actionDetail,
        dataAccessed: validated.dataAccessed,
        modelUsed: validated.modelUsed,
        modelTokens: validated.modelTokens,
        dataClassification: validated.dataClassification,
        policyApplied: validated.policyApplied,
        policyResult: validated.policyResult,
        policyReason: validated.policyReason,
        outcome: validated.outcome,
        requestId: validated.requestId,
      };
      seq += 1;
      const record: AuditRecord = prepared
        ? {
            entry,
            seq,
            prevHash,
            hash: preparedHash(prepared, entry.id, nowJson, seq, prevHash),
            commitments: prepared.commitments,
          }
        : { entry, seq, prevHash, hash: '', commitments: commitIdentifiers(entry, key, paths) };
      if (!prepared) record.hash = computeRecordHash(record);
      prevHash = record.hash;
      return record;
    });
  };
}
