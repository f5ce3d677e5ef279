import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  formatContentDisposition,
  formatDateParam,
  formatTags,
  parseContentDisposition,
  parseTags,
  reconnectDelay,
} from '../src';
import { camelToSnake, snakeToCamel } from '../src/wire/primitives';

const tag = fc
  .string({ minLength: 1, maxLength: 12 })
  .filter((s) => !s.includes(',') && s.trim() === s && s !== '');
const date = fc.date({
  min: new Date('1970-01-01T00:00:00Z'),
  max: new Date('9999-12-31T23:59:59Z'),
  noInvalidDate: true,
});

describe('tags', () => {
  it('array -> wire string -> array is the identity for clean, distinct tags', () => {
    fc.assert(
      fc.property(fc.uniqueArray(tag, { maxLength: 8 }), (tags) => {
        expect(parseTags(formatTags(tags))).toEqual(tags);
      }),
    );
  });

  it('the wire string never has spaces around commas (the server filters with ",tag,")', () => {
    fc.assert(
      fc.property(fc.array(tag.map((t) => `  ${t} `)), (tags) => {
        const wire = formatTags(tags);
        expect(wire).not.toMatch(/\s,|,\s/);
        for (const t of parseTags(wire)) expect(`,${wire},`).toContain(`,${t},`);
      }),
    );
  });

  it('parsing drops empty entries and trims, and is idempotent through format', () => {
    fc.assert(
      fc.property(fc.string(), (wire) => {
        const tags = parseTags(wire);
        expect(tags.every((t) => t !== '' && t.trim() === t && !t.includes(','))).toBe(true);
        expect(parseTags(formatTags(tags))).toEqual([...new Set(tags)]);
      }),
    );
  });

  it('rejects a tag containing a comma', () => {
    fc.assert(
      fc.property(tag, tag, (a, b) => {
        expect(() => formatTags([`${a},${b}`])).toThrow(RangeError);
      }),
    );
  });
});

describe('date parameters', () => {
  it('a Date is sent as UTC seconds that order like the instant (string order == time order)', () => {
    fc.assert(
      fc.property(date, date, (a, b) => {
        const fa = formatDateParam(a, 'from');
        const fb = formatDateParam(b, 'from');
        expect(fa).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
        expect(new Date(fa).getTime()).toBe(Math.floor(a.getTime() / 1000) * 1000);
        const secA = Math.floor(a.getTime() / 1000);
        const secB = Math.floor(b.getTime() / 1000);
        expect(Math.sign(fa.localeCompare(fb, 'en'))).toBe(Math.sign(secA - secB));
        expect(fa < fb).toBe(secA < secB);
      }),
    );
  });

  it('a day as `to` includes every stored timestamp of that day and none of the next', () => {
    fc.assert(
      fc.property(date, fc.integer({ min: 0, max: 86_399_999 }), (d, ms) => {
        const day = d.toISOString().slice(0, 10);
        if (day.startsWith('9999-12-31')) return;
        const start = new Date(`${day}T00:00:00Z`).getTime();
        const stored = formatDateParam(new Date(start + ms), 'from'); // how the server stores times
        const nextDay = formatDateParam(new Date(start + 86_400_000 + ms), 'from');
        const to = formatDateParam(day, 'to');
        const from = formatDateParam(day, 'from');
        expect(stored <= to).toBe(true);
        expect(stored >= from).toBe(true);
        expect(nextDay <= to).toBe(false);
      }),
    );
  });

  it('a day or a full timestamp is accepted exactly when its fields exist, and then never shifted', () => {
    const p = (n: number) => String(n).padStart(2, '0');
    fc.assert(
      fc.property(
        fc.integer({ min: 1970, max: 2100 }),
        fc.integer({ min: 0, max: 13 }),
        fc.integer({ min: 0, max: 32 }),
        fc.tuple(
          fc.integer({ min: 0, max: 24 }),
          fc.integer({ min: 0, max: 60 }),
          fc.integer({ min: 0, max: 60 }),
        ),
        fc.constantFrom('Z', '+', '-'),
        fc.tuple(fc.integer({ min: 0, max: 24 }), fc.integer({ min: 0, max: 60 })),
        (y, mo, d, [h, mi, s], sign, [oh, om]) => {
          const day = `${y}-${p(mo)}-${p(d)}`;
          const offset = sign === 'Z' ? 'Z' : `${sign}${p(oh)}:${p(om)}`;
          const value = `${day}T${p(h)}:${p(mi)}:${p(s)}${offset}`;
          // Day 0 of the next month is the last day of this one.
          const lastDay = mo >= 1 && mo <= 12 ? new Date(Date.UTC(y, mo, 0)).getUTCDate() : 0;
          const validDay = d >= 1 && d <= lastDay;
          const validTime = h <= 23 && mi <= 59 && s <= 59 && (sign === 'Z' || (oh <= 23 && om <= 59));
          if (validDay) expect(formatDateParam(day, 'from')).toBe(day);
          else expect(() => formatDateParam(day, 'from')).toThrow(RangeError);
          if (!validDay || !validTime) {
            expect(() => formatDateParam(value, 'from')).toThrow(RangeError);
            return;
          }
          const shift = sign === 'Z' ? 0 : (sign === '+' ? 1 : -1) * (oh * 60 + om) * 60_000;
          const utc = new Date(Date.UTC(y, mo - 1, d, h, mi, s) - shift).toISOString().replace('.000Z', 'Z');
          expect(formatDateParam(value, 'to')).toBe(utc);
          if (sign === 'Z') expect(formatDateParam(value, 'from')).toBe(value);
        },
      ),
      { numRuns: 500 },
    );
    expect(() => formatDateParam('2026-02-30T00:00:00Z', 'from')).toThrow(/not a calendar day/);
    expect(() => formatDateParam('2026-02-31T10:00:00+01:00', 'from')).toThrow(RangeError);
    expect(formatDateParam('2028-02-29T23:30:00-01:00', 'from')).toBe('2028-03-01T00:30:00Z');
  });

  it('RFC 3339 strings with offsets are normalised to UTC', () => {
    expect(formatDateParam('2026-11-22T01:30:00+02:00', 'to')).toBe('2026-11-21T23:30:00Z');
    expect(formatDateParam('2026-11-22T01:30:00.9Z', 'from')).toBe('2026-11-22T01:30:00Z');
  });

  it('rejects anything else', () => {
    fc.assert(
      fc.property(
        fc.string().filter((s) => !/^\d{4}-\d{2}-\d{2}/.test(s)),
        (s) => {
          expect(() => formatDateParam(s, 'from')).toThrow(RangeError);
        },
      ),
    );
    expect(() => formatDateParam('2026-02-30', 'from')).toThrow(RangeError);
    expect(() => formatDateParam(new Date(Number.NaN), 'to')).toThrow(RangeError);
  });
});

