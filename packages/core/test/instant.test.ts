/**
 * The one parser of client-written instants (`parseInstant`, `instantSchema`): converted to UTC
 * first, then bounded to the years 0001–9999; never a throw, never an out-of-range instant.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { instantSchema, MAX_INSTANT_MS, MIN_INSTANT_MS, parseInstant } from '../src/index';

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** ISO 8601 date-times over the whole four-digit range, with any offset of ±14:00, and dates. */
const isoLike = fc.oneof(
  fc
    .record({
      y: fc.integer({ min: 0, max: 9999 }),
      mo: fc.integer({ min: 1, max: 12 }),
      d: fc.integer({ min: 1, max: 31 }),
      h: fc.integer({ min: 0, max: 23 }),
      mi: fc.integer({ min: 0, max: 59 }),
      s: fc.integer({ min: 0, max: 59 }),
      frac: fc.option(fc.integer({ min: 0, max: 999_999 }), { nil: undefined }),
      off: fc.oneof(fc.constant('Z'), fc.integer({ min: -14 * 60, max: 14 * 60 })),
    })
    .map(({ y, mo, d, h, mi, s, frac, off }) => {
      const zone =
        off === 'Z'
          ? 'Z'
          : `${off < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(off) / 60))}:${pad(Math.abs(off) % 60)}`;
      return `${pad(y, 4)}-${pad(mo)}-${pad(d)}T${pad(h)}:${pad(mi)}:${pad(s)}${frac === undefined ? '' : `.${frac}`}${zone}`;
    }),
  fc
    .record({
      y: fc.integer({ min: 0, max: 9999 }),
      mo: fc.integer({ min: 0, max: 13 }),
      d: fc.integer({ min: 0, max: 32 }),
    })
    .map(({ y, mo, d }) => `${pad(y, 4)}-${pad(mo)}-${pad(d)}`),
  fc.constantFrom(
    '9999-12-31T23:59:59-14:00',
    '0001-01-01T00:00:00+14:00',
    '9999-12-31T23:59:59.999Z',
    '0001-01-01T00:00:00Z',
    '0000-12-31T23:59:59Z',
    '+010000-01-01T00:00:00Z',
    '-000001-01-01T00:00:00Z',
  ),
  fc.string(),
);

describe('parseInstant', () => {
  it('bounds are checked after conversion to UTC: the offsets that leave 0001–9999 are refused', () => {
    for (const v of [
      '9999-12-31T23:59:59-14:00',
      '0001-01-01T00:00:00+14:00',
      '0000-12-31',
      '+010000-01-01T00:00:00Z',
    ]) {
      const r = parseInstant(v);
      expect(r.ok, v).toBe(false);
    }
    expect(parseInstant('9999-12-31T23:59:59+14:00')).toEqual({
      ok: true,
      value: '9999-12-31T09:59:59.000Z',
    });
    expect(parseInstant('0001-01-01T00:00:00-14:00')).toEqual({
      ok: true,
      value: '0001-01-01T14:00:00.000Z',
    });
    expect(parseInstant('9999-12-31', { bound: 'end' })).toEqual({
      ok: true,
      value: '9999-12-31T23:59:59.999Z',
    });
    expect(parseInstant('0001-01-01')).toEqual({ ok: true, value: '0001-01-01T00:00:00.000Z' });
  });

  it('keeps the syntax it accepted before: no local times, no rolled-over dates, dates only where allowed', () => {
    for (const v of [
      '2026-01-01T00:00:00',
      '2026-02-30T00:00:00Z',
      '2026-01-01T24:00:00Z',
      'yesterday',
      '',
    ]) {
      expect(parseInstant(v).ok, v).toBe(false);
    }
    expect(parseInstant('2026-01-01', { dates: false }).ok).toBe(false);
    expect(parseInstant('2026-01-31T10:00:00+01:00')).toEqual({
      ok: true,
      value: '2026-01-31T09:00:00.000Z',
    });
  });

  it('property: any string parses to a canonical UTC instant within 0001–9999, or is refused; never a throw', () => {
    fc.assert(
      fc.property(
        isoLike,
        fc.constantFrom('start', 'end') as fc.Arbitrary<'start' | 'end'>,
        (value, bound) => {
          const r = parseInstant(value, { bound });
          if (!r.ok) {
            expect(r.message.length).toBeGreaterThan(0);
            return;
          }
          expect(r.value).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
          const ms = Date.parse(r.value);
          expect(ms).toBeGreaterThanOrEqual(MIN_INSTANT_MS);
          expect(ms).toBeLessThanOrEqual(MAX_INSTANT_MS);
          expect(new Date(ms).toISOString()).toBe(r.value);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('instantSchema: the canonical string out, an issue on the field otherwise', () => {
    const schema = instantSchema({ bound: 'end' });
    expect(schema.parse('2026-01-31')).toBe('2026-01-31T23:59:59.999Z');
    const bad = schema.safeParse('9999-12-31T23:59:59-14:00');
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.message).toContain('UTC');
  });
});
