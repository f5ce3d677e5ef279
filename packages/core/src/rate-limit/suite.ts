import { expect } from 'vitest';
import { defineConformanceSuite, STRING_255, UNICODE_SAMPLES } from '../testing/conformance';
import type { RateLimit, RateLimitDecision, RateLimiter } from './port';

const MINUTE: RateLimit = { points: 5, durationSeconds: 60 };

async function consumeTimes(limiter: RateLimiter, key: string, limit: RateLimit, n: number) {
  const out: RateLimitDecision[] = [];
  for (let i = 0; i < n; i++) out.push(await limiter.consume(key, limit));
  return out;
}
const allowedCount = (ds: readonly RateLimitDecision[]) => ds.filter((d) => d.allowed).length;

const cases = {
  'consume: allows exactly `points` consumptions of a key, then refuses': async (limiter: RateLimiter) => {
    const ds = await consumeTimes(limiter, 'policy_mutations:acme', MINUTE, 8);
    expect(ds.map((d) => d.allowed)).toEqual([true, true, true, true, true, false, false, false]);
    for (const d of ds) expect(d.limit).toBe(MINUTE.points);
  },
  'consume: remaining counts down to 0 and stays 0 when refused': async (limiter: RateLimiter) => {
    const ds = await consumeTimes(limiter, 'audit_queries:acme', MINUTE, 7);
    expect(ds.map((d) => d.remaining)).toEqual([4, 3, 2, 1, 0, 0, 0]);
  },
  'consume: resetSeconds is within the window, and ≥ 1 when refused': async (limiter: RateLimiter) => {
    const ds = await consumeTimes(limiter, 'admin:acme', MINUTE, 7);
    for (const d of ds) {
      expect(d.resetSeconds).toBeGreaterThanOrEqual(0);
      expect(d.resetSeconds).toBeLessThanOrEqual(MINUTE.durationSeconds);
      expect(Number.isInteger(d.resetSeconds)).toBe(true);
    }
    const refused = ds.filter((d) => !d.allowed);
    expect(refused).toHaveLength(2);
    for (const d of refused) expect(d.resetSeconds).toBeGreaterThanOrEqual(1);
  },
  'keys: each key has its own window (also keys sharing a prefix, case-different, unicode, long)': async (
    limiter: RateLimiter,
  ) => {
    const limit: RateLimit = { points: 2, durationSeconds: 60 };
    expect(allowedCount(await consumeTimes(limiter, 'acme', limit, 3))).toBe(2);
    for (const key of ['acme:1', 'acme1', 'acm', 'ACME', ...UNICODE_SAMPLES, STRING_255]) {
      const ds = await consumeTimes(limiter, key, limit, 3);
      expect(ds.map((d) => d.allowed)).toEqual([true, true, false]);
      expect(ds[0]?.remaining).toBe(1);
    }
    expect((await limiter.consume('acme', limit)).allowed).toBe(false);
  },
  'limits: the same key under different limits is counted separately per limit': async (
    limiter: RateLimiter,
  ) => {
    const key = 'system_status:10.0.0.1';
    const a: RateLimit = { points: 2, durationSeconds: 60 };
    const morePoints: RateLimit = { points: 3, durationSeconds: 60 };
    const otherWindow: RateLimit = { points: 2, durationSeconds: 30 };
    expect(allowedCount(await consumeTimes(limiter, key, a, 4))).toBe(2);
    const b = await consumeTimes(limiter, key, morePoints, 4);
    expect(b.map((d) => d.remaining)).toEqual([2, 1, 0, 0]);
    expect(allowedCount(b)).toBe(3);
    expect(allowedCount(await consumeTimes(limiter, key, otherWindow, 3))).toBe(2);
    expect((await limiter.consume(key, a)).allowed).toBe(false);
  },
  'window: a refused key is allowed again after durationSeconds': async (limiter: RateLimiter) => {
    const limit: RateLimit = { points: 2, durationSeconds: 1 };
    expect((await consumeTimes(limiter, 'audit_export:acme', limit, 3)).map((d) => d.allowed)).toEqual([
      true,
      true,
      false,
    ]);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const again = await limiter.consume('audit_export:acme', limit);
    expect(again).toMatchObject({ allowed: true, limit: 2, remaining: 1 });
  },
  'concurrency: 50 parallel consumptions under 20 points allow exactly 20': async (limiter: RateLimiter) => {
    const limit: RateLimit = { points: 20, durationSeconds: 60 };
    const ds = await Promise.all(
      Array.from({ length: 50 }, () => limiter.consume('policy_mutations:globex', limit)),
    );
    expect(allowedCount(ds)).toBe(20);
    for (const d of ds.filter((x) => !x.allowed)) expect(d.remaining).toBe(0);
    expect((await limiter.consume('policy_mutations:globex', limit)).allowed).toBe(false);
  },
} satisfies Record<string, (limiter: RateLimiter) => Promise<void>>;

export type RateLimiterCaseName = keyof typeof cases;
export const describeRateLimiterConformance = defineConformanceSuite<RateLimiter, RateLimiterCaseName>(
  'RateLimiter',
  cases,
);
