/**
 * Sessions (issue 15): rolling expiry under an injected clock, the `__Host-` cookie over HTTPS,
 * listing and ending sessions (self and enterprise_admin, tenant-isolated), and the timer that
 * deletes expired sessions. Logins go through the real loopback OIDC provider.
 */
import { createHash } from 'node:crypto';
import { InMemorySessionStore, ManualClock } from '@agentgov/core';
import { describe, expect, it, vi } from 'vitest';
import type { Governance, GovernanceConfig } from '../src/index';
import { createMemoryStores } from '../src/memory';
import { createTestGovernance, listen, signIn, type TestAccount } from '../src/testing/index';
import { fileIssuer } from './issuer';

const idp = await fileIssuer();

const ALICE: TestAccount = { sub: 'alice', email: 'alice@acme.example', roles: ['user'], tenant_id: 'acme' };
const BOB: TestAccount = { sub: 'bob', email: 'bob@acme.example', roles: ['user'], tenant_id: 'acme' };
const ADMIN: TestAccount = {
  sub: 'ada',
  email: 'ada@acme.example',
  roles: ['enterprise_admin'],
  tenant_id: 'acme',
};
const OTHER_ADMIN: TestAccount = { sub: 'oz', roles: ['enterprise_admin'], tenant_id: 'globex' };

const MIN = 60_000;
const T0 = Date.parse('2026-03-01T09:00:00.000Z');

interface Session {
  /** `name=value`, for a Cookie header. */
  cookie: string;
  value: string;
  setCookie: string;
}

function setCookieOf(res: Response, name: string): string | undefined {
  return res.headers.getSetCookie().find((c) => c.startsWith(`${name}=`));
}

async function login(
  gov: Governance,
  account: TestAccount,
  opts: { name?: string; userAgent?: string } = {},
): Promise<Session> {
  const { cookie, value, setCookie } = await signIn(
    idp,
    account,
    (r) => gov.handle(r, { remoteAddress: '203.0.113.9' }),
    { cookieName: opts.name ?? 'session', headers: { 'user-agent': opts.userAgent ?? 'test-agent/1.0' } },
  );
  return { cookie, value, setCookie };
}

const call = (gov: Governance, method: string, path: string, cookie?: string) =>
  gov.handle(new Request(`http://gw/api/v1${path}`, { method, headers: cookie ? { cookie } : {} }));

async function errorOf(res: Response): Promise<string> {
  return ((await res.json()) as { error: string }).error;
}

interface SessionJson {
  id: string;
  createdAt: string;
  lastSeenAt: string;
  expiresAt: string;
  absoluteExpiresAt: string;
  userAgent: string | null;
  ip: string | null;
  current: boolean;
}

async function sessionsOf(res: Response): Promise<SessionJson[]> {
  expect(res.status).toBe(200);
  const body = (await res.json()) as { sessions: SessionJson[]; total: number };
  expect(body.total).toBe(body.sessions.length);
  return body.sessions;
}

function governed(over: Partial<GovernanceConfig> = {}): { gov: Governance; clock: ManualClock } {
  const clock = new ManualClock(T0);
  return { gov: createTestGovernance(idp, { clock, ...over }), clock };
}

