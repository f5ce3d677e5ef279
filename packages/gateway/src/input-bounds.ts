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

/** Why a string is out of bounds, or undefined when it is within them. */
function stringFault(value: string): string | undefined {
  if (value.length > INPUT_BOUNDS.stringChars) return `longer than ${INPUT_BOUNDS.stringChars} characters`;
  if (hasNulOrSurrogate(value)) {
    if (value.includes('\u0000')) return 'contains a NUL character';
    if (LONE_SURROGATE.test(value)) return 'contains a lone UTF-16 surrogate';
  }
  // Only a string starting with a digit or a sign can be an ISO 8601 date.
  const first = value.charCodeAt(0);
  if (!((first >= 48 && first <= 57) || first === 43 || first === 45)) return undefined;
  const date = ISO_DATE.exec(value);
  if (date) {
    const year = date[1] as string;
    if (year.length !== 4 || year === '0000') return 'a date must have a year from 0001 to 9999';
  }
  return undefined;
}

/** The dotted path of `segments` (`a.b[2].c`); built only for an error. */
function pathOf(segments: readonly (string | number)[]): string {
  let path = '';
  for (const s of segments) path = typeof s === 'number' ? `${path}[${s}]` : path ? `${path}.${s}` : s;
  return path;
}

/** Where the walk is: the values seen so far, and the path to the current one as segments. */
interface Walk {
  readonly where: string;
  values: number;
  readonly segments: (string | number)[];
}

/** The error naming the current value (its dotted path, or `where` at the top). */
const refuse = (w: Walk, fault: string): ValidationError =>
  ValidationError.invalid(pathOf(w.segments) || w.where, fault);

function walk(w: Walk, value: unknown, depth: number): void {
  w.values++;
  if (w.values > INPUT_BOUNDS.values) {
    throw ValidationError.invalid(w.where, `more than ${INPUT_BOUNDS.values} values`);
  }
  if (typeof value === 'string') {
    const fault = stringFault(value);
    if (fault !== undefined) throw refuse(w, fault);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  if (depth >= INPUT_BOUNDS.depth) throw refuse(w, `nested deeper than ${INPUT_BOUNDS.depth} levels`);
  const { segments } = w;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      segments.push(i);
      walk(w, value[i], depth + 1);
      segments.pop();
    }
    return;
  }
  for (const key of Object.keys(value)) {
    segments.push(key);
    const fault = stringFault(key);
    if (fault !== undefined) throw refuse(w, fault);
    walk(w, (value as Record<string, unknown>)[key], depth + 1);
    segments.pop();
  }
}

/** Throws a 400 ValidationError naming the first input out of bounds (`where`: `query`, `(body)`…). */
export function checkInputBounds(input: unknown, where: string): void {
  // The path is kept as segments: a string is built only when an input is refused.
  walk({ where, values: 0, segments: [] }, input, 0);
}
