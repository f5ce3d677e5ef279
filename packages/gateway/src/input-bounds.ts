/**
 * Bounds every request input (path parameters, query, JSON body) meets before any route runs and
 * before any I/O — so a value the database cannot store, or should not store, is a 400 with the
 * spec's error body instead of a 500/503 from deep inside a store:
 * - nesting depth at most 16 and at most 5 000 values in all;
 * - strings at most 64 KiB, without NUL (PostgreSQL text cannot hold it) and without lone UTF-16
 *   surrogates (not encodable as UTF-8; the audit validator refuses them);
 * - a string that is an ISO 8601 date must have a year from 0001 to 9999 (PostgreSQL `timestamptz`
 *   and JavaScript dates disagree outside it; expanded `+010000-…` years are refused).
 */
import { ValidationError } from '@agentgov/core';

const INPUT_BOUNDS = { depth: 16, values: 5_000, stringChars: 65_536 } as const;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const ISO_DATE = /^([+-]\d{6}|\d{4})-\d{2}-\d{2}(?:$|[T ])/;

/** True when `value` has a NUL or any UTF-16 surrogate (only then are the exact checks run). */
function hasNulOrSurrogate(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c === 0 || (c >= 0xd800 && c <= 0xdfff)) return true;
  }
  return false;
}

function checkString(value: string, field: () => string): void {
  if (value.length > INPUT_BOUNDS.stringChars) {
    throw ValidationError.invalid(field(), `longer than ${INPUT_BOUNDS.stringChars} characters`);
  }
  if (hasNulOrSurrogate(value)) {
    if (value.includes('\u0000')) throw ValidationError.invalid(field(), 'contains a NUL character');
    if (LONE_SURROGATE.test(value))
      throw ValidationError.invalid(field(), 'contains a lone UTF-16 surrogate');
  }
  // Only a string starting with a digit or a sign can be an ISO 8601 date.
  const first = value.charCodeAt(0);
  if (!((first >= 48 && first <= 57) || first === 43 || first === 45)) return;
  const date = ISO_DATE.exec(value);
  if (date) {
    const year = date[1] as string;
    if (year.length !== 4 || year === '0000') {
      throw ValidationError.invalid(field(), 'a date must have a year from 0001 to 9999');
    }
  }
}

/** The dotted path of `segments` (`a.b[2].c`); built only for an error. */
function pathOf(segments: readonly (string | number)[]): string {
  let path = '';
  for (const s of segments) path = typeof s === 'number' ? `${path}[${s}]` : path ? `${path}.${s}` : s;
  return path;
}

/** Throws a 400 ValidationError naming the first input out of bounds (`where`: `query`, `(body)`…). */
export function checkInputBounds(input: unknown, where: string): void {
  let values = 0;
  // The path to the current value, as segments: a string is built only when an input is refused.
  const segments: (string | number)[] = [];
  const field = (): string => pathOf(segments) || where;
  const walk = (value: unknown, depth: number): void => {
    values++;
    if (values > INPUT_BOUNDS.values) {
      throw ValidationError.invalid(where, `more than ${INPUT_BOUNDS.values} values`);
    }
    if (typeof value === 'string') {
      checkString(value, field);
      return;
    }
    if (value === null || typeof value !== 'object') return;
    if (depth >= INPUT_BOUNDS.depth) {
      throw ValidationError.invalid(field(), `nested deeper than ${INPUT_BOUNDS.depth} levels`);
    }
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        segments.push(i);
        walk(value[i], depth + 1);
        segments.pop();
      }
      return;
    }
    for (const key of Object.keys(value)) {
      segments.push(key);
      checkString(key, field);
      walk((value as Record<string, unknown>)[key], depth + 1);
      segments.pop();
    }
  };
  walk(input, 0);
}
