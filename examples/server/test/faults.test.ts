/**
 * Issue 12, faults with the reference server (a real `src/main.ts` process) on PostgreSQL and
 * Redis, both reached through TCP proxies this test controls (the shared services are never
 * restarted), under a steady load of audited writes (policy creations, three tenants):
 * 1. PostgreSQL cut (proxy drops every connection, refuses new ones): the process stays up, writes
 *    get the spec's 503 body, `/status` is 503 with `database` unhealthy; it recovers by itself;
 * 2. the server's backends terminated (`pg_terminate_backend`) mid-load: the process stays up;
 * 3. the server killed (SIGKILL) mid-load and started again;
 * 4. Redis cut: no 5xx (the insurance limiter counts in-process), fine again when it returns.
 * Afterwards: every write that got a 201 is in the database, each policy has exactly its one
 * `policy_change` entry (no unaudited write), and every tenant's audit chain verifies.
 */
import { randomBytes } from 'node:crypto';
import { startTcpProxy, type TcpProxy } from '@agentgov/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminAccount,
  adminQuery,
  inspectTenant,
  missingServices,
  type ProcessFixture,
  postPolicy,
  processFixture,
  type ServerProcess,
  sleep,
  startProcess,
} from './processes';

const missing = missingServices();

interface Outcome {
  phase: string; // when the request was sent
  answered: string; // when its answer arrived (a slow machine answers in a later phase)
  tenant: string;
  status: number; // 0: no answer (connection refused while the server was down)
  body: { id?: string; error?: string; message?: string } | undefined;
}

