/** biome-ignore-all lint/suspicious/noExplicitAny: JSON bodies of a black-box HTTP suite are read without schemas */
/**
 * The gateway's `authenticate` option (issue 28): an application that mounts the routes behind its
 * own sign-in gives the kernel a function instead of OIDC. Here the application's sign-in is a
 * cookie `app_session=<id>` it looks up itself.
 */
import type { Principal } from '@agentgov/core';
import type { StartedServer } from '@agentgov/gateway/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Harness, policyBody } from '../harness';

/** The application's own sessions: id → principal. */
const APP_SESSIONS: Record<string, Principal> = {
  's-admin': {
    userId: 'app-admin',
    email: 'admin@app.test',
    roles: ['enterprise_admin'],
    tenantId: 'app-tenant',
    orgUnit: 'hq',
    team: null,
    via: 'session',
  },
  's-user': {
    userId: 'app-user',
    email: 'user@app.test',
    roles: ['user'],
    tenantId: 'app-tenant',
    orgUnit: 'eng',
    team: null,
    via: 'session',
  },
  's-bad-role': {
    userId: 'app-x',
    email: '',
    roles: ['superuser' as never],
    tenantId: 'app-tenant',
    orgUnit: null,
    team: null,
    via: 'session',
  },
};

async function appAuthenticate(request: Request): Promise<Principal | undefined> {
  const id = /(?:^|;\s*)app_session=([^;]+)/.exec(request.headers.get('cookie') ?? '')?.[1];
  if (id === 'down') throw new Error('the application session store is down');
  return id === undefined ? undefined : APP_SESSIONS[id];
}

export function applicationAuthCases(h: Harness): void {
  describe('authenticate option (the application signs callers in, no OIDC)', () => {
    let server: StartedServer;
    const reported: unknown[] = [];
    const call = (
      path: string,
      session: string | undefined,
      init: { method?: string; body?: unknown } = {},
    ) =>
      h.call(path, {
        base: server.url,
        ...(init.method ? { method: init.method } : {}),
        ...(init.body !== undefined ? { body: init.body } : {}),
        ...(session ? { headers: { cookie: `app_session=${session}` } } : {}),
      });

    beforeAll(async () => {
      const started = await h.setup({
        kernel: { oidc: undefined, authenticate: appAuthenticate, onError: (e) => reported.push(e) },
      });
      h.extra.push(started.server);
      server = started.server;
    });

    it('an unauthenticated request is 401 with the spec body (authentication_required)', async () => {
      h.expectError(await call('/policies', undefined), 401, 'authentication_required');
      h.expectError(await call('/policies', 'unknown-session'), 401, 'authentication_required');
      // a Bearer token means nothing here: the application decides
      const bearer = await h.call('/policies', { base: server.url, token: 'not-for-this-app' });
      h.expectError(bearer, 401, 'authentication_required');
      // the session routes answer no_session, as with OIDC
      h.expectError(await call('/auth/userinfo', undefined), 401, 'no_session');
    });

    it("a principal's roles apply: the admin writes a policy, the user reads but cannot write", async () => {
      const created = await call('/policies', 's-admin', {
        method: 'POST',
        body: policyBody({ scopeId: 'app-tenant' }),
      });
      expect(created.status, created.text).toBe(201);
      expect(created.body).toMatchObject({
        scope: 'enterprise',
        scopeId: 'app-tenant',
        createdBy: 'app-admin',
      });
      const listed = await call('/policies', 's-user');
      expect(listed.status, listed.text).toBe(200);
      expect(listed.body.some((p: any) => p.id === created.body.id)).toBe(true);
      h.expectError(
        await call('/policies', 's-user', { method: 'POST', body: policyBody({ scopeId: 'app-tenant' }) }),
        403,
        'forbidden',
      );
      const me = await call('/auth/userinfo', 's-user');
      expect(me.status).toBe(200);
      expect(me.body).toMatchObject({ userId: 'app-user', tenantId: 'app-tenant', roles: ['user'] });
    });

    it('no OIDC routes are served; a failing sign-in is 503, an invalid principal a 500 (never a 401 by mistake)', async () => {
      expect((await call('/auth/login', undefined)).status).toBe(404);
      expect((await call('/auth/sessions', 's-admin')).status).toBe(404);
      h.expectError(await call('/policies', 'down'), 503, 'service_unavailable');
      h.expectError(await call('/policies', 's-bad-role'), 500, 'internal_error');
      expect(String(reported.at(-1))).toContain('authenticate returned an invalid Principal: roles.0');
    });
  });
}
