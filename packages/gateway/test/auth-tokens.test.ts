/**
 * Bearer tokens (issues 13 and 15): the verified-token cache never accepts what verification would
 * refuse — a key removed by rotation is refused as soon as the new key set is fetched, an expired
 * token at its `exp` — and JWT access tokens (RFC 9068, `typ: at+jwt`) are accepted with the
 * configured audience. Everything runs against the real loopback OIDC provider.
 */
import { describe, expect, it } from 'vitest';
import { OidcClient, type OidcConfig } from '../src/auth/oidc';
import type { Governance } from '../src/index';
import { createTestGovernance, startTestIssuer, testOidcConfig } from '../src/testing/index';
import { fileIssuer } from './issuer';

const idp = await fileIssuer();

const ALICE = { sub: 'alice', email: 'alice@acme.example', roles: ['user'], tenant_id: 'acme' };
const BOB = { sub: 'bob', roles: ['user'], tenant_id: 'acme' };

const userinfo = (gov: Governance, token: string) =>
  gov.handle(
    new Request('http://gw/api/v1/auth/userinfo', { headers: { authorization: `Bearer ${token}` } }),
  );

async function refusal(res: Response): Promise<{ status: number; error: string; detail: unknown }> {
  const body = (await res.json()) as { error: string; detail?: unknown };
  return { status: res.status, error: body.error, detail: body.detail };
}

describe('verified-token cache', () => {
  it('a verified token is cached under its hash; a refused one is not; tokenCache: false caches nothing', async () => {
    const oidc = new OidcClient(testOidcConfig(idp));
    const token = await idp.signIdToken(ALICE);
    const first = await oidc.verifyBearer(token);
    expect(oidc.cachedTokens).toBe(1);
    expect(await oidc.verifyBearer(token)).toEqual(first);
    expect(oidc.cachedTokens).toBe(1);
    const forged = await idp.signIdToken(ALICE, { key: await idp.foreignKey() });
    await expect(oidc.verifyBearer(forged)).rejects.toMatchObject({ code: 'invalid_token' });
    expect(oidc.cachedTokens).toBe(1);

    const uncached = new OidcClient({ ...testOidcConfig(idp), tokenCache: false });
    expect((await uncached.verifyBearer(token)).claims.sub).toBe('alice');
    expect(uncached.cachedTokens).toBe(0);
  });

  it('a cached token is refused once it expires (the cache never outlives exp)', async () => {
    const oidc = new OidcClient({ ...testOidcConfig(idp), clockToleranceSeconds: 0 });
    const token = await idp.signIdToken(ALICE, { expiresInSeconds: 2 });
    expect((await oidc.verifyBearer(token)).claims.sub).toBe('alice');
    expect(oidc.cachedTokens).toBe(1);
    await new Promise((r) => setTimeout(r, 2_100));
    await expect(oidc.verifyBearer(token)).rejects.toMatchObject({ code: 'invalid_token' });
  });

  it('the default leeway is 5 s: a token 10 s past its exp, or 10 s before its nbf or iat, is refused', async () => {
    const oidc = new OidcClient(testOidcConfig(idp));
    const cases = [
      { issuedAtSeconds: -600, expiresInSeconds: -10 },
      { notBeforeSeconds: 10 },
      { issuedAtSeconds: 10 },
    ];
    for (const options of cases)
      await expect(oidc.verifyBearer(await idp.signIdToken(ALICE, options))).rejects.toMatchObject({
        code: 'invalid_token',
      });
    // within the leeway: a clock 2 s behind the issuer's
    const ahead = await idp.signIdToken(ALICE, { issuedAtSeconds: 2, notBeforeSeconds: 2 });
    expect((await oidc.verifyBearer(ahead)).claims.sub).toBe('alice');
  });

  it('a cached token is verified again after tokenCache.ttlMs, before its exp', async () => {
    const oidc = new OidcClient({ ...testOidcConfig(idp), tokenCache: { ttlMs: 50 } });
    const token = await idp.signIdToken(ALICE, { expiresInSeconds: 900 });
    await oidc.verifyBearer(token);
    const hit = oidc.cachedBearer(token);
    expect(hit?.claims.sub).toBe('alice');
    // Every hit answers the entry's one frozen object.
    expect(oidc.cachedBearer(token)).toBe(hit);
    expect(Object.isFrozen(hit)).toBe(true);
    await new Promise((r) => setTimeout(r, 80));
    expect(oidc.cachedBearer(token)).toBeUndefined();
    expect(oidc.cachedTokens).toBe(0);
    expect((await oidc.verifyBearer(token)).claims.sub).toBe('alice');
    expect(oidc.cachedTokens).toBe(1);
  });

  it('forgetUser (logout, session revocation) drops only that user’s cached tokens', async () => {
    const oidc = new OidcClient(testOidcConfig(idp));
    await oidc.verifyBearer(await idp.signIdToken(ALICE));
    await oidc.verifyBearer(await idp.signIdToken(ALICE, { expiresInSeconds: 900 }));
    await oidc.verifyBearer(await idp.signIdToken(BOB));
    await oidc.verifyBearer(await idp.signIdToken({ ...ALICE, tenant_id: 'globex' }));
    expect(oidc.cachedTokens).toBe(4);
    oidc.forgetUser('acme', 'alice');
    expect(oidc.cachedTokens).toBe(2);
  });

  it('key rotation: a token signed by the removed key is refused right after the new key set is fetched', async () => {
    const issuer = await startTestIssuer();
    try {
      const config: OidcConfig = { ...testOidcConfig(issuer), jwksCooldownMs: 0 };
      const gov = createTestGovernance(issuer, { oidc: config });
      const old = await issuer.signIdToken(ALICE);
      expect((await userinfo(gov, old)).status).toBe(200);
      expect((await userinfo(gov, old)).status).toBe(200); // served from the cache

      await issuer.rotateKey();
      const fresh = await issuer.signIdToken(BOB);
      // An unknown kid makes the kernel fetch the key set again: it no longer has the old key.
      expect((await userinfo(gov, fresh)).status).toBe(200);
      const refused = await refusal(await userinfo(gov, old));
      expect(refused).toMatchObject({ status: 401, error: 'invalid_token' });
      expect(String(refused.detail)).toMatch(/key the issuer does not publish/);
      expect((await userinfo(gov, fresh)).status).toBe(200);
      await gov.close();
    } finally {
      await issuer.close();
    }
  });

  it('a rotation that keeps the old key empties the cache but the old token still verifies', async () => {
    const issuer = await startTestIssuer();
    try {
      const oidc = new OidcClient({ ...testOidcConfig(issuer), jwksCooldownMs: 0 });
      const old = await issuer.signIdToken(ALICE);
      await oidc.verifyBearer(old);
      expect(oidc.cachedTokens).toBe(1);
      await issuer.rotateKey({ keep: true });
      const bob = await issuer.signIdToken(BOB);
      // A new kid: the key set is fetched again, and differs. ALICE's entry goes with the old set;
      // BOB's verification straddled the change, so it is not cached either (the next one is).
      await oidc.verifyBearer(bob);
      expect(oidc.cachedTokens).toBe(0);
      expect((await oidc.verifyBearer(old)).claims.sub).toBe('alice');
      await oidc.verifyBearer(bob);
      expect(oidc.cachedTokens).toBe(2);
    } finally {
      await issuer.close();
    }
  });
});

