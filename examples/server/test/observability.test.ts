/**
 * Issue 15, observability of the reference server (in-process, real HTTP):
 * 1. readiness on PostgreSQL reached through a TCP proxy this test controls: 503 `migrating`
 *    while the database is held back during start-up, 200 once started, 503 `unhealthy` when
 *    the proxy cuts every connection, 200 again after it restores them; `/livez` 200 throughout;
 * 2. Prometheus on embedded PGlite: decisions by outcome, audit append latency and batch size,
 *    active sessions and request counts, scraped with the configured bearer token.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTcpProxy, type TcpProxy } from '@agentgov/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config';
import { type RunningServer, startServer } from '../src/server';
import { adminAccount, missingServices, type ProcessFixture, processFixture, sleep } from './processes';

const missing = missingServices();

async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

async function probe(url: string): Promise<{ status: number; body: unknown }> {
  try {
    const r = await fetch(url, { signal: AbortSignal.timeout(10_000) });
    return { status: r.status, body: await r.json() };
  } catch {
    return { status: 0, body: undefined };
  }
}

/** Polls `url` until `accept` holds (or fails after `ms`), returning the last answer. */
async function until(url: string, accept: (s: number) => boolean, ms = 20_000) {
  const started = Date.now();
  for (;;) {
    const answer = await probe(url);
    if (accept(answer.status)) return answer;
    if (Date.now() - started > ms) throw new Error(`${url}: still ${answer.status} after ${ms} ms`);
    await sleep(100);
  }
}

describe.skipIf(Boolean(missing))(
  `readiness on PostgreSQL through a proxy${missing ? ` — skipped: ${missing} not set` : ''}`,
  () => {
    let fixture: ProcessFixture;
    let proxy: TcpProxy;
    let server: RunningServer | undefined;
    beforeAll(async () => {
      const pg = new URL(process.env.TEST_DATABASE_URL as string);
      proxy = await startTcpProxy(pg.hostname, Number(pg.port || 5432), { hold: true });
      fixture = await processFixture({
        name: 'readiness',
        accounts: [adminAccount('ada', 'acme')],
        databaseHost: proxy.address,
      });
    }, 60_000);
    afterAll(async () => {
      await server?.close();
      await proxy?.close();
      await fixture?.close();
    }, 60_000);

    it('503 while migrating, 200 once started, 503 while the database is away, 200 when it returns', async () => {
      const port = await freePort();
      const base = `http://127.0.0.1:${port}/api/v1`;
      const starting = startServer(loadConfig({ ...fixture.env, PORT: String(port) }), { env: {} });
      starting.catch(() => {});

      // The database is held back: the server listens but is still opening (and migrating) it.
      const migrating = await until(`${base}/readyz`, (s) => s !== 0);
      expect(migrating).toEqual({
        status: 503,
        body: { status: 'not_ready', components: { database: { status: 'migrating' } } },
      });
      expect((await probe(`${base}/livez`)).status).toBe(200);
      // /status keeps the spec's shape while starting: 503, every component not ready unhealthy.
      const status = await probe(`${base}/status`);
      expect(status.status).toBe(503);
      expect(status.body).toMatchObject({
        status: 'degraded',
        components: { gateway: { status: 'unhealthy' }, database: { status: 'unhealthy' }, connectors: {} },
      });

      proxy.restore();
      server = await starting;
      expect(await probe(`${base}/readyz`)).toEqual({
        status: 200,
        body: { status: 'ready', components: { database: { status: 'healthy' } } },
      });

      proxy.cut();
      const away = await until(`${base}/readyz`, (s) => s !== 200);
      expect(away).toEqual({
        status: 503,
        body: { status: 'not_ready', components: { database: { status: 'unhealthy' } } },
      });
      expect(await probe(`${base}/livez`)).toEqual({ status: 200, body: { status: 'alive' } });

      proxy.restore();
      const back = await until(`${base}/readyz`, (s) => s === 200);
      expect(back.body).toEqual({ status: 'ready', components: { database: { status: 'healthy' } } });

      // And it still shuts down: no pool client is left checked out by the outage (a connection
      // lost while its search_path was being set used to stay checked out, so the pool's end()
      // waited for ever).
      const closing = server.close();
      server = undefined;
      const closedWithin = await Promise.race([closing.then(() => true), sleep(15_000).then(() => false)]);
      expect(closedWithin).toBe(true);
    }, 90_000);
  },
);

/** The value of one sample of the text exposition (undefined when absent). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const set = /\{(.*)\}/.exec(line)?.[1] ?? '';
    if (Object.entries(labels).every(([k, v]) => set.includes(`${k}="${v}"`)))
      return Number(line.split(' ').pop());
  }
  return undefined;
}

describe('Prometheus exposition of the reference server (embedded PGlite)', () => {
  const token = 'scraper-token-for-tests-0001';
  let dir: string;
  let server: RunningServer;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentgov-prom-'));
    server = await startServer(
      loadConfig({
        AGENTGOV_DATA_DIR: dir,
        PORT: '0',
        AGENTGOV_METRICS_TOKEN: token,
        AGENTGOV_CHECKPOINT_INTERVAL: '0',
      }),
      { env: {} },
    );
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('counts decisions by outcome, times audit appends, counts sessions and requests', async () => {
    const api = `${server.url}/api/v1`;
    const bearer = `Bearer ${await server.devIssuer!.mintIdToken('alice')}`;
    const decide = async (action: string) => {
      const r = await fetch(`${api}/decisions`, {
        method: 'POST',
        headers: { authorization: bearer, 'content-type': 'application/json' },
        body: JSON.stringify({
          domain: 'integrations',
          input: { action, context: { targetSystem: 'tracker', additional: { source: 'work-tracking' } } },
        }),
      });
      expect(r.status).toBe(200);
      return ((await r.json()) as { allow: boolean }).allow;
    };
    const outcomes = [
      await decide('tracker_update'),
      await decide('delete_everything'),
      await decide('nope'),
    ];
    const allowed = outcomes.filter(Boolean).length;

    // A browser session: the code flow through the callback.
    const code = await server.devIssuer!.authorizationCode('alice');
    const login = await fetch(`${api}/auth/callback`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code }),
    });
    expect(login.status).toBe(200);

    const res = await fetch(`${api}/metrics/prometheus`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(sample(text, 'agentgov_decisions_total', { domain: 'integrations', outcome: 'deny' })).toBe(
      outcomes.length - allowed,
    );
    expect(sample(text, 'agentgov_decisions_total', { domain: 'integrations', outcome: 'allow' }) ?? 0).toBe(
      allowed,
    );
    // Each decision is audited (policy_decision): at least three appends, each of at least one entry.
    expect(
      sample(text, 'agentgov_audit_append_duration_seconds_count', { result: 'ok' }),
    ).toBeGreaterThanOrEqual(3);
    expect(sample(text, 'agentgov_audit_append_batch_size_count')).toBeGreaterThanOrEqual(3);
    expect(sample(text, 'agentgov_audit_append_batch_size_sum')).toBeGreaterThanOrEqual(3);
    expect(sample(text, 'agentgov_sessions_active')).toBe(1);
    expect(
      sample(text, 'agentgov_http_requests_total', { route: '/decisions', method: 'POST', status: '200' }),
    ).toBe(3);

    // Without the token: the spec's 401 body.
    const refused = await fetch(`${api}/metrics/prometheus`);
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ error: 'authentication_required' });
  }, 60_000);
});