describe.skipIf(Boolean(missing))(
  `reference server under faults (PostgreSQL + Redis through proxies)${missing ? ` — skipped: ${missing} not set` : ''}`,
  () => {
    const suffix = randomBytes(5).toString('hex');
    const tenants = ['a', 'b', 'c'].map((t) => `f${t}-${suffix}`);
    let fixture: ProcessFixture;
    let pgProxy: TcpProxy;
    let redisProxy: TcpProxy;
    let server: ServerProcess;
    const unexpectedExits: string[] = [];

    async function start(): Promise<void> {
      server = await startProcess(fixture.env);
      const mine = server;
      mine.child.once('exit', (code, signal) => {
        if (signal !== 'SIGKILL' && signal !== 'SIGTERM')
          unexpectedExits.push(`exit ${code}: ${mine.stderr()}`);
      });
    }

    beforeAll(async () => {
      const pg = new URL(process.env.TEST_DATABASE_URL as string);
      const redis = new URL(process.env.TEST_REDIS_URL as string);
      pgProxy = await startTcpProxy(pg.hostname, Number(pg.port || 5432));
      redisProxy = await startTcpProxy(redis.hostname, Number(redis.port || 6379));
      redis.host = redisProxy.address;
      fixture = await processFixture({
        name: 'faults',
        accounts: tenants.map((tenant, i) => adminAccount(`admin-${i}`, tenant)),
        databaseHost: pgProxy.address,
        env: { REDIS_URL: redis.href },
      });
      await start();
    }, 120_000);

    afterAll(async () => {
      await server?.stop();
      await pgProxy?.close();
      await redisProxy?.close();
      await fixture?.close();
    }, 60_000);

    async function status(): Promise<{ status: number; body: unknown }> {
      try {
        const r = await fetch(`${server.url}/api/v1/status`, { signal: AbortSignal.timeout(15_000) });
        return { status: r.status, body: await r.json() };
      } catch {
        return { status: 0, body: undefined };
      }
    }

    /** Polls /status until it answers `code` (the answer), or fails after `limitMs`. */
    async function waitStatus(code: number, limitMs: number): Promise<{ status: number; body: unknown }> {
      const started = Date.now();
      while (Date.now() - started < limitMs) {
        const answer = await status();
        if (answer.status === code) return answer;
        await sleep(250);
      }
      throw new Error(`/status not ${code} within ${limitMs} ms`);
    }

    async function waitHealthy(limitMs: number): Promise<number> {
      const started = Date.now();
      await waitStatus(200, limitMs);
      return Date.now() - started;
    }

    it('stays up, answers 503 while PostgreSQL is away, recovers, loses no acknowledged write', async () => {
      const outcomes: Outcome[] = [];
      let phase = 'warm-up';
      let running = true;
      let n = 0;
      // Steady load: one policy creation every 150 ms, round robin over the tenants.
      const load = (async () => {
        while (running) {
          const i = n++;
          const tenant = tenants[i % tenants.length] as string;
          const at = phase;
          const token = await fixture.issuer.mintIdToken(`admin-${i % tenants.length}`);
          void postPolicy(
            server.url,
            token,
            { tenant, name: `p${i}`, changeReason: 'fault test' },
            AbortSignal.timeout(20_000),
          )
            .then(async (r) =>
              outcomes.push({ phase: at, answered: phase, tenant, status: r.status, body: await r.json() }),
            )
            .catch(() => outcomes.push({ phase: at, answered: phase, tenant, status: 0, body: undefined }));
          await sleep(150);
        }
      })();

      await sleep(3_000);
      // 1. PostgreSQL away
      phase = 'postgres-cut';
      pgProxy.cut();
      // However slow the machine: /status turns 503 once a probe sees the database away.
      const degraded = await waitStatus(503, 30_000);
      expect(degraded.status).toBe(503);
      expect(degraded.body).toMatchObject({
        status: 'degraded',
        components: { database: { status: 'unhealthy' } },
      });
      await sleep(2_500);
      phase = 'postgres-back';
      pgProxy.restore();
      const recoveredMs = await waitHealthy(30_000);
      await sleep(2_000);

      // 2. the server's connections terminated mid-load
      phase = 'terminated';
      await adminQuery(
        process.env.TEST_DATABASE_URL as string,
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${fixture.database}' AND pid <> pg_backend_pid()`,
      );
      await sleep(2_000);
      phase = 'after-terminate';
      await waitHealthy(30_000);
      await sleep(1_500);

      // 3. the server killed mid-load, started again
      phase = 'killed';
      server.child.kill('SIGKILL');
      await sleep(500);
      await start();
      phase = 'restarted';
      await sleep(2_000);

      // 4. Redis away, then back
      phase = 'redis-cut';
      redisProxy.cut();
      await sleep(4_000);
      phase = 'redis-back';
      redisProxy.restore();
      await sleep(3_000);
      running = false;
      await load;
      await sleep(1_500); // the last answers

      expect(unexpectedExits).toEqual([]);
      const byPhase = (p: string) => outcomes.filter((o) => o.phase === p);
      const fivexx = outcomes.filter((o) => o.status >= 500);
      // 5xx only while PostgreSQL was away or just dropped, and always the spec's 503 body
      if (process.env.FAULTS_DEBUG) console.info(JSON.stringify(fivexx.slice(0, 40)));
      const databaseFaults = ['postgres-cut', 'postgres-back', 'terminated', 'after-terminate'];
      for (const o of fivexx) {
        // sent or answered while the database was away (a request sent just before the cut may
        // be answered after it, however slow the machine)
        expect(databaseFaults.includes(o.phase) || databaseFaults.includes(o.answered)).toBe(true);
        expect(o.status).toBe(503);
        expect(o.body).toMatchObject({ error: 'service_unavailable', message: expect.any(String) });
      }
      expect(byPhase('postgres-cut').some((o) => o.status === 503)).toBe(true);
      expect(byPhase('redis-cut').filter((o) => o.status >= 500)).toEqual([]);
      expect(byPhase('redis-cut').some((o) => o.status === 201)).toBe(true);
      expect(byPhase('redis-back').filter((o) => o.status >= 500)).toEqual([]);
      // nothing acknowledged is lost; nothing is unaudited; every chain verifies
      const acked = outcomes.filter((o) => o.status === 201);
      expect(acked.length).toBeGreaterThan(20);
      for (const tenant of tenants) {
        const seen = await inspectTenant(fixture.databaseUrl, tenant);
        for (const o of acked.filter((x) => x.tenant === tenant))
          expect(seen.policyIds.has(o.body?.id as string)).toBe(true);
        expect(seen.policyChanges).toBe(seen.policyIds.size);
        expect(seen.chainOk).toBe(true);
      }
      const counts = Object.fromEntries(
        [...new Set(outcomes.map((o) => o.phase))].map((p) => [
          p,
          byPhase(p).reduce<Record<number, number>>((m, o) => {
            m[o.status] = (m[o.status] ?? 0) + 1;
            return m;
          }, {}),
        ]),
      );
      console.info(
        `faults: ${outcomes.length} requests, recovered in ${recoveredMs} ms, by phase ${JSON.stringify(counts)}`,
      );
    }, 180_000);
  },
);
