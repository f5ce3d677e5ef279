/**
 * The reference server, started in-process on both frameworks (memory database, the in-process
 * development issuer), and once as a real process to check start-up output and SIGTERM.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config';
import { type RunningServer, startServer } from '../src/server';

const serverDir = fileURLToPath(new URL('..', import.meta.url));

describe.each(['express', 'koa'] as const)('reference server on %s', (framework) => {
  let server: RunningServer;
  let api: string;
  beforeAll(async () => {
    server = await startServer(
      loadConfig({ DATABASE_URL: 'memory:', PORT: '0', AGENTGOV_FRAMEWORK: framework }),
      {
        env: {},
      },
    );
    api = `${server.url}/api/v1`;
  });
  afterAll(() => server.close());

  it('generates development audit keys when the environment has none', () => {
    expect(server.generatedSecrets.sort()).toEqual(['audit-commitment-key', 'audit-signing-key']);
  });

  it('accepts a printed development ID token', async () => {
    const token = await server.devIssuer!.mintIdToken('alice');
    const res = await fetch(`${api}/auth/userinfo`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect(await res.json()).toMatchObject({
      userId: 'alice',
      tenantId: 'acme',
      roles: ['enterprise_admin'],
    });
  });

  it('runs the real authorization-code flow into a session cookie', async () => {
    const code = await server.devIssuer!.authorizationCode('bob');
    const callback = await fetch(`${api}/auth/callback`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code }),
    });
    expect(callback.status).toBe(200);
    expect(await callback.json()).toMatchObject({
      authenticated: true,
      user: { userId: 'bob', orgUnit: 'eng' },
    });
    const cookie = callback.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^session=[^;]+; /);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    const me = await fetch(`${api}/auth/userinfo`, { headers: { cookie: cookie.split(';')[0] ?? '' } });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ userId: 'bob', roles: ['org_admin'] });
  });

  it('answers unknown paths, inside and outside /api/v1, with the spec error body', async () => {
    for (const path of ['/api/v1/nope', '/nope', '/console/nope.js', '/console/assets/gone-1.css']) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status, path).toBe(404);
      expect(res.headers.get('x-request-id'), path).toBeTruthy();
      expect(await res.json()).toMatchObject({ error: 'NOT_FOUND' });
    }
  });

  it('gives every answer outside /api/v1 an X-Request-Id too (the index, the console), echoing a valid one sent', async () => {
    for (const [path, accept] of [
      ['/', 'application/json'],
      ['/', 'text/html'],
      ['/console/', 'text/html'],
    ] as const) {
      const res = await fetch(`${server.url}${path}`, { headers: { accept }, redirect: 'manual' });
      expect(res.headers.get('x-request-id'), `${path} ${accept}`).toMatch(/^[\w.:-]{8,}$/);
    }
    const echoed = await fetch(`${server.url}/`, { headers: { 'x-request-id': 'trace-12345678' } });
    expect(echoed.headers.get('x-request-id')).toBe('trace-12345678');
  });

  it('answers `/` for an API client with where the console, the API and its reference are', async () => {
    const res = await fetch(`${server.url}/`, { headers: { accept: 'application/json' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const index = (await res.json()) as Record<string, string>;
    expect(index).toEqual({
      name: 'agentgov',
      console: '/console/',
      api: '/api/v1',
      docs: '/api/v1/docs',
      openapi: '/api/v1/openapi.json',
      status: '/api/v1/status',
    });
    // Every path it names answers.
    for (const path of [index.docs, index.openapi, index.status]) {
      expect((await fetch(`${server.url}${path}`)).status, path).toBe(200);
    }
    // A browser is still sent to the console.
    const browser = await fetch(`${server.url}/`, { headers: { accept: 'text/html' }, redirect: 'manual' });
    expect(browser.status).toBe(302);
    expect(browser.headers.get('location')).toBe('/console/');
  });

  it('reports healthy on /status without credentials', async () => {
    const res = await fetch(`${api}/status`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      status: 'healthy',
      components: { database: { status: 'healthy' } },
    });
  });
});

describe('reference server on embedded PGlite', () => {
  it('keeps policies, connectors, sessions, Idempotency-Key records, the org tree and a valid audit chain across a restart', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentgov-server-'));
    const config = loadConfig({ AGENTGOV_DATA_DIR: dir, PORT: '0' });
    try {
      const first = await startServer(config, { env: {} });
      const token = await first.devIssuer!.mintIdToken('alice');
      const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      const policyBody = JSON.stringify({
        scope: 'enterprise',
        scopeId: 'acme',
        domain: 'features',
        name: 'kept',
        version: '1.0.0',
        changeReason: 'restart test',
        content: '{}',
      });
      const policy = await fetch(`${first.url}/api/v1/policies`, {
        method: 'POST',
        headers: { ...auth, 'idempotency-key': 'restart-test-1' },
        body: policyBody,
      });
      expect(policy.status).toBe(201);
      const { id: policyId } = (await policy.json()) as { id: string };
      const connector = await fetch(`${first.url}/api/v1/connectors`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({
          type: 'tracker',
          credentials_secret_ref: 'tracker-token',
          config: { site: 'x' },
        }),
      });
      expect(connector.status).toBe(201);
      const code = await first.devIssuer!.authorizationCode('bob');
      const login = await fetch(`${first.url}/api/v1/auth/callback`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ code }),
      });
      const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
      await first.close();

      const second = await startServer(config, { env: {} });
      try {
        // Keys were generated once and kept in the database: nothing new the second time.
        expect(second.generatedSecrets).toEqual([]);
        const token2 = await second.devIssuer!.mintIdToken('alice');
        const headers = { authorization: `Bearer ${token2}` };
        expect((await fetch(`${second.url}/api/v1/policies/${policyId}`, { headers })).status).toBe(200);
        // The Idempotency-Key record was kept with the data: a retry after the restart is replayed.
        const retried = await fetch(`${second.url}/api/v1/policies`, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json', 'idempotency-key': 'restart-test-1' },
          body: policyBody,
        });
        expect(retried.status).toBe(201);
        expect(retried.headers.get('idempotent-replayed')).toBe('true');
        expect(((await retried.json()) as { id: string }).id).toBe(policyId);
        const list = (await (await fetch(`${second.url}/api/v1/connectors`, { headers })).json()) as {
          total: number;
          connectors: { credentialsSecretRef: string }[];
        };
        expect(list.total).toBe(1);
        expect(list.connectors[0]?.credentialsSecretRef).toBe('tracker-token');
        // The session cookie issued before the restart still works.
        expect((await fetch(`${second.url}/api/v1/auth/userinfo`, { headers: { cookie } })).status).toBe(200);
        const verified = await second.auditService.verify('acme');
        expect(verified.firstBreak).toBeUndefined();
        expect(verified.ok).toBe(true);
        expect(verified.checked).toBeGreaterThanOrEqual(2); // the policy and the connector writes
      } finally {
        await second.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('reference server process', () => {
  it('prints its URL and tokens, serves, and exits 0 on SIGTERM', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: serverDir,
      env: {
        ...process.env,
        DATABASE_URL: 'memory:',
        PORT: '0',
        REDIS_URL: '',
        OPA_URL: '',
        OIDC_ISSUER: '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      out += chunk;
    });
    child.stderr.resume();
    const deadline = Date.now() + 60_000;
    while (!/^ {2}TOKEN=\S+/m.test(out) && Date.now() < deadline && child.exitCode === null) {
      await new Promise((r) => setTimeout(r, 100));
    }
    const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
    const token = /^ {2}TOKEN=(\S+)/m.exec(out)?.[1];
    expect(url, out).toBeTruthy();
    expect(token, out).toBeTruthy();
    const res = await fetch(`${url}/api/v1/policies`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([]);
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
    expect(out).toContain('SIGTERM: finishing in-flight requests');
  }, 90_000);
});
