/**
 * Building and hashing the records of an append. Outside the store's lock each entry is
 * prepared as far as it can be without the chain head (`prepare`: commitments and the canonical
 * JSON around `"id":` and `"timestamp":`); under the lock `recordBuilder` assigns id, timestamp,
 * seq and prevHash and hashes each record once. Entries the fast path declines are hashed the
 * original way (`commitIdentifiers` + `recordHashInput`); both give the same bytes, which each
 * record keeps as its `leaf`.
 */
import type { AuditEntry, AuditRecord, ChainHead, Clock } from '@agentgov/core';
import { ValidationError } from '@agentgov/core';
import { err, ok, type Result } from 'neverthrow';
import { canonicalString, GENESIS_HASH, sha256Hex } from './crypto';
import { fieldIn, hasNul, type IdentifierPaths, reservedIssues, type Validated } from './entry-input';
import type { TenantKeys } from './keys';
import { commitmentsJsonOf, prepareDirect } from './prepare-direct';
import { commitIdentifiers, plainCanonicalText, recordHashInput, valueAt, withValueAt } from './records';

/**
 * An entry validated and hashed as far as it can be before the chain head is known (outside the
 * store's lock): its commitments and the canonical JSON of everything but `id`, `timestamp`,
 * `seq` and `prevHash`. `build(head)` only concatenates and hashes once (see `preparedLeaf`).
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

/** Stand-ins for `id` and `timestamp` in the prepared JSON (a NUL anywhere else sends the entry to the original path). */
const ID_MARK = '\u0000id';
const TIMESTAMP_MARK = '\u0000timestamp';
/** How the stand-ins come out of `JSON.stringify`, each with its member name. */
const ID_TEXT = `"id":${JSON.stringify(ID_MARK)}`;
const TIMESTAMP_TEXT = `"timestamp":${JSON.stringify(TIMESTAMP_MARK)}`;

/**
 * Fast path, step 2: the checks of `validateSlow` (same errors) plus the commitments and the
 * canonical JSON, computed once: the committed entry (a fresh object, its members in RFC 8785
 * order, `id` and `timestamp` held by stand-ins) is written by one `JSON.stringify` and cut at
 * the stand-ins. Undefined when `jsonIssue` would reject the entry (or when the text holds
 * anything the fast path does not vouch for): the original path then reports it, with its very
 * message, or hashes it the original way.
 */
export function prepare(
  entry: Validated,
  keys: TenantKeys,
  identifiers: IdentifierPaths,
  prefix: string,
): Result<Prepared, ValidationError> | undefined {
  if (identifiers.direct) {
    const direct = prepareDirect(entry, keys, identifiers, prefix);
    if (direct) return direct;
  }
  let timestamp: string | undefined;
  if (entry.timestamp !== undefined) timestamp = JSON.stringify(entry.timestamp);
  // The committed entry: members in code-unit order, so the copy below rarely re-sorts the top.
  const committed: Record<string, unknown> = {
    actionDetail: entry.actionDetail,
    actionType: entry.actionType,
    dataAccessed: entry.dataAccessed,
    dataClassification: entry.dataClassification,
    id: ID_MARK,
    modelTokens: entry.modelTokens,
    modelUsed: entry.modelUsed,
    outcome: entry.outcome,
    policyApplied: entry.policyApplied,
    policyReason: entry.policyReason,
    policyResult: entry.policyResult,
    requestId: entry.requestId,
    tenantId: entry.tenantId,
    timestamp: TIMESTAMP_MARK,
    userId: entry.userId,
  };
  // Commitments (of clear values that must themselves be representable, as jsonIssue requires),
  // each substituted as `committedEntry` does (copy-on-write below the top: `entry` is kept).
  const commitments: Record<string, string> = {};
  for (const { path, parts } of identifiers.split) {
    const v = valueAt(entry, parts);
    if (typeof v !== 'string') continue;
    if (hasNul(v) || canonicalString(v) === undefined) return undefined;
    const c = keys.commitment(entry.tenantId, v);
    commitments[path] = c;
    const head = parts[0] as string;
    if (parts.length === 1) committed[head] = c;
    else {
      const child = committed[head];
      if (child !== null && typeof child === 'object' && !Array.isArray(child))
        committed[head] = withValueAt(child as Record<string, unknown>, parts.slice(1), c);
    }
  }
  const commitmentsJson = commitmentsJsonOf(commitments, identifiers);
  const text = plainCanonicalText(committed);
  if (text === undefined) return undefined;
  const atId = text.indexOf(ID_TEXT);
  const atTimestamp = text.indexOf(TIMESTAMP_TEXT, atId + ID_TEXT.length);
  if (atId < 0 || atTimestamp < 0) return undefined;
  const beforeId = text.slice(0, atId + 5); // through `"id":`
  const beforeTimestamp = text.slice(atId + ID_TEXT.length, atTimestamp + 12); // through `"timestamp":`
  const rest = text.slice(atTimestamp + TIMESTAMP_TEXT.length);
  if (hasNul(beforeId) || hasNul(beforeTimestamp) || hasNul(rest)) return undefined;
  const reserved = reservedIssues(entry, identifiers, fieldIn(prefix));
  if (reserved.length > 0) return err(new ValidationError('invalid_type', reserved));
  return ok({ entry, commitments, commitmentsJson, beforeId, beforeTimestamp, timestamp, rest });
}

/** The leaf of a prepared entry: the very text `recordHashInput` gives for its record. */
function preparedLeaf(p: Prepared, id: string, timestamp: string, seq: number, prevHash: string): string {
  const idJson = canonicalString(id);
  const prevJson = canonicalString(prevHash);
  if (idJson === undefined || prevJson === undefined) throw new TypeError('value has no JSON representation');
  return `{"commitments":${p.commitmentsJson},"entry":${p.beforeId}${idJson}${p.beforeTimestamp}${
    p.timestamp ?? timestamp
  }${p.rest},"prevHash":${prevJson},"seq":${JSON.stringify(seq)}}`;
}

/** The last time written and its ISO text: appends of one millisecond write it once. */
let lastTime = Number.NaN;
let lastIso = '';

/** `date.toISOString()` (throws the same for an invalid date: NaN never equals the last time). */
function isoOf(date: Date): string {
  const time = date.getTime();
  if (time !== lastTime) {
    lastIso = date.toISOString();
    lastTime = time;
  }
  return lastIso;
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
    const now = isoOf(clock.now());
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
        ? { entry, seq, prevHash, hash: '', commitments: prepared.commitments }
        : { entry, seq, prevHash, hash: '', commitments: commitIdentifiers(entry, key, paths) };
      // The leaf (the text hashed) is kept with the record: the verifier checks the chain over it.
      const leaf = prepared
        ? preparedLeaf(prepared, entry.id, nowJson, seq, prevHash)
        : recordHashInput(record);
      record.hash = sha256Hex(leaf);
      record.leaf = leaf;
      prevHash = record.hash;
      return record;
    });
  };
}
