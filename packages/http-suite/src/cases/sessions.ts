/** biome-ignore-all lint/suspicious/noExplicitAny: JSON bodies of a black-box HTTP suite are read without schemas */
/**
 * Sessions (issue 15) through the adapter under test: listing and ending one's own sessions, an
 * enterprise_admin ending a user's sessions (tenant-isolated), the renewed cookie of a rolling
 * session, the `__Host-` cookie, and JWT access tokens as bearer credentials.
 */
import { ManualClock } from '@agentgov/core';
import type { Governance } from '@agentgov/gateway';
import type { StartedServer, TestAccount } from '@agentgov/gateway/testing';
import { describe, expect, it } from 'vitest';
import { ACCOUNTS, type Harness } from '../harness';
import type { TestServiceOverrides } from '../service';

export function sessionCases(h: Harness): void {
  /** A fresh service behind the adapter, so session counts are this case's own. */
  async function fresh(
    over: TestServiceOverrides,
    body: (base: string, gov: Governance) => Promise<void>,
  ): Promise<void> {
    const { server, gov } = await h.setup(over);
    h.extra.push(server as StartedServer);
    try {
      await body(server.url, gov);
    } finally {
      await gov.close();
    }
  }

  async function login(base: string, account: TestAccount, name = 'session'): Promise<string> {
    const code = await h.idp.issueCode(account);
    const r = await h.call('/auth/callback', { method: 'POST', body: { code }, base });
    expect(r.status, r.text).toBe(200);
    const cookie = r.headers.getSetCookie().find((c) => c.startsWith(`${name}=`));
    expect(cookie, r.headers.getSetCookie().join(' | ')).toBeDefined();
    return cookie!.split(';')[0]!;
  }

  describe('sessions', () => {
    it('GET /auth/sessions lists the caller’s sessions (no secret); DELETE /auth/sessions/{id} ends one at once', async () => {
      await fresh({}, async (base) => {
        const a = await login(base, ACCOUNTS.user);
        const b = await login(base, ACCOUNTS.user);
        const list = await h.call('/auth/sessions', { headers: { cookie: a }, base });
        expect(list.status, list.text).toBe(200);
        expect(list.body.total).toBe(2);
        for (const c of [a, b]) expect(list.text).not.toContain(c.split('=')[1]);
        const other = list.body.sessions.find((s: any) => !s.current);
        expect(Object.keys(other).sort()).toEqual(
          [
            'absoluteExpiresAt',
            'createdAt',
            'current',
            'expiresAt',
            'id',
            'ip',
            'lastSeenAt',
            'userAgent',
          ].sort(),
        );
        const del = await h.call(`/auth/sessions/${other.id}`, {
          method: 'DELETE',
          headers: { cookie: a },
          base,
        });
        expect(del.status, del.text).toBe(200);
        expect(del.body).toEqual({ id: other.id, revoked: true });
        h.expectError(await h.call('/auth/userinfo', { headers: { cookie: b }, base }), 401, 'no_session');
        expect((await h.call('/auth/userinfo', { headers: { cookie: a }, base })).status).toBe(200);
        h.expectError(
          await h.call(`/auth/sessions/${other.id}`, { method: 'DELETE', headers: { cookie: a }, base }),
          404,
          'NOT_FOUND',
        );
      });
    });

    it('an enterprise_admin lists and ends a user’s sessions; another tenant’s admin gets nothing (404)', async () => {
      await fresh({}, async (base) => {
        const cookie = await login(base, ACCOUNTS.user);
        const path = `/users/${ACCOUNTS.user.sub}/sessions`;
        const listed = await h.call(path, { as: 'enterpriseAdmin', base });
        expect(listed.status, listed.text).toBe(200);
        expect(listed.body.total).toBe(1);
        const id = listed.body.sessions[0].id;
        const foreign = await h.call(path, { as: 'otherTenantAdmin', base });
        expect(foreign.body).toEqual({ sessions: [], total: 0 });
        h.expectError(
          await h.call(`${path}/${id}`, { method: 'DELETE', as: 'otherTenantAdmin', base }),
          404,
          'NOT_FOUND',
        );
        h.expectError(await h.call(path, { as: 'teamLead', base }), 403, 'forbidden');
        expect((await h.call('/auth/userinfo', { headers: { cookie }, base })).status).toBe(200);
        const all = await h.call(path, { method: 'DELETE', as: 'enterpriseAdmin', base });
        expect(all.body).toEqual({ userId: ACCOUNTS.user.sub, revoked: 1 });
        h.expectError(await h.call('/auth/userinfo', { headers: { cookie }, base }), 401, 'no_session');
      });
    });

    it('a rolling session: a use after a tenth of the window re-sends the cookie with a fresh Max-Age', async () => {
      const clock = new ManualClock(Date.now());
      await fresh({ clock }, async (base) => {
        const cookie = await login(base, ACCOUNTS.user);
        clock.advance(50 * 60_000);
        const r = await h.call('/auth/userinfo', { headers: { cookie }, base });
        expect(r.status).toBe(200);
        expect(r.headers.getSetCookie()).toEqual([
          `${cookie}; HttpOnly; Secure; SameSite=Strict; Max-Age=3600; Path=/`,
        ]);
        clock.advance(50 * 60_000); // 100 minutes after the login: alive thanks to the renewal
        expect((await h.call('/auth/userinfo', { headers: { cookie }, base })).status).toBe(200);
      });
    });

    it('secureCookies: the cookie is __Host-session and only that name is read', async () => {
      await fresh({ kernel: { sessions: { secureCookies: true } } }, async (base) => {
        const cookie = await login(base, ACCOUNTS.user, '__Host-session');
        expect((await h.call('/auth/userinfo', { headers: { cookie }, base })).status).toBe(200);
        const plain = cookie.replace('__Host-session=', 'session=');
        h.expectError(
          await h.call('/auth/userinfo', { headers: { cookie: plain }, base }),
          401,
          'no_session',
        );
      });
    });

    it('a JWT access token (typ at+jwt, aud = the client) authenticates like an ID token', async () => {
      const token = await h.idp.signIdToken(
        { ...ACCOUNTS.teamLead, client_id: h.idp.clientId },
        { typ: 'at+jwt' },
      );
      const r = await h.call('/auth/userinfo', { token });
      expect(r.status, r.text).toBe(200);
      expect(r.body).toMatchObject({ userId: ACCOUNTS.teamLead.sub, tenantId: 'acme' });
      const noClientId = await h.idp.signIdToken(ACCOUNTS.teamLead, { typ: 'at+jwt' });
      h.expectError(await h.call('/auth/userinfo', { token: noClientId }), 401, 'invalid_token');
    });
  });
}
