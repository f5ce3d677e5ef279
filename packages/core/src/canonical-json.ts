/**
 * RFC 8785 canonical JSON, byte for byte what the `canonicalize` package returns (the audit
 * package's tests check it against that package) without depending on it: `canonicalize@5`
 * requires Node ≥ 22 and is ESM-only. Everything agentgov hashes or signs goes through
 * `canonicalJson` (audit records, checkpoints, interchange envelopes).
 */

/**
 * RFC 8785 canonical JSON. Throws on values JSON cannot represent (NaN, Infinity, lone surrogates,
 * bigint, cycles). Plain JSON data (what the stores hold) takes `plainCanonicalJson`; anything
 * else (toJSON, boxed primitives, cycles, invalid values, deep nesting) takes `generalCanonicalJson`.
 */
export function canonicalJson(value: unknown): string {
  const text = plainCanonicalJson(value) ?? generalCanonicalJson(value);
  if (text === undefined) throw new TypeError('value has no JSON representation');
  return text;
}

function serializePrimitive(value: unknown): string | undefined {
  switch (typeof value) {
    case 'number':
      if (Number.isNaN(value)) throw new Error('NaN is not allowed');
      if (!Number.isFinite(value)) throw new Error('Infinity is not allowed');
      return JSON.stringify(value);
    case 'string':
      return serializeString(value);
    case 'boolean':
      return value ? 'true' : 'false';
    default:
      // null; undefined, functions and symbols (undefined); bigint (JSON.stringify throws).
      return JSON.stringify(value);
  }
}

function serializeString(value: string): string {
  if (!(value as string & { isWellFormed(): boolean }).isWellFormed()) {
    throw new Error('Lone surrogate is not allowed');
  }
  return JSON.stringify(value);
}

const skipped = (v: unknown): boolean => v === undefined || typeof v === 'symbol' || typeof v === 'function';

/**
 * The general RFC 8785 serializer, with the semantics of `canonicalize@5`: `toJSON` chains are
 * followed (a cycle through them is detected), boxed primitives are unboxed, values with no JSON
 * representation are omitted from objects and become `null` in arrays, a cycle throws
 * `Circular reference detected`; undefined when the value itself has no JSON representation.
 */
function generalCanonicalJson(value: unknown, seen: Set<object> = new Set()): string | undefined {
  const wrappers: object[] = [];
  let v = value;
  try {
    while (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function') {
      if (seen.has(v)) throw new Error('Circular reference detected');
      seen.add(v);
      wrappers.push(v);
      v = (v as { toJSON(): unknown }).toJSON();
    }
    if (v instanceof Number || v instanceof String || v instanceof Boolean) v = v.valueOf();
    if (v === null || typeof v !== 'object') return serializePrimitive(v);
    if (seen.has(v)) throw new Error('Circular reference detected');
    seen.add(v);
    let out: string;
    if (Array.isArray(v)) {
      out = '[';
      for (let i = 0; i < v.length; i++) {
        const item = skipped(v[i]) ? null : v[i];
        const text =
          item === null || typeof item !== 'object'
            ? serializePrimitive(item)
            : generalCanonicalJson(item, seen);
        out += `${i > 0 ? ',' : ''}${text ?? 'null'}`;
      }
      out += ']';
    } else {
      out = '{';
      let first = true;
      for (const key of Object.keys(v).sort()) {
        const member = (v as Record<string, unknown>)[key];
        if (skipped(member)) continue;
        const k = serializeString(key);
        const text =
          member === null || typeof member !== 'object'
            ? serializePrimitive(member)
            : generalCanonicalJson(member, seen);
        if (text === undefined) continue;
        out += `${first ? '' : ','}${k}:${text}`;
        first = false;
      }
      out += '}';
    }
    seen.delete(v);
    return out;
  } finally {
    for (const w of wrappers) seen.delete(w);
  }
}

/** Characters JSON.stringify escapes, plus surrogates (which must be checked for well-formedness). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: exactly the control characters JSON escapes
const NEEDS_CARE = /[\\"\u0000-\u001f\ud800-\udfff]/;

/**
 * RFC 8785 form of a string (ES JSON.stringify of a well-formed string); undefined for a string
 * with a lone surrogate, which has no canonical form.
 */
export function canonicalString(value: string): string | undefined {
  if (!NEEDS_CARE.test(value)) return `"${value}"`;
  return (value as string & { isWellFormed(): boolean }).isWellFormed() ? JSON.stringify(value) : undefined;
}

/** Deeper values are left to `generalCanonicalJson` (which also detects cycles). */
const MAX_PLAIN_DEPTH = 64;

/**
 * RFC 8785 canonical JSON of plain JSON data — strings, finite numbers, booleans, null, arrays
 * and objects without `toJSON` — byte for byte what `canonicalize` returns for it. Returns
 * undefined, never throws, for anything else (the caller falls back to `generalCanonicalJson`): lone
 * surrogates, NaN/Infinity, bigint, undefined/function/symbol array elements, boxed primitives,
 * objects with `toJSON`, nesting deeper than 64 (cycles included).
 */
export function plainCanonicalJson(value: unknown): string | undefined {
  return plain(value, 0);
}

function plain(value: unknown, depth: number): string | undefined {
  switch (typeof value) {
    case 'string':
      return canonicalString(value);
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : undefined;
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object': {
      if (value === null) return 'null';
      if (depth >= MAX_PLAIN_DEPTH) return undefined;
      if (Array.isArray(value)) {
        if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return undefined;
        let out = '[';
        for (let i = 0; i < value.length; i++) {
          const item = plain(value[i], depth + 1);
          if (item === undefined) return undefined;
          out += i === 0 ? item : `,${item}`;
        }
        return `${out}]`;
      }
      if (
        typeof (value as { toJSON?: unknown }).toJSON === 'function' ||
        value instanceof Number ||
        value instanceof String ||
        value instanceof Boolean
      ) {
        return undefined;
      }
      const keys = Object.keys(value).sort();
      let out = '{';
      let first = true;
      for (const key of keys) {
        const v = (value as Record<string, unknown>)[key];
        // Omitted, as by JSON.stringify and canonicalize.
        if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
        const k = canonicalString(key);
        const member = plain(v, depth + 1);
        if (k === undefined || member === undefined) return undefined;
        out += first ? `${k}:${member}` : `,${k}:${member}`;
        first = false;
      }
      return `${out}}`;
    }
    default:
      return undefined;
  }
}