describe('JWT access tokens (RFC 9068)', () => {
  const API = 'https://api.agentgov.example';

  it('an at+jwt token for the configured audience is accepted like an ID token', async () => {
    const gov = createTestGovernance(idp, { oidc: { ...testOidcConfig(idp), accessTokenAudience: API } });
    const token = await idp.signIdToken(
      { ...ALICE, client_id: idp.clientId, scope: 'openid' },
      { typ: 'at+jwt', audience: API },
    );
    const res = await userinfo(gov, token);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ userId: 'alice', tenantId: 'acme', roles: ['user'] });
    const long = await idp.signIdToken(
      { ...ALICE, client_id: idp.clientId },
      { typ: 'application/at+jwt', audience: API },
    );
    expect((await userinfo(gov, long)).status).toBe(200);
  });

  it('the audience defaults to the client id; another audience is refused', async () => {
    const gov = createTestGovernance(idp);
    const forClient = await idp.signIdToken({ ...ALICE, client_id: idp.clientId }, { typ: 'at+jwt' });
    expect((await userinfo(gov, forClient)).status).toBe(200);
    const forOther = await idp.signIdToken(
      { ...ALICE, client_id: idp.clientId },
      { typ: 'at+jwt', audience: API },
    );
    expect(await refusal(await userinfo(gov, forOther))).toMatchObject({
      status: 401,
      error: 'invalid_token',
    });
  });

  it('refuses an access token without client_id, an ID token posing under another audience, and opaque tokens', async () => {
    const gov = createTestGovernance(idp, { oidc: { ...testOidcConfig(idp), accessTokenAudience: API } });
    const noClient = await idp.signIdToken(ALICE, { typ: 'at+jwt', audience: API });
    expect(await refusal(await userinfo(gov, noClient))).toMatchObject({
      status: 401,
      error: 'invalid_token',
    });
    // Without typ at+jwt a token is an ID token: its audience must be the client id.
    const idTokenForApi = await idp.signIdToken({ ...ALICE, client_id: idp.clientId }, { audience: API });
    expect((await userinfo(gov, idTokenForApi)).status).toBe(401);
    const opaque = await refusal(await userinfo(gov, 'SlAV32hkKG.opaque-access-token'));
    expect(opaque).toMatchObject({ status: 401, error: 'invalid_token' });
    expect(String(opaque.detail)).toMatch(/not a JWT/);
  });

  it('the code exchange never takes an access token for the ID token', async () => {
    const oidc = new OidcClient(testOidcConfig(idp));
    const access = await idp.signIdToken({ ...ALICE, client_id: idp.clientId }, { typ: 'at+jwt' });
    await expect(oidc.verifyIdToken(access)).rejects.toMatchObject({ code: 'invalid_token' });
  });
});
