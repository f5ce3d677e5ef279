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
import { canonicalJson, canonicalString, hmacHex, sha256Hex } from './crypto';

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
export function withValueAt(
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

/** Deeper values are left to the general path (which also detects cycles). */
const MAX_DEPTH = 64;

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Values computed from a key list, remembered for the last 16 lists seen (compared element by
 * element): the records of a log repeat the same few shapes, so most calls compare instead of
 * computing again.
 */
class KeyListMemo<V> {
  readonly #keys: (readonly string[])[] = [];
  readonly #values: V[] = [];

  of(keys: readonly string[], compute: () => V, remember = true): V {
    for (let c = 0; c < this.#keys.length; c++) {
      if (sameKeys(this.#keys[c] as readonly string[], keys)) return this.#values[c] as V;
    }
    const value = compute();
    if (remember) {
      if (this.#keys.length === 16) {
        this.#keys.pop();
        this.#values.pop();
      }
      this.#keys.unshift(keys);
      this.#values.unshift(value);
    }
    return value;
  }
}

/** Keys `JSON.stringify` would not write in insertion order (array indices) or cannot be set (`__proto__`). */
const awkwardKey = (key: string): boolean => (key.charCodeAt(0) - 48) >>> 0 < 10 || key === '__proto__';

/** An object's keys in code-unit order, with the JSON text written before each member's value. */
interface Shape {
  readonly sorted: readonly string[];
  /** `"key":` of each key (before the first member written)… */
  readonly first: readonly string[];
  /** …and `,"key":` (before the others). */
  readonly next: readonly string[];
}

const SHAPES = new KeyListMemo<Shape | null>();

/**
 * The shape of an object with these keys (remembered for lists of up to 64 keys), or null when a
 * key is an array index, `__proto__` or has a lone surrogate (the general path takes those).
 */
function shapeOf(keys: string[]): Shape | null {
  return SHAPES.of(
    keys,
    () => {
      const sorted = [...keys].sort();
      const first: string[] = [];
      const next: string[] = [];
      for (const key of sorted) {
        const text = canonicalString(key);
        if (text === undefined || awkwardKey(key)) return null;
        first.push(`${text}:`);
        next.push(`,${text}:`);
      }
      return { sorted, first, next };
    },
    keys.length <= 64,
  );
}

/**
 * The RFC 8785 JSON of a plain value, written in one walk over it (no key-sorted copy): string
 * members as `canonicalString` writes them (what `JSON.stringify` writes for a well-formed
 * string), finite numbers as `String` (= `JSON.stringify`), keys in code-unit order from the
 * remembered shapes. Undefined (take the general path) for lone surrogates, NaN/Infinity, bigint,
 * undefined/function/symbol array elements, `toJSON`, boxed primitives, array-index or
 * `__proto__` keys, nesting deeper than 64.
 */
function canonicalText(value: unknown, depth: number): string | undefined {
  switch (typeof value) {
    case 'string':
      return canonicalString(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : undefined;
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object': {
      if (value === null) return 'null';
      if (depth >= MAX_DEPTH || typeof (value as { toJSON?: unknown }).toJSON === 'function')
        return undefined;
      if (Array.isArray(value)) {
        let out = '[';
        for (let i = 0; i < value.length; i++) {
          const item = canonicalText(value[i], depth + 1);
          if (item === undefined) return undefined;
          out += i === 0 ? item : `,${item}`;
        }
        return `${out}]`;
      }
      if (value instanceof Number || value instanceof String || value instanceof Boolean) return undefined;
      return objectText(value as Record<string, unknown>, undefined, undefined, undefined, depth);
    }
    default:
      return undefined;
  }
}

/**
 * `canonicalText` of an object with commitments substituted: `top` names the members replaced
 * by (or added as) the commitment at a path of `commitments`; `nested` does the same one level
 * down, in members that are plain objects.
 */
function objectText(
  value: Record<string, unknown>,
  top: Record<string, string> | undefined,
  nested: Record<string, Record<string, string>> | undefined,
  commitments: Record<string, unknown> | undefined,
  depth: number,
): string | undefined {
  const keys = Object.keys(value);
  if (top) for (const k in top) if (!Object.hasOwn(value, k)) keys.push(k);
  const shape = shapeOf(keys);
  if (!shape) return undefined;
  const sorted = shape.sorted;
  let out = '{';
  let first = true;
  for (let i = 0; i < sorted.length; i++) {
    const key = sorted[i] as string;
    const path = top?.[key];
    let text: string | undefined;
    if (path !== undefined) {
      const c = commitments?.[path];
      text = typeof c === 'string' ? canonicalString(c) : undefined;
    } else {
      const v = value[key];
      if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
      const inner = nested?.[key];
      if (inner !== undefined && v !== null && typeof v === 'object' && !Array.isArray(v)) {
        text = isPlainObject(v) ? objectText(v, inner, undefined, commitments, depth + 1) : undefined;
      } else text = canonicalText(v, depth + 1);
    }
    if (text === undefined) return undefined;
    out += first ? `${shape.first[i]}${text}` : `${shape.next[i]}${text}`;
    first = false;
  }
  return `${out}}`;
}

/**
 * The RFC 8785 JSON of a plain value (see `canonicalText`); undefined when the value has no plain
 * canonical form (the general `canonicalJson` then decides). `depth`: the nesting it sits at.
 */
export function plainCanonicalText(value: unknown, depth = 0): string | undefined {
  return canonicalText(value, depth);
}

/**
 * `plainCanonicalText` of a plain object (at `depth`) whose members named in `top` hold the
 * commitment at that path of `commitments` instead of their value (as `committedEntry` writes it).
 */
export function committedObjectText(
  value: Record<string, unknown>,
  top: Record<string, string> | undefined,
  commitments: Record<string, unknown>,
  depth: number,
): string | undefined {
  return objectText(value, top, undefined, commitments, depth);
}

/** How a commitments map applies to an entry: overrides at the top and one level down. */
interface CommitmentPlan {
  /** Top-level member → its commitment path (the same name). */
  top: Record<string, string> | undefined;
  /** Member → (its member → commitment path). */
  nested: Record<string, Record<string, string>> | undefined;
}

const PLANS = new KeyListMemo<CommitmentPlan | undefined>();

/** The plan of these commitment paths, or undefined when the general path must take them. */
function planOf(paths: readonly string[]): CommitmentPlan | undefined {
  let top: Record<string, string> | undefined;
  let nested: Record<string, Record<string, string>> | undefined;
  for (const path of paths) {
    if (path === '__proto__' || path.endsWith('.__proto__')) return undefined;
    const dot = path.indexOf('.');
    if (dot < 0) {
      if (nested?.[path] !== undefined) return undefined;
      top ??= Object.create(null) as Record<string, string>;
      top[path] = path;
      continue;
    }
    const head = path.slice(0, dot);
    const rest = path.slice(dot + 1);
    if (head === '__proto__' || rest.includes('.') || top?.[head] !== undefined) return undefined;
    nested ??= Object.create(null) as Record<string, Record<string, string>>;
    const inner = nested[head] ?? (Object.create(null) as Record<string, string>);
    inner[rest] = path;
    nested[head] = inner;
  }
  return { top, nested };
}

/**
 * The plan of a commitments map with these paths (remembered for the last few path lists), or
 * null when a path is deeper than two segments, touches `__proto__`, or collides with
 * another (the general path handles those).
 */
function commitmentPlan(paths: string[]): CommitmentPlan | null {
  return PLANS.of(paths, () => planOf(paths)) ?? null;
}

/**
 * `recordHashInput` without building the committed entry or the wrapper object: the canonical
 * JSON is written in one walk, commitments substituted as it goes. Covers commitments at paths
 * of one or two segments (every default identifier path); undefined for anything else, which
 * the general path (`committedEntry` + `canonicalJson`) handles — both give the same string.
 */
function directHashInput(
  record: Pick<AuditRecord, 'entry' | 'seq' | 'prevHash' | 'commitments'>,
): string | undefined {
  const commitments = record.commitments as unknown;
  const entry = record.entry as unknown;
  if (!isPlainObject(commitments) || !isPlainObject(entry)) return undefined;
  if (typeof record.seq !== 'number' || !Number.isFinite(record.seq) || typeof record.prevHash !== 'string')
    return undefined;
  const paths = Object.keys(commitments);
  const plan = commitmentPlan(paths);
  if (!plan) return undefined;
  const commitmentsText = objectText(commitments, undefined, undefined, undefined, 1);
  const entryText = objectText(entry, plan.top, plan.nested, commitments, 1);
  const prevHashText = canonicalString(record.prevHash);
  if (commitmentsText === undefined || entryText === undefined || prevHashText === undefined)
    return undefined;
  return `{"commitments":${commitmentsText},"entry":${entryText},"prevHash":${prevHashText},"seq":${record.seq}}`;
}
