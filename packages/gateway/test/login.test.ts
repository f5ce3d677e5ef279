/**
 * Login hardening (issue 12 item 5) and the browser's way back from the issuer (issue 14):
 * each case fails on the code before the fix.
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GovernanceError, ManualClock } from '@agentgov/core';
import { describe, expect, it } from 'vitest';
import { OidcClient } from '../src/auth/oidc';
import type { Governance } from '../src/index';
import { createTestGovernance, signIn } from '../src/testing/index';
import { ALICE, fileIssuer } from './issuer';

const idp = await fileIssuer();

const get = (gov: Governance, path: string, headers: Record<string, string> = {}) =>
  gov.handle(new Request(`http://gw/api/v1${path}`, { headers }));

async function sessionFor(gov: Governance): Promise<string> {
  return (await signIn(idp, ALICE, (r) => gov.handle(r))).cookie;
}

describe('ID tokens', () => {
  it('refuses a token issued in the future (iat beyond the leeway)', async () => {
    const gov = createTestGovernance(idp);
    const token = await idp.signIdToken(ALICE, { issuedAtSeconds: 3600, expiresInSeconds: 7200 });
    const res = await get(gov, '/auth/userinfo', { authorization: `Bearer ${token}` });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: string }).error).toBe('invalid_token');
  });

  it('refuses a multi-audience token without azp, accepts it with azp = the client', async () => {
    const gov = createTestGovernance(idp);
    const audience = [idp.clientId, 'another-client'];
    const without = await idp.signIdToken(ALICE, { audience });
    expect((await get(gov, '/auth/userinfo', { authorization: `Bearer ${without}` })).status).toBe(401);
    const withAzp = await idp.signIdToken({ ...ALICE, azp: idp.clientId }, { audience });
    expect((await get(gov, '/auth/userinfo', { authorization: `Bearer ${withAzp}` })).status).toBe(200);
    const otherAzp = await idp.signIdToken({ ...ALICE, azp: 'another-client' }, { audience });
    expect((await get(gov, '/auth/userinfo', { authorization: `Bearer ${otherAzp}` })).status).toBe(401);
  });

  it('says in plain words when the signing key is unknown (a token from an earlier run)', async () => {
    const gov = createTestGovernance(idp);
    const token = await idp.signIdToken(ALICE, { kid: 'old-key', key: await idp.foreignKey() });
    const res = await get(gov, '/auth/userinfo', { authorization: `Bearer ${token}` });
    expect(res.status).toBe(401);
    const body = (await res.json()) as { detail: unknown };
    expect(String(body.detail)).toMatch(/key the issuer does not publish \(kid "old-key"\).*new token/);
  });
});

describe('401 challenges (RFC 6750)', () => {
  it('carries WWW-Authenticate: Bearer, with error= only when credentials were refused', async () => {
    const gov = createTestGovernance(idp);
    const none = await get(gov, '/auth/userinfo');
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="agentgov"');
    const bad = await get(gov, '/auth/userinfo', { authorization: 'Bearer not.a.token' });
    expect(bad.headers.get('www-authenticate')).toMatch(/^Bearer realm="agentgov", error="invalid_token"/);
  });
});

describe('sessions', () => {
  it('reports session_expired on every request after expiry, not once and then no_session', async () => {
    const clock = new ManualClock(Date.now());
    const gov = createTestGovernance(idp, { clock });
    const cookie = await sessionFor(gov);
    expect((await get(gov, '/auth/userinfo', { cookie })).status).toBe(200);
    clock.advance(2 * 3600 * 1000);
    for (let i = 0; i < 3; i++) {
      const res = await get(gov, '/auth/userinfo', { cookie });
      expect(res.status).toBe(401);
      expect(((await res.json()) as { error: string }).error).toBe('session_expired');
      expect(res.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    }
  });
});

describe('POST /auth/callback', () => {
  it('refuses a text/plain body (login CSRF through a simple cross-site form) with 415', async () => {
    const gov = createTestGovernance(idp);
    const code = await idp.issueCode(ALICE);
    const res = await gov.handle(
      new Request('http://gw/api/v1/auth/callback', {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: JSON.stringify({ code }),
      }),
    );
    expect(res.status).toBe(415);
    expect(res.headers.getSetCookie().some((c) => c.startsWith('session='))).toBe(false);
  });

  it('refuses a form or text body that is not JSON with 415 as well: the type is checked before the body is parsed', async () => {
    const gov = createTestGovernance(idp);
    for (const [type, body] of [
      ['application/x-www-form-urlencoded', 'code=abc&state=xyz'],
      ['text/plain', '{not json'],
      ['', ''],
    ] as const) {
      const res = await gov.handle(
        new Request('http://gw/api/v1/auth/callback', {
          method: 'POST',
          headers: type ? { 'content-type': type } : {},
          body,
        }),
      );
      expect(res.status).toBe(415);
      expect(((await res.json()) as { error: string }).error).toBe('unsupported_media_type');
    }
  });

  it('is throttled per client address', async () => {
    const gov = createTestGovernance(idp, {
      limits: { rateLimits: { auth_login: { points: 3, durationSeconds: 60 } } },
    });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await gov.handle(
        new Request('http://gw/api/v1/auth/callback', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ code: `bogus-${i}` }),
        }),
        { remoteAddress: '203.0.113.7' },
      );
      statuses.push(res.status);
    }
    expect(statuses).toEqual([502, 502, 502, 429]);
  });

  it('bounds the code exchange by its timeout even when the request signal never aborts', async () => {
    // An issuer whose token endpoint accepts the request and never answers.
    const hung: Server = createServer((req, res) => {
      if (req.url?.startsWith('/.well-known/openid-configuration')) {
        const base = `http://127.0.0.1:${(hung.address() as AddressInfo).port}`;
        res.setHeader('content-type', 'application/json');
        res.end(
          JSON.stringify({
            issuer: base,
            token_endpoint: `${base}/token`,
            jwks_uri: `${base}/jwks`,
            authorization_endpoint: `${base}/auth`,
          }),
        );
      }
      // /token: no answer
    });
    await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
    try {
      const issuer = `http://127.0.0.1:${(hung.address() as AddressInfo).port}`;
      const client = new OidcClient({
        issuer,
        clientId: 'c',
        clientSecret: 's',
        redirectUri: 'http://127.0.0.1/cb',
        exchangeTimeoutMs: 300,
      });
      // The exchange times out at 300 ms; the race only keeps a broken bound from hanging the
      // test (generous: a busy CI machine may be several times slower — no duration is asserted).
      const outcome = await Promise.race([
        client.exchangeCode('x', { signal: new AbortController().signal }).then(
          () => 'resolved',
          (error: unknown) => (error instanceof GovernanceError ? error.code : String(error)),
        ),
        new Promise((resolve) => setTimeout(() => resolve('still waiting'), 10_000)),
      ]);
      expect(outcome).toBe('token_exchange_failed');
    } finally {
      hung.closeAllConnections();
      await new Promise<void>((resolve) => hung.close(() => resolve()));
    }
  }, 20_000);
});

describe('GET /auth/callback (the browser comes back from the issuer)', () => {
  it('completes a login started at GET /auth/login: session cookie, then the landing page', async () => {
    const gov = createTestGovernance(idp);
    const login = await get(gov, '/auth/login');
    expect(login.status).toBe(302);
    const location = new URL(login.headers.get('location') ?? '');
    expect(location.searchParams.get('redirect_uri')).toBe(idp.redirectUri);
    const state = location.searchParams.get('state') ?? '';
    const loginCookie = (login.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
    const stored = JSON.parse(Buffer.from(loginCookie.split('=')[1] ?? '', 'base64url').toString()) as {
      v: string;
      n: string;
    };
    const codeChallenge = createHash('sha256').update(stored.v).digest('base64url');
    const code = await idp.issueCode(ALICE, { nonce: stored.n, codeChallenge });

    const forged = await get(gov, `/auth/callback?code=${code}&state=someone-elses`, { cookie: loginCookie });
    expect(forged.status).toBe(400);

    const back = await get(gov, `/auth/callback?code=${encodeURIComponent(code)}&state=${state}`, {
      cookie: loginCookie,
    });
    expect(back.status).toBe(200);
    expect(back.headers.get('content-type')).toMatch(/text\/html/);
    expect(back.headers.get('content-security-policy')).toBe(
      "default-src 'none'; frame-ancestors 'none'; base-uri 'none'",
    );
    expect(back.headers.get('referrer-policy')).toBe('no-referrer');
    expect(back.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await back.text()).toContain('url=/api/v1/auth/userinfo');
    const session = back.headers.getSetCookie().find((c) => c.startsWith('session=')) ?? '';
    expect(session).toMatch(/HttpOnly; Secure; SameSite=Strict/);
    const me = await get(gov, '/auth/userinfo', { cookie: session.split(';')[0] ?? '' });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { userId: string }).userId).toBe('alice');
  });

  it('over HTTPS (secureCookies) the login cookie is __Host-agentgov_login: one tossed without the prefix binds nothing', async () => {
    const gov = createTestGovernance(idp, { sessions: { secureCookies: true } });
    const login = await get(gov, '/auth/login');
    const set = login.headers.getSetCookie()[0] ?? '';
    expect(set).toMatch(
      /^__Host-agentgov_login=[^;]+; HttpOnly; Secure; SameSite=Lax; Max-Age=\d+; Path=\/$/,
    );
    const state = new URL(login.headers.get('location') ?? '').searchParams.get('state') ?? '';
    const value = (set.split(';')[0] ?? '').slice('__Host-agentgov_login='.length);
    const stored = JSON.parse(Buffer.from(value, 'base64url').toString()) as { v: string; n: string };
    const code = await idp.issueCode(ALICE, {
      nonce: stored.n,
      codeChallenge: createHash('sha256').update(stored.v).digest('base64url'),
    });
    // An attacker's login, its cookie tossed in without the prefix (a sibling subdomain can set
    // `agentgov_login`, never `__Host-agentgov_login`): the callback does not take it.
    const tossed = await get(gov, `/auth/callback?code=${encodeURIComponent(code)}&state=${state}`, {
      cookie: `agentgov_login=${value}`,
    });
    expect(tossed.status).toBe(400);
    const own = await get(gov, `/auth/callback?code=${encodeURIComponent(code)}&state=${state}`, {
      cookie: `__Host-agentgov_login=${value}`,
    });
    expect(own.status).toBe(200);
    expect(own.headers.getSetCookie().some((c) => c.startsWith('__Host-session='))).toBe(true);
  });

  it('refuses a callback without code and state, or with an error from the issuer', async () => {
    const gov = createTestGovernance(idp);
    expect((await get(gov, '/auth/callback')).status).toBe(400);
    expect((await get(gov, '/auth/callback?error=access_denied&state=x')).status).toBe(400);
  });
});
