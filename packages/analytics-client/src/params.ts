/**
 * Input parsers and formatters: tags, date parameters, the query string.
 * Pure functions, property-tested in test/params.property.test.ts.
 */

/** A date filter: a `Date`, a calendar day `YYYY-MM-DD`, or an RFC 3339 timestamp string. */
export type DateInput = Date | string;

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const RFC3339 = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

/** `Date` -> `YYYY-MM-DDTHH:MM:SSZ` in UTC, milliseconds truncated. */
function formatUtcSeconds(date: Date): string {
  if (Number.isNaN(date.getTime())) throw new RangeError('Invalid Date');
  const year = date.getUTCFullYear();
  if (year < 0 || year > 9999) throw new RangeError(`Year out of range: ${year}`);
  return (
    `${pad(year, 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}` +
    `T${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}Z`
  );
}

/** Whether `YYYY-MM-DD` names a day of the (proleptic Gregorian) calendar: no `02-30`, no month 13. */
function isValidDay(value: string): boolean {
  const m = DAY.exec(value);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1];
  return days !== undefined && d >= 1 && d <= days;
}

/**
 * What is impossible in an RFC 3339 timestamp's fields (a day that does not exist, hour 24, minute
 * 60, leap second 60, offset +24:00), or `undefined`. `Date` would silently shift these
 * (`2026-02-30T00:00:00Z` -> March 2nd, `T24:00:00` -> the next day), so they are refused instead.
 */
function impossibleField(m: RegExpExecArray): string | undefined {
  const [, day = '', hh, mm, ss, , offH, offM] = m;
  if (!isValidDay(day)) return `${day} is not a calendar day`;
  if (Number(hh) > 23 || Number(mm) > 59 || Number(ss) > 59) return `${hh}:${mm}:${ss} is not a time of day`;
  if (offH !== undefined && (Number(offH) > 23 || Number(offM) > 59))
    return `offset ${offH}:${offM} out of range`;
  return undefined;
}

/**
 * Formats a `from`/`to` filter the way the server compares it.
 *
 * The server compares the parameter as a *string* against stored UTC timestamps
 * (`started_at >= ?`, `started_at <= ?`, stored as `2026-11-22T12:59:38Z`). So:
 * - a `Date` (or an RFC 3339 string with any offset) is sent as UTC `YYYY-MM-DDTHH:MM:SSZ`;
 * - a day `YYYY-MM-DD` is sent as is for `from` (every timestamp of that day sorts after it) and as
 *   `YYYY-MM-DDT23:59:59Z` for `to`, so that `to` includes the whole day: a bare `to=2026-11-22` would
 *   exclude every session of 2026-11-22 (see fixtures `sessions_to_date` vs `sessions_to_rfc3339`).
 * Impossible dates and times (`2026-02-30`, `2026-02-31T10:00:00+01:00`, `T24:00:00`) throw `RangeError`.
 */
export function formatDateParam(value: DateInput, bound: 'from' | 'to'): string {
  if (value instanceof Date) return formatUtcSeconds(value);
  if (typeof value !== 'string') throw new TypeError(`Expected a Date or a date string, got ${typeof value}`);
  if (DAY.test(value)) {
    if (!isValidDay(value)) throw new RangeError(`Invalid calendar day: ${value}`);
    return bound === 'from' ? value : `${value}T23:59:59Z`;
  }
  const m = RFC3339.exec(value);
  if (m) {
    const impossible = impossibleField(m);
    if (impossible) throw new RangeError(`Invalid timestamp: ${value} (${impossible})`);
    const parsed = new Date(value.replace(' ', 'T'));
    if (Number.isNaN(parsed.getTime())) throw new RangeError(`Invalid timestamp: ${value}`);
    return formatUtcSeconds(parsed);
  }
  throw new RangeError(`Expected a Date, YYYY-MM-DD or an RFC 3339 timestamp, got ${JSON.stringify(value)}`);
}

/** Parses the wire's comma-separated tags (`"bugfix, auth"`) into a clean array, like the server's /api/tags does. */
export function parseTags(wire: string | null | undefined): string[] {
  if (!wire) return [];
  return wire
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
}

/**
 * Serialises tags for PATCH /api/sessions/{id}: the server takes only a comma-separated string and
 * filters `?tag=` with `',' || tags || ','  LIKE '%,tag,%'`, so tags are trimmed and joined with a bare comma.
 * A tag containing a comma cannot be represented and throws.
 */
export function formatTags(tags: readonly string[]): string {
  const out: string[] = [];
  for (const raw of tags) {
    if (typeof raw !== 'string') throw new TypeError('tags must be strings');
    const tag = raw.trim();
    if (tag === '') continue;
    if (tag.includes(',')) throw new RangeError(`A tag cannot contain a comma: ${JSON.stringify(raw)}`);
    if (!out.includes(tag)) out.push(tag);
  }
  return out.join(',');
}

export type QueryValue = string | number | boolean | undefined | null;

/** Builds a query string, skipping `undefined`/`null`/`''`, in insertion order. */
export function buildQuery(params: Record<string, QueryValue>): URLSearchParams {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === null || value === '') continue;
    search.append(key, String(value));
  }
  return search;
}
