/** Calendar days in an IANA time zone, without a date library (Intl only). */

/** True when `tz` is an IANA time zone name the runtime knows. */
export function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** Offset of `tz` from UTC at instant `ms`, in ms (east positive). */
function offsetAt(ms: number, tz: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: tz,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(ms));
  const get = (t: string) => Number(parts.find((p) => p.type === t)?.value);
  const asUtc = Date.UTC(
    get('year'),
    get('month') - 1,
    get('day'),
    get('hour'),
    get('minute'),
    get('second'),
  );
  return asUtc - Math.floor(ms / 1000) * 1000;
}

/** The UTC instant of local midnight starting `date` (YYYY-MM-DD) in `tz` (DST-correct). */
function localMidnight(y: number, m: number, d: number, tz: string): number {
  const guess = Date.UTC(y, m - 1, d);
  let at = guess - offsetAt(guess, tz);
  // A second pass settles days whose midnight is on the other side of a DST change.
  at = guess - offsetAt(at, tz);
  return at;
}

/** Parses `YYYY-MM-DD` as a real calendar date; undefined otherwise (2025-02-30 is not a date). */
export function parseDate(date: string): { y: number; m: number; d: number } | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!match) return undefined;
  const [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const t = new Date(Date.UTC(y, m - 1, d));
  if (t.getUTCFullYear() !== y || t.getUTCMonth() !== m - 1 || t.getUTCDate() !== d) return undefined;
  return { y, m, d };
}

/** [from, to) in UTC of the calendar day `date` in `tz` (23, 24 or 25 hours long). */
export function dayBounds(date: string, tz: string): { from: Date; to: Date } {
  const p = parseDate(date);
  if (!p) throw new RangeError(`not a date: ${date}`);
  const next = new Date(Date.UTC(p.y, p.m - 1, p.d + 1));
  return {
    from: new Date(localMidnight(p.y, p.m, p.d, tz)),
    to: new Date(localMidnight(next.getUTCFullYear(), next.getUTCMonth() + 1, next.getUTCDate(), tz)),
  };
}

/** The local calendar date (YYYY-MM-DD) and time of day (hour, minute) of instant `ms` in `tz`. */
export function localTime(ms: number, tz: string): { date: string; hour: number; minute: number } {
  const local = new Date(ms + offsetAt(ms, tz));
  return {
    date: local.toISOString().slice(0, 10),
    hour: local.getUTCHours(),
    minute: local.getUTCMinutes(),
  };
}
