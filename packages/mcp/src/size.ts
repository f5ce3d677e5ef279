/**
 * Whether a value's JSON text is over a byte limit, without serializing it when bounds decide: one
 * walk gives a lower and an upper bound of its UTF-8 JSON size (a UTF-16 unit is 1 to 6 bytes
 * — an escape `\uXXXX` at most; a number 1 to 24 characters), and only a value whose bounds
 * straddle the limit is serialized to be measured exactly. A result far below the limit (the
 * usual case) or far above it (a flood) costs one walk, not a second `JSON.stringify`.
 */

/** Deeper than this, the walk gives up and the value is measured exactly. */
const MAX_DEPTH = 64;

interface Bounds {
  lo: number;
  hi: number;
}

/** Adds the bounds of `value` to `b`; false when the walk cannot bound it (then measure it exactly). */
function walk(value: unknown, b: Bounds, depth: number): boolean {
  switch (typeof value) {
    case 'string':
      b.lo += value.length + 2;
      b.hi += value.length * 6 + 2;
      return true;
    case 'number':
      b.lo += 1;
      b.hi += 24;
      return true;
    case 'boolean':
      b.lo += 4;
      b.hi += 5;
      return true;
    case 'object': {
      if (value === null) {
        b.lo += 4;
        b.hi += 4;
        return true;
      }
      if (depth >= MAX_DEPTH) return false;
      if (Array.isArray(value)) {
        b.lo += 2 + Math.max(0, value.length - 1);
        b.hi += 2 + Math.max(0, value.length - 1);
        for (const item of value) {
          // JSON writes undefined, functions and symbols in arrays as null.
          if (item === undefined || typeof item === 'function' || typeof item === 'symbol') {
            b.lo += 4;
            b.hi += 4;
          } else if (!walk(item, b, depth + 1)) return false;
        }
        return true;
      }
      const proto = Object.getPrototypeOf(value);
      if ((proto !== Object.prototype && proto !== null) || 'toJSON' in value) return false;
      b.lo += 2;
      b.hi += 2;
      let first = true;
      for (const key in value) {
        if (!Object.hasOwn(value, key)) continue;
        const v = (value as Record<string, unknown>)[key];
        // JSON leaves out properties whose value is undefined, a function or a symbol.
        if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
        const comma = first ? 0 : 1;
        first = false;
        b.lo += key.length + 3 + comma;
        b.hi += key.length * 6 + 3 + comma;
        if (!walk(v, b, depth + 1)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

/**
 * True when the UTF-8 JSON text of `value` is over `max` bytes, or when `value` is not JSON
 * (`JSON.stringify` throws or gives nothing): either way it cannot be delivered.
 */
export function jsonExceeds(value: unknown, max: number): boolean {
  const b: Bounds = { lo: 0, hi: 0 };
  if (walk(value, b, 0)) {
    if (b.lo > max) return true;
    if (b.hi <= max) return false;
  }
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    return true;
  }
  if (text === undefined) return true;
  return utf8Exceeds(text, max);
}

/** Whether `text` is over `max` bytes in UTF-8 (a UTF-16 unit is 1–3 bytes: counted only when it matters). */
export function utf8Exceeds(text: string, max: number): boolean {
  if (text.length > max) return true;
  if (text.length * 3 <= max) return false;
  return Buffer.byteLength(text, 'utf8') > max;
}
