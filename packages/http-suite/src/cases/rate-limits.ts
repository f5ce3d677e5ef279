/** biome-ignore-all lint/suspicious/noExplicitAny: JSON bodies of a black-box HTTP suite are read without schemas */
/** Rate limits of the spec per category. */
import type { GovernanceConfig } from '@agentgov/gateway';
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
            // The current draft's structured fields, the policy named by the category…
            expect(r.headers.get('ratelimit-policy')).toBe('"policy_mutations";q=60;w=60');
            const current = /^"policy_mutations";r=(\d+);t=(\d+)$/.exec(r.headers.get('ratelimit') ?? '');
            expect(current?.[1]).toBe('59');
            expect(Number(current?.[2])).toBeGreaterThanOrEqual(1);
            expect(Number(current?.[2])).toBeLessThanOrEqual(60);
            // …and the reset agrees with the earlier drafts' field.
            expect(r.headers.get('ratelimit-reset')).toBe(current?.[2]);
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
        expect(limited.headers.get('ratelimit')).toMatch(/^"policy_mutations";r=0;t=\d+$/);
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

  describe('client address behind proxies (trustProxy)', () => {
    /** /status is limited per client address: 2 per minute here, to see whose budget a request uses. */
    const statusLimit = { system_status: { points: 2, durationSeconds: 60 } };
    const status = (base: string, headers: Record<string, string> = {}) =>
      fetch(`${base}/api/v1/status`, { headers }).then(async (r) => {
        await r.arrayBuffer();
        return r.status;
      });
    async function withServer(
      kernel: Partial<GovernanceConfig>,
      run: (base: string) => Promise<void>,
    ): Promise<void> {
      const { server: s, gov: g } = await h.setup({
        kernel: { ...kernel, limits: { rateLimits: statusLimit } },
      });
      h.extra.push(s);
      try {
        await run(s.url);
      } finally {
        await g.close();
      }
    }

    it('off by default: X-Forwarded-For and Forwarded are the client’s to invent, so ignored', async () => {
      await withServer({}, async (base) => {
        expect(await status(base, { 'x-forwarded-for': '203.0.113.1' })).toBe(200);
        expect(await status(base, { forwarded: 'for=203.0.113.2' })).toBe(200);
        // every request came from the loopback peer: one budget
        expect(await status(base, { 'x-forwarded-for': '203.0.113.3' })).toBe(429);
      });
    });

    it("'loopback': the address a trusted proxy forwards has its own budget", async () => {
      await withServer({ trustProxy: 'loopback' }, async (base) => {
        for (let i = 0; i < 2; i++)
          expect(await status(base, { 'x-forwarded-for': '203.0.113.1' })).toBe(200);
        expect(await status(base, { 'x-forwarded-for': '203.0.113.1' })).toBe(429);
        // another client behind the proxy, and the proxy's own requests, are not affected
        expect(await status(base, { 'x-forwarded-for': '203.0.113.2' })).toBe(200);
        expect(await status(base)).toBe(200);
      });
    });

    it('only trusted hops count: an address the client put before an untrusted hop is ignored', async () => {
      await withServer({ trustProxy: 'loopback' }, async (base) => {
        // 203.0.113.1 is not trusted: the client is 203.0.113.1 whatever it claimed before it
        for (const spoofed of ['198.51.100.7', '198.51.100.8']) {
          expect(await status(base, { 'x-forwarded-for': `${spoofed}, 203.0.113.1` })).toBe(200);
        }
        expect(await status(base, { 'x-forwarded-for': '203.0.113.1' })).toBe(429);
      });
    });

    it('a hop count: trustProxy 1 trusts the one proxy in front, not the hops it reports', async () => {
      await withServer({ trustProxy: 1 }, async (base) => {
        for (const first of ['198.51.100.7', '198.51.100.8']) {
          expect(await status(base, { 'x-forwarded-for': `${first}, 203.0.113.5` })).toBe(200);
        }
        expect(await status(base, { 'x-forwarded-for': '203.0.113.5' })).toBe(429);
      });
    });

    it("forwardedHeader 'forwarded': the RFC 7239 for= node, and X-Forwarded-For is then ignored", async () => {
      await withServer({ trustProxy: 'loopback', forwardedHeader: 'forwarded' }, async (base) => {
        const fwd = { forwarded: 'for="[2001:db8:cafe::17]:4711";proto=https;by=10.0.0.1' };
        for (let i = 0; i < 2; i++) expect(await status(base, fwd)).toBe(200);
        expect(await status(base, { forwarded: 'for=2001:db8:cafe::17' })).toBe(429);
        expect(await status(base, { forwarded: 'for=192.0.2.60:8080' })).toBe(200);
        // X-Forwarded-For is not the configured header: these are the loopback peer's requests
        expect(await status(base, { 'x-forwarded-for': '203.0.113.9' })).toBe(200);
        expect(await status(base, { 'x-forwarded-for': '203.0.113.10' })).toBe(200);
        expect(await status(base, { 'x-forwarded-for': '203.0.113.11' })).toBe(429);
      });
    });
  });
}
