/**
 * Properties of the input schemas and the retry policy: what is accepted is sent unchanged, what is
 * refused names its field, `from ≤ to` agrees with time order, `Retry-After` parses both forms, and
 * backoff delays stay within their bounds.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type AnalyticsClient,
  AnalyticsValidationError,
  backoffDelay,
  parseRetryAfter,
  resolveRetry,
} from '../src';
import { fixtureClient, loadFixture } from './helpers';

const refusal = async (p: Promise<unknown>) => {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  return e instanceof AnalyticsValidationError ? e.field : undefined;
};

describe('budget amounts', () => {
  it('every finite amount >= 0 is sent as is; every other number is refused as amountUsd, unsent', async () => {
    await fc.assert(
      fc.asyncProperty(fc.double(), async (amountUsd) => {
        const t = fixtureClient([loadFixture('budgets_POST')]);
        const field = await refusal(t.client.createBudget({ name: 'b', period: 'weekly', amountUsd }));
        if (Number.isFinite(amountUsd) && amountUsd >= 0) {
          expect(field).toBeUndefined();
          expect(JSON.parse(t.requests[0]?.body ?? '{}').amount_usd).toBe(amountUsd === 0 ? 0 : amountUsd);
        } else {
          expect(field).toBe('amountUsd');
          expect(t.requests).toHaveLength(0);
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('date ranges', () => {
  const instant = fc.date({
    min: new Date('2000-01-01Z'),
    max: new Date('2099-12-31Z'),
    noInvalidDate: true,
  });
  it('from <= to (at second precision) is sent, from > to is refused as to', async () => {
    await fc.assert(
      fc.asyncProperty(instant, instant, async (from, to) => {
        const t = fixtureClient([loadFixture('sessions')]);
        const field = await refusal(t.client.listSessions({ from, to }));
        const ordered = Math.floor(from.getTime() / 1000) <= Math.floor(to.getTime() / 1000);
        expect(field).toBe(ordered ? undefined : 'to');
        expect(t.requests).toHaveLength(ordered ? 1 : 0);
      }),
      { numRuns: 200 },
    );
  });

  it('every date option refuses an impossible day in a full timestamp as that field, sending nothing', async () => {
    const methods: Array<['from' | 'to', (c: AnalyticsClient, v: string) => Promise<unknown>]> = [
      ['from', (c, v) => c.listSessions({ from: v })],
      ['to', async (c, v) => c.iterateSessions({ to: v }).collect()],
      ['from', (c, v) => c.getStats({ from: v })],
      ['to', (c, v) => c.getErrorStats({ to: v })],
      ['from', (c, v) => c.getInsights({ from: v })],
      ['to', (c, v) => c.export({ to: v })],
      ['from', (c, v) => c.exportSessions({ from: v })],
    ];
    const impossible = fc
      .record({
        y: fc.integer({ min: 2000, max: 2099 }),
        mo: fc.integer({ min: 1, max: 12 }),
        past: fc.integer({ min: 1, max: 3 }),
        time: fc.constantFrom('00:00:00Z', '10:00:00+01:00', '23:59:59-05:30'),
      })
      .map(({ y, mo, past, time }) => {
        const d = new Date(Date.UTC(y, mo, 0)).getUTCDate() + past; // past the month's last day
        return `${y}-${String(mo).padStart(2, '0')}-${d}T${time}`;
      });
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...methods), impossible, async ([field, call], value) => {
        const t = fixtureClient([loadFixture('stats')]);
        expect(await refusal(call(t.client, value))).toBe(field);
        expect(t.requests).toHaveLength(0);
      }),
      { numRuns: 200 },
    );
  });

  it('a day range is accepted exactly when the first day is not after the second', async () => {
    const day = instant.map((d) => d.toISOString().slice(0, 10));
    await fc.assert(
      fc.asyncProperty(day, day, async (from, to) => {
        const t = fixtureClient([loadFixture('stats')]);
        const field = await refusal(t.client.getStats({ from, to }));
        expect(field).toBe(from <= to ? undefined : 'to');
      }),
      { numRuns: 200 },
    );
  });
});

describe('page parameters', () => {
  it('limit is sent exactly for integers >= 1', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.integer(), fc.double()), async (limit) => {
        const t = fixtureClient([loadFixture('messages')]);
        const field = await refusal(t.client.listMessages({ limit }));
        const valid = Number.isSafeInteger(limit) && limit >= 1;
        expect(field).toBe(valid ? undefined : 'limit');
        if (valid) expect(t.requests[0]?.url.searchParams.get('limit')).toBe(String(limit));
      }),
      { numRuns: 200 },
    );
  });
});

describe('retry policy', () => {
  it('Retry-After delay-seconds and HTTP dates both parse', () => {
    fc.assert(
      fc.property(fc.nat({ max: 10_000_000 }), (seconds) => {
        expect(parseRetryAfter(String(seconds), 0)).toBe(seconds * 1000);
      }),
    );
    const second = fc.integer({ min: 0, max: 4_000_000_000 }).map((s) => s * 1000);
    fc.assert(
      fc.property(second, second, (at, now) => {
        expect(parseRetryAfter(new Date(at).toUTCString(), now)).toBe(Math.max(0, at - now));
      }),
    );
  });

  it('a backoff delay lies in [0, min(maxDelayMs, minDelayMs·factor^(n-1))]', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 0, max: 60_000 }),
        fc.double({ min: 1, max: 4, noNaN: true }),
        fc.double({ min: 0, max: 0.999_999, noNaN: true }),
        (n, minDelayMs, maxDelayMs, factor, r) => {
          const policy = resolveRetry({ minDelayMs, maxDelayMs, factor });
          const cap = Math.min(maxDelayMs, minDelayMs * factor ** (n - 1));
          const delay = backoffDelay(n, policy, () => r);
          expect(delay).toBeGreaterThanOrEqual(0);
          expect(delay).toBeLessThanOrEqual(cap);
          expect(backoffDelay(n, { ...policy, jitter: 'none' })).toBe(cap);
        },
      ),
    );
  });
});
