/**
 * Cross-site request forgery (issue 23, fail closed at every edge): a write authenticated by the
 * session cookie from another origin is 403 `forbidden` and changes nothing — also from another
 * port of the same host, which `SameSite=Strict` treats as the same site. Logins go through the
 * real loopback OIDC provider; the Node path runs on a real server at port 0.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Governance } from '../src/index';
import {
  createTestGovernance,
  listen,
  type StartedServer,
  signIn,
  startTestIssuer,
  type TestAccount,
  type TestIssuer,
} from '../src/testing/index';

const ALICE: TestAccount = { sub: 'alice', email: 'alice@acme.example', roles: ['user'], tenant_id: 'acme' };

let idp: TestIssuer;
let gov: Governance;
let server: StartedServer;
beforeAll(async () => {
  idp = await startTestIssuer();
  gov = createTestGovernance(idp, { trustedOrigins: ['https://console.example'] });
  server = await listen((req, res) => void gov.handleNode(req, res));
});
afterAll(async () => {
  await server.close();
  await idp.close();
});

async function session(): Promise<string> {
  return (await signIn(idp, ALICE, (r) => gov.handle(r))).cookie;
}

const logout = (cookie: string, headers: Record<string, string> = {}) =>
  fetch(`${server.url}/api/v1/auth/logout`, { method: 'POST', headers: { cookie, ...headers } });

const whoami = async (cookie: string) =>
  (await fetch(`${server.url}/api/v1/auth/userinfo`, { headers: { cookie } })).status;

describe('cookie-authenticated writes come from our own origin', () => {
  const refused: [string, Record<string, string>][] = [
    ['another port of the same host (same site)', { origin: 'http://127.0.0.1:1' }],
    ['another site', { origin: 'https://evil.example' }],
    ['an opaque origin (sandboxed frame, data: URL)', { origin: 'null' }],
    ['Sec-Fetch-Site: same-site', { 'sec-fetch-site': 'same-site' }],
    [
      'Sec-Fetch-Site: cross-site, with an Origin we do not trust',
      { 'sec-fetch-site': 'cross-site', origin: 'x' },
    ],
    [
      'Sec-Fetch-Site: same-site from a sibling we do not trust',
      { 'sec-fetch-site': 'same-site', origin: 'https://evil.console.example' },
    ],
  ];
  for (const [name, headers] of refused) {
    it(`${name} → 403 forbidden, the session lives on`, async () => {
      const cookie = await session();
      const res = await logout(cookie, headers);
      expect(res.status).toBe(403);
      expect(((await res.json()) as { error: string }).error).toBe('forbidden');
      expect(await whoami(cookie)).toBe(200);
    });
  }

  const accepted: [string, (url: string) => Record<string, string>][] = [
    ['the request’s own origin', (url) => ({ origin: url, 'sec-fetch-site': 'same-origin' })],
    // What a browser on the trusted origin sends: Sec-Fetch-Site says it is another origin.
    [
      'a trusted origin, same site (the console on a sibling host)',
      () => ({ origin: 'https://console.example', 'sec-fetch-site': 'same-site' }),
    ],
    [
      'a trusted origin, cross-site',
      () => ({ origin: 'https://console.example', 'sec-fetch-site': 'cross-site' }),
    ],
    [
      'the OIDC redirect URI’s origin (the public URL)',
      () => ({ origin: new URL(idp.redirectUri).origin, 'sec-fetch-site': 'same-origin' }),
    ],
    ['no browser headers at all (not a browser: no other site can make it send the cookie)', () => ({})],
  ];
  for (const [name, headers] of accepted) {
    it(`${name} → the write is done`, async () => {
      const cookie = await session();
      const res = await logout(cookie, headers(server.url));
      expect(res.status).toBe(200);
      expect(await whoami(cookie)).toBe(401);
    });
  }

  it('a cookie write whose body is not JSON is 415 and changes nothing, even with no origin named', async () => {
    const cookie = await session();
    const post = (type: string | undefined, body: BodyInit = '{}') =>
      fetch(`${server.url}/api/v1/auth/logout`, {
        method: 'POST',
        headers: { cookie, ...(type ? { 'content-type': type } : {}) },
        body,
      });
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
    ]) {
      const res = await post(type);
      expect(res.status).toBe(415);
      expect(((await res.json()) as { error: string }).error).toBe('unsupported_media_type');
      expect(await whoami(cookie)).toBe(200);
    }
    // a body without any Content-Type
    expect((await post(undefined, new Blob(['{}']))).status).toBe(415);
    expect(await whoami(cookie)).toBe(200);
    // from our own origin too: the rule does not depend on what the browser names
    const own = await fetch(`${server.url}/api/v1/auth/logout`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'text/plain', origin: server.url, 'sec-fetch-site': 'same-origin' },
      body: '{}',
    });
    expect(own.status).toBe(415);
    expect(await whoami(cookie)).toBe(200);
    // JSON (with parameters, or a +json type) passes
    expect((await post('application/merge-patch+json')).status).not.toBe(415);
    const cookie2 = await session();
    const json = await fetch(`${server.url}/api/v1/auth/logout`, {
      method: 'POST',
      headers: { cookie: cookie2, 'content-type': 'application/json; charset=utf-8' },
      body: '{}',
    });
    expect(json.status).toBe(200);
    expect(await whoami(cookie2)).toBe(401);
  });

  it('reads are not refused (GET from another origin is answered, CORS keeps the body from the page)', async () => {
    const cookie = await session();
    const res = await fetch(`${server.url}/api/v1/auth/userinfo`, {
      headers: { cookie, origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
    });
    expect(res.status).toBe(200);
  });

  it('a bearer token is not checked: a browser never attaches one by itself', async () => {
    const token = await idp.signIdToken(ALICE);
    const res = await fetch(`${server.url}/api/v1/auth/logout`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        origin: 'https://evil.example',
        'sec-fetch-site': 'cross-site',
      },
    });
    expect(res.status).toBe(200);
  });
});
