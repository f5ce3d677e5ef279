/**
 * The one parser of instants a client writes in a request (`from`/`to` filters of GET /audit and
 * GET /audit/export, date-time fields of request bodies): an ISO 8601 date-time with `Z` or an
 * offset, or — where a bound of a range is meant — a calendar date (`from`: the start of that day,
 * `to`: its end, UTC). The value is converted to UTC first and then checked to lie within the
 * years 0001–9999, the range every store and `Date#toISOString` write with four digits:
 * `9999-12-31T23:59:59-14:00` is in the year 10000 once in UTC, and `0001-01-01T00:00:00+14:00` in
 * the year 0 — both are refused (a 400 naming the parameter), never handed to a store that would
 * fail on them (a 503, an export cut short). What comes out is the canonical UTC form
 * `YYYY-MM-DDTHH:mm:ss.sssZ`, so bounds compare as strings.
 */
import { z } from 'zod';

/** 0001-01-01T00:00:00.000Z, the first instant accepted. */
export const MIN_INSTANT_MS = Date.parse('0001-01-01T00:00:00.000Z');
/** 9999-12-31T23:59:59.999Z, the last instant accepted. */
export const MAX_INSTANT_MS = Date.parse('9999-12-31T23:59:59.999Z');

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = z.iso.datetime({ offset: true });
const DATE = z.iso.date();

/** Which end of a range a bare date stands for. */
export type InstantBound = 'start' | 'end';

export type InstantParse = { ok: true; value: string } | { ok: false; message: string };

/**
 * Parses an instant as a client writes it (see the module comment): the canonical UTC string, or
 * why not. `bound` says what a bare date means; `dates: false` accepts date-times only.
 */
export function parseInstant(
  value: string,
  options: { bound?: InstantBound; dates?: boolean } = {},
): InstantParse {
  const dates = options.dates ?? true;
  let ms: number;
  if (dates && DATE_ONLY.test(value)) {
    if (!DATE.safeParse(value).success) return { ok: false, message: 'must be a calendar date' };
    ms = Date.parse(`${value}T${options.bound === 'end' ? '23:59:59.999' : '00:00:00.000'}Z`);
  } else {
    if (!DATE_TIME.safeParse(value).success) {
      return {
        ok: false,
        message: dates
          ? 'must be an ISO 8601 date or date-time'
          : 'must be an ISO 8601 date-time with Z or an offset',
      };
    }
    // The written calendar date must exist (Date.parse rolls 2026-02-30 over into March).
    if (!DATE.safeParse(value.slice(0, 10)).success) return { ok: false, message: 'must be a calendar date' };
    ms = Date.parse(value);
  }
  if (!Number.isFinite(ms)) return { ok: false, message: 'must be a valid date-time' };
  if (ms < MIN_INSTANT_MS || ms > MAX_INSTANT_MS) {
    return {
      ok: false,
      message: 'must lie between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z in UTC',
    };
  }
  return { ok: true, value: new Date(ms).toISOString() };
}

/**
 * A zod schema of `parseInstant`: a string in, the canonical UTC string out; anything else is an
 * issue on the field (a 400 `invalid_type` naming it at the HTTP edge).
 */
export function instantSchema(options: { bound?: InstantBound; dates?: boolean } = {}) {
  return z.string().transform((value, ctx): string => {
    const parsed = parseInstant(value, options);
    if (parsed.ok) return parsed.value;
    ctx.addIssue({ code: 'custom', message: parsed.message, input: value });
    return z.NEVER;
  });
}