describe('rolling expiry', () => {
  it("the login cookie is the spec's exactly: session=…; HttpOnly; Secure; SameSite=Strict; Max-Age=3600; Path=/", async () => {
    const { gov } = governed();
    const s = await login(gov, ALICE);
    expect(s.setCookie).toBe(`session=${s.value}; HttpOnly; Secure; SameSite=Strict; Max-Age=3600; Path=/`);
  });

  it('a use extends the session by the idle window; uses within a tenth of it write nothing', async () => {
    const { gov, clock } = governed();
    const s = await login(gov, ALICE);
    clock.advance(5 * MIN);
    const early = await call(gov, 'GET', '/auth/userinfo', s.cookie);
    expect(early.status).toBe(200);
    expect(setCookieOf(early, 'session')).toBeUndefined();

    clock.advance(45 * MIN); // 50 min after login
    const renewed = await call(gov, 'GET', '/auth/userinfo', s.cookie);
    expect(renewed.status).toBe(200);
    expect(setCookieOf(renewed, 'session')).toBe(
      `session=${s.value}; HttpOnly; Secure; SameSite=Strict; Max-Age=3600; Path=/`,
    );
    const [listed] = await sessionsOf(await call(gov, 'GET', '/auth/sessions', s.cookie));
    expect(listed?.lastSeenAt).toBe(new Date(T0 + 50 * MIN).toISOString());
    expect(listed?.expiresAt).toBe(new Date(T0 + 110 * MIN).toISOString());

    clock.advance(59 * MIN); // 109 min: past the first hour, within the extended one
    expect((await call(gov, 'GET', '/auth/userinfo', s.cookie)).status).toBe(200);
  });

  it('an idle session expires: session_expired once the window has passed without use', async () => {
    const { gov, clock } = governed();
    const s = await login(gov, ALICE);
    clock.advance(60 * MIN);
    const res = await call(gov, 'GET', '/auth/userinfo', s.cookie);
    expect(res.status).toBe(401);
    expect(res.headers.get('set-cookie')).toMatch(/^session=; .*Max-Age=0/);
    expect(await errorOf(res)).toBe('session_expired');
    // A logout with the dead cookie is refused, and clears it too (found in review).
    const logout = await call(gov, 'POST', '/auth/logout', s.cookie);
    expect(logout.status).toBe(401);
    expect(logout.headers.get('set-cookie')).toMatch(/^session=; .*Max-Age=0/);
  });

  it('use never carries a session past its absolute lifetime; the last cookie counts down to it', async () => {
    const { gov, clock } = governed({ sessions: { absoluteTtlSeconds: 2 * 3600 } });
    const s = await login(gov, ALICE);
    const maxAges: (string | undefined)[] = [];
    for (const minute of [25, 50, 80, 100]) {
      clock.set(T0 + minute * MIN);
      const res = await call(gov, 'GET', '/auth/userinfo', s.cookie);
      expect(res.status).toBe(200);
      maxAges.push(setCookieOf(res, 'session')?.match(/Max-Age=(\d+)/)?.[1]);
    }
    // At 80 min only 40 are left of the absolute 2 h; at 100 nothing more can be granted.
    expect(maxAges).toEqual(['3600', '3600', '2400', undefined]);
    clock.set(T0 + 120 * MIN);
    const res = await call(gov, 'GET', '/auth/userinfo', s.cookie);
    expect(res.status).toBe(401);
    expect(await errorOf(res)).toBe('session_expired');
  });

  it('over a real server (the Node path): the renewed cookie is sent, and not over the logout cookie', async () => {
    const { gov, clock } = governed();
    const server = await listen((req, res) => {
      gov.handleNode(req, res).catch((error: unknown) => res.destroy(error as Error));
    });
    try {
      const s = await login(gov, ALICE);
      clock.advance(50 * MIN);
      const renewed = await fetch(`${server.url}/api/v1/auth/userinfo`, { headers: { cookie: s.cookie } });
      expect(renewed.status).toBe(200);
      expect(renewed.headers.getSetCookie()).toEqual([
        `session=${s.value}; HttpOnly; Secure; SameSite=Strict; Max-Age=3600; Path=/`,
      ]);
      clock.advance(50 * MIN);
      const out = await fetch(`${server.url}/api/v1/auth/logout`, {
        method: 'POST',
        headers: { cookie: s.cookie },
      });
      expect(out.status).toBe(200);
      expect(out.headers.getSetCookie()).toEqual([
        'session=; HttpOnly; Secure; SameSite=Strict; Max-Age=0; Path=/',
      ]);
    } finally {
      await server.close();
    }
  });

  it('logout due for a renewal answers only the clearing cookie', async () => {
    const { gov, clock } = governed();
    const s = await login(gov, ALICE);
    clock.advance(50 * MIN);
    const res = await call(gov, 'POST', '/auth/logout', s.cookie);
    expect(res.status).toBe(200);
    expect(res.headers.getSetCookie()).toEqual([
      'session=; HttpOnly; Secure; SameSite=Strict; Max-Age=0; Path=/',
    ]);
    expect(await errorOf(await call(gov, 'GET', '/auth/userinfo', s.cookie))).toBe('no_session');
  });
});

describe('the __Host- cookie over HTTPS', () => {
  it('secureCookies names the cookie __Host-session (Secure, Path=/, no Domain) and reads only that name', async () => {
    const { gov } = governed({ sessions: { secureCookies: true } });
    const s = await login(gov, ALICE, { name: '__Host-session' });
    expect(s.setCookie).toBe(
      `__Host-session=${s.value}; HttpOnly; Secure; SameSite=Strict; Max-Age=3600; Path=/`,
    );
    expect(s.setCookie).not.toMatch(/domain=/i);
    expect((await call(gov, 'GET', '/auth/userinfo', s.cookie)).status).toBe(200);
    const plain = await call(gov, 'GET', '/auth/userinfo', `session=${s.value}`);
    expect(plain.status).toBe(401);
    expect(await errorOf(plain)).toBe('no_session');
    const out = await call(gov, 'POST', '/auth/logout', s.cookie);
    expect(out.headers.getSetCookie()).toEqual([
      '__Host-session=; HttpOnly; Secure; SameSite=Strict; Max-Age=0; Path=/',
    ]);
  });
});

