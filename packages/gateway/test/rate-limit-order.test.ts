/**
 * Issue 12 item 4: the rate limit is counted after authentication and the role check. A plain
 * user hammering an admin route is refused (403) without using the admins' budget; requests that
 * fail authentication count only against the caller address's own `auth_failures` limit — those
 * that presented credentials: a request with none is always the spec's 401.
 */
import { describe, expect, it } from 'vitest';
import type { Governance } from '../src/index';
import { createTestGovernance } from '../src/testing/index';
import { fileIssuer } from './issuer';

const idp = await fileIssuer();

const call = (gov: Governance, path: string, token: string | undefined, remoteAddress = '10.0.0.1') =>
  gov.handle(
    new Request(`http://gw/api/v1${path}`, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
    }),
    { remoteAddress },
  );

describe('rate limit order (issue 12 item 4)', () => {
  it("a plain user hammering an admin route gets 403 and leaves the admins' budget intact", async () => {
    const gov = createTestGovernance(idp);
    try {
      const user = await idp.signIdToken({ sub: 'u', roles: ['user'], tenant_id: 't' });
      const admin = await idp.signIdToken({ sub: 'ea', roles: ['enterprise_admin'], tenant_id: 't' });
      for (let i = 0; i < 70; i++) {
        const r = await call(gov, '/tenants', user);
        expect(r.status).toBe(403);
        expect(r.headers.get('ratelimit-remaining')).toBeNull();
      }
      const ok = await call(gov, '/tenants', admin);
      expect(ok.status).toBe(200);
      expect(ok.headers.get('ratelimit-remaining')).toBe('59');
    } finally {
      await gov.close();
    }
  });

  it('failed authentication never counts for the tenant; it has its own per-address limit (429 past it)', async () => {
    const gov = createTestGovernance(idp);
    try {
      const admin = await idp.signIdToken({ sub: 'ea', roles: ['enterprise_admin'], tenant_id: 't' });
      const statuses: number[] = [];
      for (let i = 0; i < 31; i++)
        statuses.push((await call(gov, '/tenants', 'not-a-token', '10.0.0.9')).status);
      expect(statuses.slice(0, 30).every((s) => s === 401)).toBe(true);
      const limited = await call(gov, '/tenants', 'still-not-a-token', '10.0.0.9');
      expect(limited.status).toBe(429);
      expect(await limited.json()).toMatchObject({ error: 'rate_limit_exceeded' });
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      // a request with no credentials at all is the spec's 401 all the same, and is not counted
      for (let i = 0; i < 40; i++) {
        const none = await call(gov, '/tenants', undefined, '10.0.0.11');
        expect(none.status).toBe(401);
        expect(none.headers.get('ratelimit-remaining')).toBeNull();
      }
      expect((await call(gov, '/tenants', undefined, '10.0.0.9')).status).toBe(401);
      expect(
        (await call(gov, '/tenants', 'not-a-token', '10.0.0.11')).headers.get('ratelimit-remaining'),
      ).toBe('29');
      // another address is not affected, and the tenant's admin budget is untouched
      expect((await call(gov, '/tenants', 'not-a-token', '10.0.0.10')).status).toBe(401);
      const ok = await call(gov, '/tenants', admin, '10.0.0.9');
      expect(ok.status).toBe(200);
      expect(ok.headers.get('ratelimit-remaining')).toBe('59');
    } finally {
      await gov.close();
    }
  });
  it('/status counts a caller with valid credentials for its tenant, any other caller per address', async () => {
    const gov = createTestGovernance(idp, {
      limits: { rateLimits: { system_status: { points: 2, durationSeconds: 60 } } },
    });
    try {
      const a = await idp.signIdToken({ sub: 'a', roles: ['user'], tenant_id: 'ta' });
      const b = await idp.signIdToken({ sub: 'b', roles: ['user'], tenant_id: 'tb' });
      const statusOf = async (token: string | undefined) => (await call(gov, '/status', token)).status;
      expect([await statusOf(a), await statusOf(a), await statusOf(a)]).toEqual([200, 200, 429]);
      // the same address: another tenant, and anonymous callers, have budgets of their own
      expect([await statusOf(b), await statusOf(b), await statusOf(b)]).toEqual([200, 200, 429]);
      expect([await statusOf(undefined), await statusOf('not-a-token'), await statusOf(undefined)]).toEqual([
        200, 200, 429,
      ]);
    } finally {
      await gov.close();
    }
  });
});
