/**
 * Issue 4's scaling test: two reference-server processes on one PostgreSQL and one Redis serve
 * the same tenant — sessions work on both, rate limits are shared, the audit chain stays valid.
 * Needs TEST_DATABASE_URL and TEST_REDIS_URL (skipped without them; failing under
 * AGENTGOV_REQUIRE_SERVICES=1). Each run uses a fresh database and a fresh tenant id.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  adminAccount,
  inspectTenant,
  missingServices,
  postPolicy,
  type ServerProcess,
  useProcesses,
} from './processes';

const missing = missingServices();

describe.skipIf(Boolean(missing)).each([
  { redis: true, label: 'PostgreSQL + Redis' },
  { redis: false, label: 'PostgreSQL only (sessions and heartbeats in the database)' },
])(
  `two reference-server processes on $label${missing ? ` — skipped: ${missing} not set` : ''}`,
  ({ redis }) => {
    const tenant = `t-${randomBytes(5).toString('hex')}`;
    const withoutRedis: Record<string, string> = redis ? {} : { REDIS_URL: '' };
    const run = useProcesses(
      () => ({
        name: 'two_proc',
        accounts: [adminAccount('ada', tenant, { team: 'core' })],
        env: withoutRedis,
      }),
      2,
    );
    const { servers } = run;

    it('shares sessions: a session created on one process works on the other', async () => {
      const [a, b] = servers as [ServerProcess, ServerProcess];
      const code = await run.fixture.issuer.authorizationCode('ada');
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
    async function postThrough(i: number): Promise<Response> {
      const token = await run.fixture.issuer.mintIdToken('ada');
      return postPolicy((servers[i % 2] as ServerProcess).url, token, {
        tenant,
        name: `p${i}`,
        changeReason: 'two-process test',
      });
    }

    it.runIf(redis)(
      redis
        ? 'shares rate limits: together the processes allow exactly 60 policy mutations a minute'
        : 'shares rate limits — skipped: without REDIS_URL rate limits are per process, by design',
      async () => {
        const statuses: number[] = [];
        for (let i = 0; i < 70; i++) {
          const res = await postThrough(i);
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
      const token = await run.fixture.issuer.mintIdToken('ada');
      const res = await fetch(`${servers[0]?.url}/api/v1/tenants/${tenant}/status`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ id: tenant, gatewayInstances: 2 });
    });

    it('keeps one valid audit chain for the tenant written by both processes', async () => {
      if (!redis) {
        // Concurrent writes through both processes (the Redis variant wrote 60 above).
        const results = await Promise.all(Array.from({ length: 30 }, (_, i) => postThrough(i)));
        expect(results.map((r) => r.status)).toEqual(Array(30).fill(201));
      }
      // Both processes generated-or-read the same development keys from the database.
      const seen = await inspectTenant(run.fixture.databaseUrl, tenant);
      expect(seen.chainOk).toBe(true);
      expect(seen.identifiers).toBe('checked');
      expect(seen.checked).toBeGreaterThanOrEqual(redis ? 60 : 30);
    });
  },
);
