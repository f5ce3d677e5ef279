/**
 * Token claims a principal is made of (`sub`, `tenant_id`, `email`, `org_unit`, `team`, `roles`)
 * that hold a NUL or another control character, or a lone surrogate, refuse the token at
 * authentication: 401 `invalid_token` with the Bearer challenge — not a principal whose id the
 * database (NUL) or the audit log's canonical JSON (lone surrogates) refuses later, as a 503 or a
 * 400 naming an audit field. Tokens are signed by the real loopback OIDC provider.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Governance } from '../src/index';
import {
  createTestGovernance,
  startTestIssuer,
  type TestAccount,
  type TestIssuer,
} from '../src/testing/index';

let idp: TestIssuer;
let gov: Governance;
beforeAll(async () => {
  idp = await startTestIssuer();
  gov = createTestGovernance(idp);
});
afterAll(async () => {
  await gov.close();
  await idp.close();
});

const ADMIN: TestAccount = {
  sub: 'ea',
  email: 'ea@acme.test',
  roles: ['enterprise_admin'],
  tenant_id: 'acme',
  org_unit: 'hq',
};

async function asBearer(account: TestAccount, path = '/auth/userinfo', init: RequestInit = {}, on = gov) {
  const token = await idp.signIdToken(account);
  const headers = new Headers(init.headers);
  headers.set('authorization', `Bearer ${token}`);
  const res = await on.handle(new Request(`http://gw/api/v1${path}`, { ...init, headers }));
  const body = (await res.json()) as { error?: string; message?: string; userId?: string };
  return { status: res.status, body, challenge: res.headers.get('www-authenticate') };
}

describe('claims with control characters or lone surrogates', () => {
  const bad: [string, Partial<TestAccount>][] = [
    ['NUL in sub', { sub: 'ea\u0000x' }],
    ['lone high surrogate in sub', { sub: 'ea\ud800' }],
    ['lone low surrogate in sub', { sub: '\udc00ea' }],
    ['NUL in tenant_id', { tenant_id: 'acme\u0000' }],
    ['lone surrogate in tenant_id', { tenant_id: 'ac\ud83dme' }],
    ['a control character in org_unit', { org_unit: 'hq\u001b[31m' }],
    ['a lone surrogate in email', { email: 'ea\udfff@acme.test' }],
    ['NUL in team', { team: 'platform\u0000' }],
    ['a lone surrogate in a role', { roles: ['enterprise_admin', 'x\ud800'] }],
  ];
  for (const [what, claims] of bad) {
    it(`${what}: 401 invalid_token, on a read and on an audited write`, async () => {
      const account = { ...ADMIN, ...claims } as TestAccount;
      const read = await asBearer(account);
      expect([read.status, read.body.error]).toEqual([401, 'invalid_token']);
      expect(read.challenge).toContain('error="invalid_token"');
      const write = await asBearer(account, '/connectors', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'mail', credentials_secret_ref: 'ref-1' }),
      });
      expect([write.status, write.body.error]).toEqual([401, 'invalid_token']);
    });
  }

  it('well-formed text of any script, surrogate pairs included, is a principal as before', async () => {
    const r = await asBearer({ ...ADMIN, sub: 'ünï-çødé 😀 用户', tenant_id: 'acme-😀', org_unit: 'ℌ𝔮' });
    expect(r.status).toBe(200);
    expect(r.body.userId).toBe('ünï-çødé 😀 用户');
  });

  it('property: any sub and tenant_id is a 200 or a 401, never anything else', async () => {
    // Refusals count against the per-address auth-failure limit: lifted here (tested elsewhere).
    const lifted = createTestGovernance(idp, {
      limits: { rateLimits: { auth_failures: { points: 1e9, durationSeconds: 60 } } },
    });
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }),
        fc.oneof(fc.constant('acme'), fc.string({ unit: 'binary', minLength: 1, maxLength: 20 })),
        async (sub, tenant) => {
          const r = await asBearer({ ...ADMIN, sub, tenant_id: tenant }, '/auth/userinfo', {}, lifted);
          expect([200, 401], JSON.stringify(r.body)).toContain(r.status);
          const clean = (s: string) =>
            (s as string & { isWellFormed(): boolean }).isWellFormed() &&
            ![...s].some(
              (c) => c.charCodeAt(0) < 0x20 || (c.charCodeAt(0) >= 0x7f && c.charCodeAt(0) <= 0x9f),
            );
          expect(r.status === 200).toBe(clean(sub) && clean(tenant));
        },
      ),
      { numRuns: 150 },
    );
    await lifted.close();
  });
});