describe('cookie tossing: a session cookie set by another site of the domain', () => {
  it('two different session cookies on one request are no one’s session (401), the same one twice is', async () => {
    const { gov } = governed();
    const victim = await login(gov, ALICE);
    const tosser = await login(gov, BOB);
    // The browser lists the tossed cookie (a longer Path) first.
    const both = await call(gov, 'GET', '/auth/userinfo', `${tosser.cookie}; ${victim.cookie}`);
    expect(both.status).toBe(401);
    expect(await errorOf(both)).toBe('no_session');
    const write = await call(gov, 'POST', '/auth/logout', `${tosser.cookie}; ${victim.cookie}`);
    expect(write.status).toBe(401);
    expect((await call(gov, 'GET', '/auth/userinfo', victim.cookie)).status).toBe(200);
    expect((await call(gov, 'GET', '/auth/userinfo', `${victim.cookie}; ${victim.cookie}`)).status).toBe(200);
  });
});

describe('listing and ending sessions', () => {
  it('a user lists their own live sessions, marked current, without any secret', async () => {
    const { gov, clock } = governed();
    const first = await login(gov, ALICE, { userAgent: 'laptop/1' });
    clock.advance(MIN);
    const second = await login(gov, ALICE, { userAgent: 'phone/2' });
    await login(gov, ADMIN);
    const res = await call(gov, 'GET', '/auth/sessions', second.cookie);
    const text = await res.clone().text();
    const listed = await sessionsOf(res);
    expect(listed.map((s) => [s.userAgent, s.current, s.ip])).toEqual([
      ['phone/2', true, '203.0.113.9'],
      ['laptop/1', false, '203.0.113.9'],
    ]);
    expect(listed[0]).toMatchObject({
      createdAt: new Date(T0 + MIN).toISOString(),
      expiresAt: new Date(T0 + 61 * MIN).toISOString(),
      absoluteExpiresAt: new Date(T0 + MIN + 12 * 3600_000).toISOString(),
    });
    for (const s of [first, second]) {
      expect(text).not.toContain(s.value);
      expect(text).not.toContain(createHash('sha256').update(s.value).digest('hex'));
    }
  });

  it("ending another of one's sessions stops its cookie at once; ending the current one clears it", async () => {
    const { gov } = governed();
    const a = await login(gov, ALICE);
    const b = await login(gov, ALICE);
    const listed = await sessionsOf(await call(gov, 'GET', '/auth/sessions', a.cookie));
    const other = listed.find((s) => !s.current)!;
    const current = listed.find((s) => s.current)!;
    const res = await call(gov, 'DELETE', `/auth/sessions/${other.id}`, a.cookie);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: other.id, revoked: true });
    expect(res.headers.getSetCookie()).toEqual([]);
    expect(await errorOf(await call(gov, 'GET', '/auth/userinfo', b.cookie))).toBe('no_session');

    const self = await call(gov, 'DELETE', `/auth/sessions/${current.id}`, a.cookie);
    expect(self.status).toBe(200);
    expect(self.headers.getSetCookie()).toEqual([
      'session=; HttpOnly; Secure; SameSite=Strict; Max-Age=0; Path=/',
    ]);
    expect(await errorOf(await call(gov, 'GET', '/auth/userinfo', a.cookie))).toBe('no_session');
  });

  it("a user cannot end someone else's session (404), nor an unknown id", async () => {
    const { gov } = governed();
    const alice = await login(gov, ALICE);
    const admin = await login(gov, ADMIN);
    const [adminSession] = await sessionsOf(await call(gov, 'GET', '/auth/sessions', admin.cookie));
    const res = await call(gov, 'DELETE', `/auth/sessions/${adminSession!.id}`, alice.cookie);
    expect(res.status).toBe(404);
    expect(await errorOf(res)).toBe('NOT_FOUND');
    expect((await call(gov, 'GET', '/auth/userinfo', admin.cookie)).status).toBe(200);
    expect((await call(gov, 'DELETE', '/auth/sessions/nope', alice.cookie)).status).toBe(404);
    const long = await call(gov, 'DELETE', `/auth/sessions/${'x'.repeat(65)}`, alice.cookie);
    expect(long.status).toBe(400);
  });

  it("an enterprise_admin lists and ends a user's sessions in their tenant; a user may not", async () => {
    const { gov } = governed();
    const a1 = await login(gov, ALICE);
    const a2 = await login(gov, ALICE);
    const admin = await login(gov, ADMIN);
    const listed = await sessionsOf(await call(gov, 'GET', '/users/alice/sessions', admin.cookie));
    expect(listed).toHaveLength(2);
    expect(listed.every((s) => !s.current)).toBe(true);

    const one = await call(gov, 'DELETE', `/users/alice/sessions/${listed[0]!.id}`, admin.cookie);
    expect(one.status).toBe(200);
    expect(await sessionsOf(await call(gov, 'GET', '/users/alice/sessions', admin.cookie))).toHaveLength(1);

    const bob = await login(gov, { sub: 'bob', roles: ['user', 'team_lead'], tenant_id: 'acme' });
    const asUser = await call(gov, 'GET', '/users/alice/sessions', bob.cookie);
    expect(asUser.status).toBe(403);
    expect(await errorOf(asUser)).toBe('forbidden');
    expect((await call(gov, 'DELETE', '/users/alice/sessions', bob.cookie)).status).toBe(403);

    const all = await call(gov, 'DELETE', '/users/alice/sessions', admin.cookie);
    expect(await all.json()).toEqual({ userId: 'alice', revoked: 1 });
    for (const s of [a1, a2]) expect((await call(gov, 'GET', '/auth/userinfo', s.cookie)).status).toBe(401);
    expect((await call(gov, 'GET', '/auth/userinfo', admin.cookie)).status).toBe(200);
  });

  it("another tenant's admin sees none of the user's sessions and cannot end them (404)", async () => {
    const { gov } = governed();
    const alice = await login(gov, ALICE);
    const oz = await login(gov, OTHER_ADMIN);
    const admin = await login(gov, ADMIN);
    const [aliceSession] = await sessionsOf(await call(gov, 'GET', '/users/alice/sessions', admin.cookie));
    expect(await sessionsOf(await call(gov, 'GET', '/users/alice/sessions', oz.cookie))).toEqual([]);
    const res = await call(gov, 'DELETE', `/users/alice/sessions/${aliceSession!.id}`, oz.cookie);
    expect(res.status).toBe(404);
    expect(await errorOf(res)).toBe('NOT_FOUND');
    expect(await (await call(gov, 'DELETE', '/users/alice/sessions', oz.cookie)).json()).toEqual({
      userId: 'alice',
      revoked: 0,
    });
    expect((await call(gov, 'GET', '/auth/userinfo', alice.cookie)).status).toBe(200);
  });

  it('the routes are in the OpenAPI document', () => {
    const { gov } = governed();
    const paths = gov.openapi.paths as Record<string, Record<string, { operationId?: string }>>;
    expect(paths['/api/v1/auth/sessions']?.get?.operationId).toBe('listOwnSessions');
    expect(paths['/api/v1/auth/sessions/{id}']?.delete?.operationId).toBe('revokeOwnSession');
    expect(paths['/api/v1/users/{userId}/sessions']?.get?.operationId).toBe('listUserSessions');
    expect(paths['/api/v1/users/{userId}/sessions']?.delete?.operationId).toBe('revokeUserSessions');
    expect(paths['/api/v1/users/{userId}/sessions/{id}']?.delete?.operationId).toBe('revokeUserSession');
  });
});

describe('expired sessions are deleted on a schedule', () => {
  it('the kernel timer deletes sessions a day after they expired, not before', async () => {
    const store = new InMemorySessionStore();
    const clock = new ManualClock(T0);
    const gov = createTestGovernance(idp, {
      clock,
      stores: { ...createMemoryStores(), sessions: store },
      sessions: { sweepIntervalMs: 20 },
    });
    const s = await login(gov, ALICE);
    const idHash = createHash('sha256').update(s.value).digest('hex');
    clock.advance(2 * 3600_000); // expired, still answered session_expired
    await new Promise((r) => setTimeout(r, 60));
    expect(await store.get(idHash)).toBeDefined();
    expect(await errorOf(await call(gov, 'GET', '/auth/userinfo', s.cookie))).toBe('session_expired');
    clock.advance(24 * 3600_000);
    await vi.waitFor(async () => expect(await store.get(idHash)).toBeUndefined(), { timeout: 2000 });
    await gov.close();
  });
});
