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
import { canonicalJson, canonicalString, hmacHex, plainCanonicalJson, sha256Hex } from './crypto';

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
  return (
    directHashInput(record) ??
    canonicalJson({
      commitments: record.commitments,
      entry: committedEntry(record.entry, record.commitments),
      prevHash: record.prevHash,
      seq: record.seq,
    })
  );
}

export function computeRecordHash(
  record: Pick<AuditRecord, 'entry' | 'seq' | 'prevHash' | 'commitments'>,
): string {
  return sha256Hex(recordHashInput(record));
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null &&
  typeof v === 'object' &&
  !Array.isArray(v) &&
  typeof (v as { toJSON?: unknown }).toJSON !== 'function' &&
  !(v instanceof Number || v instanceof String || v instanceof Boolean);

/**
 * Canonical JSON of `value` (a plain object) with `overrides` in place of (or added to) its
 * members, written straight into the output: no copy of the object. Undefined when a member has
 * no plain canonical form (the caller then takes the general path).
 */
function objectWith(
  value: Record<string, unknown>,
  overrides: Record<string, string> | undefined,
): string | undefined {
  const keys = Object.keys(value);
  if (overrides) for (const k in overrides) if (!Object.hasOwn(value, k)) keys.push(k);
  keys.sort();
  let out = '{';
  for (const key of keys) {
    const o = overrides?.[key];
    let text: string | undefined;
    if (o !== undefined) text = canonicalString(o);
    else {
      const v = value[key];
      if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
      text = plainCanonicalJson(v);
    }
    const k = canonicalString(key);
    if (text === undefined || k === undefined) return undefined;
    out += out.length === 1 ? `${k}:${text}` : `,${k}:${text}`;
  }
  return `${out}}`;
}

/**
 * `recordHashInput` without building the committed entry or the wrapper object: the canonical
 * JSON is written in one pass, commitments substituted as it goes. Covers commitments at paths
 * of one or two segments (every default identifier path); undefined for anything else, which
 * the general path (`committedEntry` + `canonicalJson`) handles — both give the same string.
 */
function directHashInput(
  record: Pick<AuditRecord, 'entry' | 'seq' | 'prevHash' | 'commitments'>,
): string | undefined {
  const commitments = record.commitments as unknown;
  const entry = record.entry as unknown;
  if (!isPlainObject(commitments) || !isPlainObject(entry)) return undefined;
  let top: Record<string, string> | undefined;
  let nested: Record<string, Record<string, string>> | undefined;
  for (const path in commitments) {
    const c = commitments[path];
    if (typeof c !== 'string' || !Object.hasOwn(commitments, path)) return undefined;
    const dot = path.indexOf('.');
    if (path === '__proto__' || path.endsWith('.__proto__')) return undefined;
    if (dot < 0) {
      if (nested?.[path] !== undefined) return undefined;
      top ??= Object.create(null) as Record<string, string>;
      top[path] = c;
      continue;
    }
    const head = path.slice(0, dot);
    const rest = path.slice(dot + 1);
    if (head === '__proto__' || rest.includes('.') || top?.[head] !== undefined) return undefined;
    nested ??= Object.create(null) as Record<string, Record<string, string>>;
    const inner = nested[head] ?? (Object.create(null) as Record<string, string>);
    inner[rest] = c;
    nested[head] = inner;
  }
  const commitmentsJson = plainCanonicalJson(commitments);
  if (commitmentsJson === undefined || typeof record.seq !== 'number' || !Number.isFinite(record.seq))
    return undefined;
  const prevJson = typeof record.prevHash === 'string' ? canonicalString(record.prevHash) : undefined;
  if (prevJson === undefined) return undefined;
  let entryJson: string | undefined;
  if (nested === undefined) entryJson = objectWith(entry, top);
  else {
    // Members holding a nested commitment are written with it substituted (when they are objects).
    const keys = Object.keys(entry);
    if (top) for (const k in top) if (!Object.hasOwn(entry, k)) keys.push(k);
    keys.sort();
    let out = '{';
    for (const key of keys) {
      let text: string | undefined;
      const t = top?.[key];
      if (t !== undefined) text = canonicalString(t);
      else {
        const v = entry[key];
        if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
        const inner = nested[key];
        if (inner !== undefined && v !== null && typeof v === 'object' && !Array.isArray(v)) {
          if (!isPlainObject(v)) return undefined;
          text = objectWith(v, inner);
        } else text = plainCanonicalJson(v);
      }
      const k = canonicalString(key);
      if (text === undefined || k === undefined) return undefined;
      out += out.length === 1 ? `${k}:${text}` : `,${k}:${text}`;
    }
    entryJson = `${out}}`;
  }
  if (entryJson === undefined) return undefined;
  return `{"commitments":${commitmentsJson},"entry":${entryJson},"prevHash":${prevJson},"seq":${JSON.stringify(record.seq)}}`;
}
