/**
 * Issue 4's scaling test: two reference-server processes on one PostgreSQL and one Redis serve
 * the same tenant — sessions work on both, rate limits are shared, the audit chain stays valid.
 * Needs TEST_DATABASE_URL and TEST_REDIS_URL (skipped without them; failing under
 * AGENTGOV_REQUIRE_SERVICES=1). Each run uses a fresh database and a fresh tenant id.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { verifyTenant } from '@agentgov/audit';
import { EnvSecretStore } from '@agentgov/core';
import { servicesRequired } from '@agentgov/core/testing';
import { openStore, sql } from '@agentgov/store-kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DevIssuer, startDevIssuer } from '../src/dev-issuer';

const serverDir = fileURLToPath(new URL('..', import.meta.url));
const databaseUrl = process.env.TEST_DATABASE_URL;
const redisUrl = process.env.TEST_REDIS_URL;
const missing = [!databaseUrl && 'TEST_DATABASE_URL', !redisUrl && 'TEST_REDIS_URL']
  .filter(Boolean)
  .join(', ');
if (missing && servicesRequired()) throw new Error(`${missing} required (AGENTGOV_REQUIRE_SERVICES=1)`);

async function adminQuery(text: string): Promise<void> {
  const admin = await openStore({ database: databaseUrl as string, migrate: false });
  try {
    await sql.raw(text).execute(admin.db);
  } finally {
    await admin.close();
  }
}

function startProcess(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: serverDir,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr?.on('data', (c: Buffer) => {
      err += c.toString();
    });
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
      if (url) resolve({ child, url });
    });
    child.once('exit', (code) => reject(new Error(`server exited ${code}: ${out}\n${err}`)));
  });
}

describe.skipIf(Boolean(missing)).each([
  { redis: true, label: 'PostgreSQL + Redis' },
  { redis: false, label: 'PostgreSQL only (sessions and heartbeats in the database)' },
])(
  `two reference-server processes on $label${missing ? ` — skipped: ${missing} not set` : ''}`,
  ({ redis }) => {
    const suffix = randomBytes(5).toString('hex');
    const database = `agentgov_two_${suffix}`;
    const tenant = `t-${suffix}`;
    let issuer: DevIssuer;
    let servers: { child: ChildProcess; url: string }[] = [];
    const env: Record<string, string> = {};

    beforeAll(async () => {
      await adminQuery(`CREATE DATABASE ${database}`);
      issuer = await startDevIssuer({
        clientId: 'two-proc',
        clientSecret: 'two-proc-secret',
        redirectUri: 'http://127.0.0.1:9/callback',
        accounts: [
          {
            sub: 'ada',
            email: 'ada@x.example',
            roles: ['enterprise_admin'],
            tenant_id: tenant,
            org_unit: 'eng',
            team: 'core',
          },
        ],
      });
      const url = new URL(databaseUrl as string);
      url.pathname = `/${database}`;
      Object.assign(env, {
        DATABASE_URL: url.href,
        REDIS_URL: redis ? (redisUrl as string) : '',
        PORT: '0',
        OIDC_ISSUER: issuer.issuer,
        OIDC_CLIENT_ID: issuer.clientId,
        OIDC_CLIENT_SECRET: issuer.clientSecret,
        OIDC_REDIRECT_URI: issuer.redirectUri,
        OPA_URL: '',
      });
      // The first process migrates; the second starts against the migrated database.
      servers.push(await startProcess(env));
      servers.push(await startProcess(env));
    }, 120_000);

    afterAll(async () => {
      for (const s of servers) {
        s.child.kill('SIGTERM');
        if (s.child.exitCode === null) await once(s.child, 'exit');
      }
      servers = [];
      await issuer?.close();
      await adminQuery(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => {});
    }, 60_000);

    it('shares sessions: a session created on one process works on the other', async () => {
      const [a, b] = servers as unknown as [{ url: string }, { url: string }];
      const code = await issuer.authorizationCode('ada');
      const login = await fetch(`${a.url}/api/v1/auth/callback`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ code }),
      });
      expect(login.status).toBe(200);
      const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
      for (const s of [a, b]) {
        const me = await fetch(`${s.url}/api/v1/auth/userinfo`, { headers: { cookie } });
        expect(me.status).toBe(200);
        expect(await me.json()).toMatchObject({ userId: 'ada', tenantId: tenant });
      }
    });

    /** POSTs a policy through process `i % 2`. */
    async function postPolicy(i: number): Promise<Response> {
      const token = await issuer.mintIdToken('ada');
      return fetch(`${(servers[i % 2] as { url: string }).url}/api/v1/policies`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          scope: 'enterprise',
          scopeId: tenant,
          domain: 'features',
          name: `p${i}`,
          version: '1.0.0',
          changeReason: 'two-process test',
          content: '{}',
        }),
      });
    }

    it.runIf(redis)(
      redis
        ? 'shares rate limits: together the processes allow exactly 60 policy mutations a minute'
        : 'shares rate limits — skipped: without REDIS_URL rate limits are per process, by design',
      async () => {
        const statuses: number[] = [];
        for (let i = 0; i < 70; i++) {
          const res = await postPolicy(i);
          statuses.push(res.status);
          if (res.status === 429) expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
          await res.arrayBuffer();
        }
        expect(statuses.filter((s) => s === 429)).toHaveLength(10);
        expect(statuses.filter((s) => s === 201)).toHaveLength(60);
      },
      60_000,
    );

    it('counts both processes as gateway instances', async () => {
      const token = await issuer.mintIdToken('ada');
      const res = await fetch(`${servers[0]?.url}/api/v1/tenants/${tenant}/status`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ id: tenant, gatewayInstances: 2 });
    });

    it('keeps one valid audit chain for the tenant written by both processes', async () => {
      if (!redis) {
        // Concurrent writes through both processes (the Redis variant wrote 60 above).
        const results = await Promise.all(Array.from({ length: 30 }, (_, i) => postPolicy(i)));
        expect(results.map((r) => r.status)).toEqual(Array(30).fill(201));
      }
      const store = await openStore({ database: env.DATABASE_URL as string, migrate: false });
      try {
        // Both processes generated-or-read the same development keys from the database.
        const { rows } = await sql<{
          ref: string;
          value: string;
        }>`SELECT ref, value FROM agentgov_dev_secrets`.execute(store.db);
        const secrets = new EnvSecretStore(
          Object.fromEntries(rows.map((r) => [EnvSecretStore.variableName(r.ref), r.value])),
        );
        const report = await verifyTenant(store.audit, tenant, { secrets });
        expect(report.firstBreak).toBeUndefined();
        expect(report.ok).toBe(true);
        expect(report.identifiers).toBe('checked');
        expect(report.checked).toBeGreaterThanOrEqual(redis ? 60 : 30);
      } finally {
        await store.close();
      }
    });
  },
);
