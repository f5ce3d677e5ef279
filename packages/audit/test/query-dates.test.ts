/**
 * `from`/`to` of GET /audit and GET /audit/export go through core's one instant parser: bounds are
 * checked after conversion to UTC, so a date-time whose offset carries it out of the years
 * 0001–9999 is a 400 naming the parameter — never a filter a store would fail on (a 503, an
 * export cut short).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseAuditExportQuery, parseAuditQuery } from '../src/index';

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
const dateTime = fc
  .record({
    y: fc.integer({ min: 0, max: 9999 }),
    mo: fc.integer({ min: 1, max: 12 }),
    d: fc.integer({ min: 1, max: 28 }),
    h: fc.integer({ min: 0, max: 23 }),
    off: fc.integer({ min: -14, max: 14 }),
  })
  .map(
    ({ y, mo, d, h, off }) =>
      `${pad(y, 4)}-${pad(mo)}-${pad(d)}T${pad(h)}:00:00${off === 0 ? 'Z' : `${off < 0 ? '-' : '+'}${pad(Math.abs(off))}:00`}`,
  );
const dateLike = fc.oneof(dateTime, fc.string(), fc.constantFrom('9999-12-31', '0001-01-01', '0000-01-01'));

describe('audit date filters', () => {
  it('the offsets that leave 0001–9999 once in UTC: invalid_type naming the parameter, list and export', () => {
    for (const parse of [parseAuditQuery, parseAuditExportQuery]) {
      const to = parse({ to: '9999-12-31T23:59:59-14:00' });
      expect(to.isErr()).toBe(true);
      expect(to._unsafeUnwrapErr()).toMatchObject({ code: 'invalid_type', field: 'to', status: 400 });
      const from = parse({ from: '0001-01-01T00:00:00+14:00' });
      expect(from._unsafeUnwrapErr()).toMatchObject({ code: 'invalid_type', field: 'from', status: 400 });
    }
    // The same instants written inside the range are fine, in canonical UTC form.
    expect(parseAuditQuery({ to: '9999-12-31T23:59:59+14:00' })._unsafeUnwrap().filter.to).toBe(
      '9999-12-31T09:59:59.000Z',
    );
  });

  it('property: a from/to either parses into a canonical UTC bound within 0001–9999 or is a 400 naming it', () => {
    fc.assert(
      fc.property(
        fc.record({ from: dateLike, to: dateLike }, { requiredKeys: [] }),
        fc.boolean(),
        (raw, list) => {
          const r = list ? parseAuditQuery(raw) : parseAuditExportQuery(raw);
          if (r.isErr()) {
            expect(r.error.status).toBe(400);
            expect(['from', 'to']).toContain(r.error.field);
            return;
          }
          for (const bound of [r.value.filter.from, r.value.filter.to]) {
            if (bound === undefined) continue;
            expect(bound).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
            expect(bound >= '0001-01-01T00:00:00.000Z' && bound <= '9999-12-31T23:59:59.999Z').toBe(true);
          }
        },
      ),
      { numRuns: 1000 },
    );
  });
});