describe('Content-Disposition', () => {
  it('format -> parse returns the file name (ASCII and non-ASCII)', () => {
    const name = fc
      .string({ minLength: 1, maxLength: 30, unit: 'grapheme' })
      .filter((s) => !/[\\/]/.test(s) && s.trim() === s);
    fc.assert(
      fc.property(name, (n) => {
        const parsed = parseContentDisposition(formatContentDisposition(n));
        expect(parsed?.type).toBe('attachment');
        expect(parsed?.filename).toBe(n);
      }),
    );
  });

  it('parses the server forms', () => {
    expect(parseContentDisposition('attachment; filename=claude-monitor-export.zip')?.filename).toBe(
      'claude-monitor-export.zip',
    );
    expect(parseContentDisposition('attachment; filename="a \\"b\\".txt"')?.filename).toBe('a "b".txt');
    expect(parseContentDisposition('attachment; filename="../../etc/passwd"')?.filename).toBe('passwd');
    expect(parseContentDisposition('INLINE')?.type).toBe('inline');
    expect(parseContentDisposition('')).toBeUndefined();
    expect(parseContentDisposition('attachment; filename="unterminated')).toBeUndefined();
  });

  it('never throws on arbitrary input', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        parseContentDisposition(s);
      }),
    );
  });
});

describe('key case mapping', () => {
  it('snake -> camel -> snake is the identity for lower snake_case keys', () => {
    const key = fc.stringMatching(/^[a-z][a-z0-9]*(_[a-z][a-z0-9]*)*$/);
    fc.assert(
      fc.property(key, (k) => {
        expect(camelToSnake(snakeToCamel(k))).toBe(k);
      }),
    );
  });
});

describe('reconnect delay', () => {
  it('is non-decreasing in the attempt without jitter, capped, and within [half, full) with jitter', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1000 }),
        fc.integer({ min: 1, max: 60_000 }),
        fc.integer({ min: 1, max: 200 }),
        fc.double({ min: 0, max: 0.999999, noNaN: true }),
        (min, max, attempt, r) => {
          const opts = { minDelayMs: min, maxDelayMs: max, jitter: false };
          const d = reconnectDelay(attempt, opts);
          expect(d).toBeLessThanOrEqual(Math.max(max, 0));
          expect(reconnectDelay(attempt + 1, opts)).toBeGreaterThanOrEqual(d);
          const j = reconnectDelay(attempt, { ...opts, jitter: true }, () => r);
          expect(j).toBeGreaterThanOrEqual(Math.floor(d / 2));
          expect(j).toBeLessThanOrEqual(d);
        },
      ),
    );
  });
});
