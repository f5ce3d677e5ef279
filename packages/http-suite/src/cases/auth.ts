/** biome-ignore-all lint/suspicious/noExplicitAny: JSON bodies of a black-box HTTP suite are read without schemas */
/** Authentication: bearer tokens, the code exchange at the real issuer, sessions, userinfo. */
import { ManualClock } from '@agentgov/core';
import type { TestAccount } from '@agentgov/gateway/testing';
import { describe, expect, it } from 'vitest';
import { ACCOUNTS, type Harness } from '../harness';

export function authCases(h: Harness): void {
  describe('authentication', () => {
    it('401 authentication_required without credentials', async () => {
      h.expectError(await h.call('/policies'), 401, 'authentication_required');
      h.expectError(
        await h.call('/policies', { headers: { authorization: 'Basic Zm9vOmJhcg==' } }),
        401,
        'authentication_required',
      );
    });
    it('401 invalid_token for malformed, foreign-key, wrong-audience, wrong-issuer, expired and not-yet-valid tokens', async () => {
      const a = ACCOUNTS.user;
      const bad = [
        'not-a-jwt',
        await h.idp.signIdToken(a, { key: await h.idp.foreignKey(), kid: 'unknown-kid' }),
        await h.idp.signIdToken(a, { audience: 'someone-else' }),
        await h.idp.signIdToken(a, { issuer: 'https://evil.example' }),
        await h.idp.signIdToken(a, { expiresInSeconds: -120 }),
        await h.idp.signIdToken(a, { notBeforeSeconds: 600 }),
        await h.idp.signIdToken({ ...a, tenant_id: undefined } as TestAccount),
      ];
      for (const token of bad) h.expectError(await h.call('/policies', { token }), 401, 'invalid_token');
    });
    it('POST /auth/callback exchanges the code at the real token endpoint and sets the session cookie', async () => {
      const code = await h.idp.issueCode(ACCOUNTS.orgAdmin);
      const r = await h.call('/auth/callback', { method: 'POST', body: { code } });
      expect(r.status, r.text).toBe(200);
      expect(r.body).toEqual({
        authenticated: true,
        user: { userId: 'oa-eng', email: 'oa@acme.test', roles: ['org_admin'], orgUnit: 'eng' },
      });
      const cookie = r.headers.get('set-cookie') ?? '';
      expect(cookie).toMatch(/^session=[A-Za-z0-9_-]{43};/);
      for (const attr of ['HttpOnly', 'Secure', 'SameSite=Strict', 'Max-Age=3600', 'Path=/'])
        expect(cookie).toContain(attr);
      const session = cookie.split(';')[0]!;
      const info = await h.call('/auth/userinfo', { headers: { cookie: session } });
      expect(info.status).toBe(200);
      expect(info.body).toMatchObject({
        userId: 'oa-eng',
        email: 'oa@acme.test',
        roles: ['org_admin'],
        orgUnit: 'eng',
        tenantId: 'acme',
        effectivePermissions: {
          canManagePolicies: true,
          policyScope: 'org',
          canQueryAudit: true,
          auditScope: 'org',
        },
      });
      // the session also authenticates other routes
      expect((await h.call('/connectors', { headers: { cookie: session } })).status).toBe(200);
      // a code is redeemable once
      h.expectError(
        await h.call('/auth/callback', { method: 'POST', body: { code } }),
        502,
        'token_exchange_failed',
      );
    });
    it('POST /auth/callback: bad code → 502 token_exchange_failed; no code → 400 missing_type', async () => {
      h.expectError(
        await h.call('/auth/callback', { method: 'POST', body: { code: 'bogus' } }),
        502,
        'token_exchange_failed',
      );
      const r = await h.call('/auth/callback', { method: 'POST', body: {} });
      h.expectError(r, 400, 'missing_type');
      expect(r.body.message).toContain('code');
      h.expectError(
        await h.call('/auth/callback', { method: 'POST', body: { code: 42 } }),
        400,
        'invalid_type',
      );
    });
    it('GET /auth/userinfo: no cookie → no_session; unknown session → no_session', async () => {
      h.expectError(await h.call('/auth/userinfo'), 401, 'no_session');
      h.expectError(
        await h.call('/auth/userinfo', { headers: { cookie: `session=${'A'.repeat(43)}` } }),
        401,
        'no_session',
      );
    });
    it('an expired session → 401 session_expired', async () => {
      const clock = new ManualClock(Date.now());
      const { server: s, gov: g } = await h.setup({ clock });
      h.extra.push(s);
      try {
        const code = await h.idp.issueCode(ACCOUNTS.user);
        const r = await h.call('/auth/callback', { method: 'POST', body: { code }, base: s.url });
        expect(r.status, r.text).toBe(200);
        const cookie = (r.headers.get('set-cookie') ?? '').split(';')[0]!;
        expect((await h.call('/auth/userinfo', { headers: { cookie }, base: s.url })).status).toBe(200);
        clock.advance(3601_000);
        h.expectError(
          await h.call('/auth/userinfo', { headers: { cookie }, base: s.url }),
          401,
          'session_expired',
        );
        h.expectError(await h.call('/policies', { headers: { cookie }, base: s.url }), 401);
      } finally {
        await g.close();
      }
    });
    it('userinfo reports effective permissions per role', async () => {
      for (const [who, policyScope, auditScope, manage] of [
        ['enterpriseAdmin', 'enterprise', 'enterprise', true],
        ['teamLead', 'team', 'user', true],
        ['user', 'user', 'user', false],
      ] as const) {
        const r = await h.call('/auth/userinfo', { as: who });
        expect(r.status).toBe(200);
        expect(r.body.effectivePermissions).toMatchObject({
          canManagePolicies: manage,
          policyScope,
          auditScope,
        });
      }
    });
  });
}
