/** biome-ignore-all lint/suspicious/noExplicitAny: JSON bodies of a black-box HTTP suite are read without schemas */
/** Rate limits of the spec per category. */
import { describe, expect, it } from 'vitest';
import { type Harness, policyBody } from '../harness';

export function rateLimitCases(h: Harness): void {
  describe('rate limits', () => {
    it('60 policy mutations per minute per tenant, then 429 with Retry-After and RateLimit-*', async () => {
      const { server: s, gov: g } = await h.setup();
      h.extra.push(s);
      try {
        const statuses: number[] = [];
        for (let i = 0; i < 60; i++) {
          const r = await h.call('/policies', {
            as: i % 2 ? 'enterpriseAdmin' : 'orgAdmin',
            base: s.url,
            method: 'POST',
            body: {},
          });
          statuses.push(r.status);
          if (i === 0) {
            expect(r.headers.get('ratelimit-limit')).toBe('60');
            expect(r.headers.get('ratelimit-remaining')).toBe('59');
            expect(r.headers.get('ratelimit-policy')).toContain('60;w=60');
          }
        }
        expect(statuses.every((x) => x === 400)).toBe(true);
        const limited = await h.call('/policies', {
          as: 'enterpriseAdmin',
          base: s.url,
          method: 'POST',
          body: policyBody(),
        });
        h.expectError(limited, 429, 'rate_limit_exceeded');
        const retry = Number(limited.headers.get('retry-after'));
        expect(retry).toBeGreaterThanOrEqual(1);
        expect(retry).toBeLessThanOrEqual(60);
        expect(limited.headers.get('ratelimit-remaining')).toBe('0');
        // another tenant is not affected; reads are another category
        expect(
          (await h.call('/policies', { as: 'otherTenantAdmin', base: s.url, method: 'POST', body: {} }))
            .status,
        ).toBe(400);
        expect((await h.call('/audit', { as: 'enterpriseAdmin', base: s.url })).status).toBe(200);
      } finally {
        await g.close();
      }
    });
    it('audit export: 10 per minute', async () => {
      const { server: s, gov: g } = await h.setup();
      h.extra.push(s);
      try {
        for (let i = 0; i < 10; i++)
          expect((await h.call('/audit/export', { as: 'enterpriseAdmin', base: s.url })).status).toBe(200);
        h.expectError(await h.call('/audit/export', { as: 'enterpriseAdmin', base: s.url }), 429);
      } finally {
        await g.close();
      }
    });
    it('/status: 300 per minute per client address', async () => {
      const { server: s, gov: g } = await h.setup();
      h.extra.push(s);
      try {
        const results = await Promise.all(
          Array.from({ length: 301 }, () => fetch(`${s.url}/api/v1/status`).then((r) => r.status)),
        );
        expect(results.filter((x) => x === 200)).toHaveLength(300);
        expect(results.filter((x) => x === 429)).toHaveLength(1);
      } finally {
        await g.close();
      }
    });
  });
}
