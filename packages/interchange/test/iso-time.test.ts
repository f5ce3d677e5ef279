/** fast-check: `isoTime` (the node's `nowIso` formatter with its cached minute) is `Date#toISOString`. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoTime } from '../src/context';

const MAX = 8.64e15;
const reference = (ms: number): string | RangeError => {
  try {
    return new Date(ms).toISOString();
  } catch (error) {
    return error as RangeError;
  }
};
const formatted = (ms: number): string | RangeError => {
  try {
    return isoTime(ms);
  } catch (error) {
    return error as RangeError;
  }
};

/** Edges: the years 0000 and 9999 and what lies just outside them, the epoch, the time value limits. */
const year0 = new Date('0000-01-01T00:00:00.000Z').getTime();
const year10000 = new Date('+010000-01-01T00:00:00.000Z').getTime();
const edges = [year0, year10000, 0, -1, MAX, -MAX, Date.UTC(2026, 0, 5, 9)];

/** Time values, many of them within the same minute as the one before (the cached path). */
const times = fc.array(
  fc.oneof(
    fc.integer({ min: -MAX, max: MAX }),
    fc.integer({ min: year0 - 120_000, max: year0 + 120_000 }),
    fc.integer({ min: year10000 - 120_000, max: year10000 + 120_000 }),
    fc.integer({ min: -120_000, max: 120_000 }),
    fc.constantFrom(...edges),
    fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, MAX + 1, 0.5, -0, 1e15 + 0.25),
  ),
  { maxLength: 30 },
);
const offsets = fc.array(fc.integer({ min: -61_000, max: 61_000 }), { maxLength: 30 });

describe('isoTime', () => {
  it('gives exactly what toISOString gives (RangeError included), whatever was formatted before', () => {
    fc.assert(
      fc.property(times, offsets, (values, steps) => {
        for (const ms of values) {
          expect(formatted(ms)).toEqual(reference(ms));
          // then a walk around it: the same minute, the next, the previous
          let t = ms;
          for (const step of steps) {
            t += step;
            expect(formatted(t)).toEqual(reference(t));
          }
        }
      }),
      { numRuns: 500 },
    );
  });

  it('formats each millisecond of a minute and its neighbours like toISOString', () => {
    const start = Date.UTC(2026, 10, 26, 23, 59);
    for (let ms = start - 2_000; ms < start + 62_000; ms++)
      expect(isoTime(ms)).toBe(new Date(ms).toISOString());
    const last = new Date('9999-12-31T23:59:00.000Z').getTime();
    for (let ms = last - 1_000; ms < last + 61_000; ms += 7)
      expect(isoTime(ms)).toBe(new Date(ms).toISOString());
  });
});
