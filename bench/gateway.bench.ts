/**
 * Requests/s and p99 through the gateway on each adapter (Express, Koa), each against the bare
 * framework serving the same JSON on the same route (the baseline), all in one run, driven by
 * autocannon over loopback:
 * - authenticated `GET /api/v1/policies/{id}`;
 * - authenticated `POST /api/v1/decisions` (an agent-to-agent decision: body parsed and validated,
 *   the built-in engine, the audited `policy_decision` appended to the in-memory chain) against
 *   the bare framework parsing the same JSON body and calling the same engine (issue 26).
 *
 * - the same POST on the reference server as an operator runs it (`examples/server/start.mjs`:
 *   every plugin, the development issuer in process, metrics, the request log), in memory and on
 *   the embedded PGlite default, against the same bare framework (what an outside harness sees).
 *
 * Every server runs in its own process (this file, re-run as a child with
 * `AGENTGOV_BENCH_SERVER=<kind>`), so the load generator and the server under test do not share
 * an event loop. Each pair is measured baseline and gateway back to back, after a warm-up.
 * `BENCH_TOKEN_CACHE=off` turns the gateway's verified-token cache off (every request verifies
 * its ES256 token again), to see what the cache saves.
 *
 * A gateway server loads the workspace packages from their built `dist/` (what an application
 * runs; the repository's tsconfig paths would otherwise send tsx to their TypeScript sources):
 * build them first (`pnpm -r build`); a `dist/` older than its sources stops the suite.
 * `BENCH_GATEWAY_FROM=src` loads the sources through tsx instead.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { DecisionRequest } from '@agentgov/core';
import autocannon from 'autocannon';
import { adminSql, type BenchRow, type BenchSuite, benchDatabaseUrl } from './lib';

const SECONDS = Number(process.env.BENCH_HTTP_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_HTTP_CONNECTIONS ?? 10);
const WARMUP_SECONDS = 1;
/** Each target's SECONDS are split into this many rounds, alternating baseline and gateway. */
const ROUNDS = Math.max(1, Math.min(SECONDS, 5));

/** Where a gateway server loads the workspace packages from: their built dist (default) or src. */
const FROM: 'dist' | 'src' = process.env.BENCH_GATEWAY_FROM === 'src' ? 'src' : 'dist';
/** The packages a gateway server loads (the HTTP suite's composition and the adapters). */
const GATEWAY_PACKAGES = [
  'core',
  'gateway',
  'policy',
  'audit',
  'interchange',
  'work-tracking',
  'adapter-express',
  'adapter-koa',
];

/** The newest modification time under `dir` (ms), 0 when it does not exist. */
function newest(dir: string): number {
  let latest = 0;
  let entries: import('node:fs').Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true, recursive: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    if (e.isFile()) latest = Math.max(latest, statSync(`${e.parentPath}/${e.name}`).mtimeMs);
  }
  return latest;
}

/** Refuses to measure a `dist/` older than its sources (the figures would be of old code). */
function assertBuilt(): void {
  const root = fileURLToPath(new URL('../packages/', import.meta.url));
  const stale = GATEWAY_PACKAGES.filter((p) => newest(`${root}${p}/dist`) < newest(`${root}${p}/src`));
  if (stale.length > 0) {
    throw new Error(
      `dist/ older than src/ in ${stale.join(', ')}: run \`pnpm -r build\` (or BENCH_GATEWAY_FROM=src)`,
    );
  }
}

type Framework = 'express' | 'koa';
type Kind = `${'bare' | 'gateway'}-${Framework}`;

/** What a gateway child tells the parent: where it listens and the bodies the baselines serve. */
interface ServerInfo {
  port: number;
  policyPath?: string;
  policyJson?: string;
  decisionJson?: string;
}

const DECISION_BODY = JSON.stringify({
  domain: 'agent-to-agent',
  input: {
    exchange_type: 'information_query',
    initiator_tenant_id: 'acme',
    responder_tenant_id: 'acme',
    initiator_org_unit: 'eng',
    responder_org_unit: 'sales',
    classification_level: 'internal',
  },
});

/** The one policy both the gateway and the POST baseline decide on (enterprise scope of acme). */
const BENCH_POLICY = {
  domain: 'agent-to-agent',
  name: 'bench',
  version: '1.0.0',
  changeReason: 'bench',
  content: 'enabled: true\nmax_rounds:\n  information_query: 3\n',
} as const;

/** A workspace package's entry: its built dist file, or (BENCH_GATEWAY_FROM=src) its source. */
function workspace<T>(pkg: string, entry = 'index'): Promise<T> {
  const file =
    FROM === 'dist' ? `dist/${entry}.js` : `src/${entry === 'index' ? 'index' : `${entry}/index`}.ts`;
  return import(new URL(`../packages/${pkg}/${file}`, import.meta.url).href) as Promise<T>;
}

/**
 * The POST baseline's decision (issue 26: "the bare framework parsing the same body and calling the
 * same engine"): the built-in engine of the same build on the same policy, for the same user, its
 * decision as JSON — no authentication, rate limit, validation beyond the engine's or audit. It
 * must answer what the gateway answered (`expected`, its policy ids aside).
 */
async function bareDecider(expected: string): Promise<(body: unknown) => Promise<string>> {
  const [core, policy] = await Promise.all([
    workspace<typeof import('@agentgov/core')>('core'),
    workspace<typeof import('@agentgov/policy')>('policy'),
  ]);
  const store = new core.InMemoryPolicyStore();
  const directory = core.InMemoryOrgDirectory.fromDefinitions({
    tenant: 'acme',
    orgs: { eng: { teams: { platform: ['alice'] } } },
  });
  const resolver = new policy.EffectivePolicyResolver({ store, directory });
  const service = new policy.PolicyService({
    store,
    directory,
    audit: new core.InMemoryAuditSink(),
    onChange: (t) => resolver.invalidate(t),
  });
  const admin = { userId: 'root', tenantId: 'acme', roles: ['enterprise_admin'] as const };
  (await service.create(admin, { ...BENCH_POLICY, scope: 'enterprise', scopeId: 'acme' }))._unsafeUnwrap();
  const engine = new policy.BuiltinDecisionEngine(resolver);
  const decide = async (body: unknown): Promise<string> => {
    const { domain, input } = body as Pick<DecisionRequest, 'domain' | 'input'>;
    const r = await engine.decide({ domain, tenantId: 'acme', userId: 'alice', input } as DecisionRequest);
    return JSON.stringify(r.isOk() ? r.value : { error: r.error.message });
  };
  const { policyIds: _, ...ours } = JSON.parse(await decide(JSON.parse(DECISION_BODY)));
  const { policyIds: __, ...theirs } = JSON.parse(expected);
  if (JSON.stringify(ours) !== JSON.stringify(theirs))
    throw new Error(`the baseline's engine answers ${JSON.stringify(ours)}, the gateway ${expected}`);
  return decide;
}

// ---------------------------------------------------------------------------------------------
// The child: one server of one kind on 127.0.0.1 port 0; prints its ServerInfo as one JSON line.

async function serve(kind: Kind): Promise<void> {
  const env = JSON.parse(process.env.AGENTGOV_BENCH_ENV ?? '{}') as {
    issuer?: { issuer: string; clientId: string; clientSecret: string; redirectUri: string };
    token?: string;
    policyJson?: string;
    decisionJson?: string;
  };
  let listener: http.RequestListener;
  const info: Omit<ServerInfo, 'port'> = {};
  if (kind.startsWith('bare-')) {
    const policyJson = env.policyJson ?? '{}';
    const decide = await bareDecider(env.decisionJson ?? '{}');
    if (kind === 'bare-express') {
      const { default: express } = await import('express');
      const app = express();
      app.get('/api/v1/policies/:id', (_req, res) => {
        res.type('application/json').send(policyJson);
      });
      app.post('/api/v1/decisions', express.json(), async (req, res) => {
        if (typeof req.body !== 'object' || req.body === null) res.status(400);
        res.type('application/json').send(await decide(req.body));
      });
      listener = app;
    } else {
      const { default: Koa } = await import('koa');
      const app = new Koa();
      app.use(async (ctx) => {
        ctx.type = 'application/json';
        if (ctx.method === 'POST' && ctx.path === '/api/v1/decisions') {
          // What a body parser does: read the stream, parse the JSON.
          const chunks: Buffer[] = [];
          for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
          const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
          if (typeof parsed !== 'object' || parsed === null) ctx.status = 400;
          ctx.body = await decide(parsed);
        } else if (ctx.method === 'GET' && ctx.path.startsWith('/api/v1/policies/')) {
          ctx.body = policyJson;
        }
      });
      listener = app.callback();
    }
  } else {
    const [{ createTestService }, { testOidcConfig }] = await Promise.all([
      // By path: from dist, the bench's directory resolves no workspace package by name.
      import('../packages/http-suite/src/index') as Promise<typeof import('@agentgov/http-suite')>,
      workspace<typeof import('@agentgov/gateway/testing')>('gateway', 'testing'),
    ]);
    if (!env.issuer || !env.token) throw new Error('a gateway server needs the issuer and a token');
    // The kernel with the policy and audit plugins on in-memory stores (the HTTP suite's composition).
    // BENCH_TOKEN_CACHE=off: every request verifies its token again (the cost the cache saves).
    const oidc = Object.assign(
      testOidcConfig(env.issuer),
      process.env.BENCH_TOKEN_CACHE === 'off' ? { tokenCache: false } : {},
    );
    const gov = await createTestService(env.issuer, { kernel: { oidc } });
    await gov.start();
    const auth = { authorization: `Bearer ${env.token}`, 'content-type': 'application/json' };
    const created = await gov.handle(
      new Request('http://bench/api/v1/policies', {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ ...BENCH_POLICY, scope: 'enterprise', scopeId: 'acme' }),
      }),
    );
    if (created.status !== 201) throw new Error(`creating the policy: ${created.status}`);
    const policy = (await created.json()) as { id: string };
    info.policyPath = `/api/v1/policies/${policy.id}`;
    const read = await gov.handle(new Request(`http://bench${info.policyPath}`, { headers: auth }));
    info.policyJson = await read.text();
    const decided = await gov.handle(
      new Request('http://bench/api/v1/decisions', { method: 'POST', headers: auth, body: DECISION_BODY }),
    );
    if (decided.status !== 200) throw new Error(`the decision: ${decided.status} ${await decided.text()}`);
    info.decisionJson = await decided.text();
    if (kind === 'gateway-express') {
      const [{ default: express }, { mount }] = await Promise.all([
        import('express'),
        workspace<typeof import('@agentgov/adapter-express')>('adapter-express'),
      ]);
      const app = express();
      app.use(mount(gov));
      listener = app;
    } else {
      const [{ default: Koa }, { mount }] = await Promise.all([
        import('koa'),
        workspace<typeof import('@agentgov/adapter-koa')>('adapter-koa'),
      ]);
      const app = new Koa();
      app.use(mount(gov));
      listener = app.callback();
    }
  }
  const server = http.createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  // The parent asks for this process's CPU time (µs, user + system) with a line on stdin.
  createInterface({ input: process.stdin }).on('line', () => {
    const { user, system } = process.cpuUsage();
    process.stdout.write(`${JSON.stringify({ cpuMicros: user + system })}\n`);
  });
  process.stdout.write(`${JSON.stringify({ ...info, port })}\n`);
}

// ---------------------------------------------------------------------------------------------
// The parent: starts the children, drives the load, returns the rows.

interface Child {
  info: ServerInfo;
  url: string;
  /** The child's CPU time so far, in µs. */
  cpu(): Promise<number>;
  stop(): void;
}

/**
 * BENCH_CPU_PROF=<dir>: every server writes a V8 CPU profile there when it stops, sampled every
 * BENCH_CPU_PROF_INTERVAL µs (default node's 1,000: too coarse for a path of a few µs).
 */
const PROFILE = process.env.BENCH_CPU_PROF
  ? [
      '--cpu-prof',
      `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`,
      ...(process.env.BENCH_CPU_PROF_INTERVAL
        ? [`--cpu-prof-interval=${process.env.BENCH_CPU_PROF_INTERVAL}`]
        : []),
    ]
  : [];

async function startChild(kind: Kind, env: object): Promise<Child> {
  const file = fileURLToPath(import.meta.url);
  // From dist: tsx without the repository's paths, so `@agentgov/*` resolves to the built packages.
  const fromDist =
    kind.startsWith('gateway-') && FROM === 'dist'
      ? { TSX_TSCONFIG_PATH: fileURLToPath(new URL('../tsconfig.base.json', import.meta.url)) }
      : {};
  const child: ChildProcess = spawn(process.execPath, [...PROFILE, '--import', 'tsx', file], {
    env: {
      ...process.env,
      ...fromDist,
      AGENTGOV_BENCH_SERVER: kind,
      AGENTGOV_BENCH_ENV: JSON.stringify(env),
    },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const info = await new Promise<ServerInfo>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`bench server ${kind} exited (${code})`)));
    lines.once('line', (line) => resolve(JSON.parse(line) as ServerInfo));
  });
  return {
    info,
    url: `http://127.0.0.1:${info.port}`,
    cpu: () =>
      new Promise<number>((resolve) => {
        lines.once('line', (line) => resolve((JSON.parse(line) as { cpuMicros: number }).cpuMicros));
        child.stdin?.write('cpu\n');
      }),
    stop: () => {
      child.removeAllListeners('exit');
      child.kill();
    },
  };
}

interface Load {
  path: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
}

/** What a target served over all its rounds. */
interface Tally {
  requests: number;
  seconds: number;
  cpuMicros: number;
  latencies: { p50: number; p99: number }[];
}

async function round(target: Child, l: Load, seconds: number, tally: Tally | undefined): Promise<void> {
  const before = await target.cpu();
  const result = await autocannon({
    url: `${target.url}${l.path}`,
    method: l.method,
    headers: l.headers,
    ...(l.body ? { body: l.body } : {}),
    connections: CONNECTIONS,
    duration: seconds,
  });
  const after = await target.cpu();
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${target.url}: ${result.non2xx} non-2xx responses and ${result.errors} errors`);
  }
  if (!tally) return;
  tally.requests += result.requests.total;
  tally.seconds += result.duration;
  tally.cpuMicros += after - before;
  tally.latencies.push({ p50: result.latency.p50, p99: result.latency.p99 });
}

const median = (xs: number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

function rowOf(name: string, t: Tally): BenchRow {
  return {
    name,
    opsPerSec: t.requests / t.seconds,
    p50Ms: median(t.latencies.map((l) => l.p50)),
    p99Ms: median(t.latencies.map((l) => l.p99)),
    unit: 'request',
    note: `server CPU ${(t.cpuMicros / t.requests).toFixed(0)} µs/request; ${t.requests} requests in ${ROUNDS} alternating rounds, own process`,
  };
}

/**
 * Warms both targets (JIT, the JWKS fetch), then alternates short rounds of the baseline and the
 * target, so that a change in the machine's load falls on both alike; one row each.
 */
async function alternate(
  bare: Child,
  target: Child,
  loadOf: (c: Child) => Load,
  names: [string, string],
): Promise<BenchRow[]> {
  await round(bare, loadOf(bare), WARMUP_SECONDS, undefined);
  await round(target, loadOf(target), WARMUP_SECONDS, undefined);
  const tallies = [bare, target].map((): Tally => ({ requests: 0, seconds: 0, cpuMicros: 0, latencies: [] }));
  const perRound = Math.max(1, Math.round(SECONDS / ROUNDS));
  for (let i = 0; i < ROUNDS; i++) {
    await round(bare, loadOf(bare), perRound, tallies[0]);
    await round(target, loadOf(target), perRound, tallies[1]);
  }
  return [rowOf(names[0], tallies[0] as Tally), rowOf(names[1], tallies[1] as Tally)];
}

function suite(route: 'GET' | 'POST', framework: Framework): BenchSuite {
  const what = route === 'GET' ? 'GET /api/v1/policies/{id}' : 'POST /api/v1/decisions';
  const baseline = `bare ${framework}, same JSON`;
  return {
    name: `${what} on ${framework}, authenticated (${CONNECTIONS} connections, ${SECONDS}s each, gateway from ${FROM})`,
    baseline,
    async run() {
      if (FROM === 'dist') assertBuilt();
      const { startDevIssuer } = await import('../examples/server/src/dev-issuer');
      const issuer = await startDevIssuer({
        clientId: 'bench',
        clientSecret: 'bench-secret',
        redirectUri: 'http://127.0.0.1:9/callback',
      });
      const children: Child[] = [];
      try {
        const token = await issuer.mintIdToken('alice');
        const { issuer: url, clientId, clientSecret, redirectUri } = issuer;
        const gateway = await startChild(`gateway-${framework}`, {
          issuer: { issuer: url, clientId, clientSecret, redirectUri },
          token,
        });
        children.push(gateway);
        const bare = await startChild(`bare-${framework}`, gateway.info);
        children.push(bare);
        const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
        const loadOf = (c: Child): Load =>
          route === 'GET'
            ? { method: 'GET', path: c.info.policyPath ?? '/api/v1/policies/bench', headers }
            : { method: 'POST', path: '/api/v1/decisions', headers, body: DECISION_BODY };
        return await alternate(bare, gateway, loadOf, [baseline, `gateway on ${framework}`]);
      } finally {
        for (const c of children) c.stop();
        await issuer.close();
      }
    },
  };
}

type ReferenceDatabase = 'memory' | 'pglite' | 'postgres';

/**
 * A new, empty PostgreSQL database beside the bench's (`benchDatabaseUrl`) for one reference
 * server run, and how to drop it.
 */
async function freshDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const admin = benchDatabaseUrl().url;
  const name = `agentgov_bench_ref_${process.pid}_${Date.now()}`;
  const run = (text: string) => adminSql(admin, text);
  await run(`CREATE DATABASE ${name}`);
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return { url: url.href, drop: () => run(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/**
 * The reference server as an operator runs it (`examples/server/start.mjs`, what `pnpm start`
 * runs: its build when current) on 127.0.0.1 port 0, with its development issuer, the given
 * database and the request log on (read and dropped here, as a terminal or a log shipper would);
 * the bench policy created through its API. Its CPU time is read from /proc (Linux).
 */
async function startReference(
  framework: Framework,
  database: ReferenceDatabase,
): Promise<Child & { token: string }> {
  const dataDir = database === 'pglite' ? mkdtempSync(join(tmpdir(), 'agentgov-bench-')) : '';
  const postgres = database === 'postgres' ? await freshDatabase() : undefined;
  const start = fileURLToPath(new URL('../examples/server/start.mjs', import.meta.url));
  const child = spawn(process.execPath, [...PROFILE, start], {
    env: {
      ...process.env,
      ...{ PORT: '0', HOST: '127.0.0.1', AGENTGOV_FRAMEWORK: framework, AGENTGOV_DATA_DIR: dataDir },
      ...{
        DATABASE_URL: database === 'memory' ? 'memory:' : (postgres?.url ?? ''),
        OIDC_ISSUER: '',
        REDIS_URL: '',
        OPA_URL: '',
      },
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const stop = () => {
    child.removeAllListeners('exit');
    const removeData = () => {
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
      void postgres?.drop().catch(() => {});
    };
    if (PROFILE.length === 0) {
      child.kill('SIGKILL');
      removeData();
      return;
    }
    // Profiled: stopped as an operator stops it, so that node writes the profile on the way out.
    child.once('exit', removeData);
    child.kill('SIGTERM');
  };
  try {
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    const { url, token } = await new Promise<{ url: string; token: string }>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`the reference server exited (${code})`)));
      let url: string | undefined;
      lines.on('line', (line) => {
        url ??= /listening on (http:\/\/\S+)/.exec(line)?.[1];
        const token = /^\s*TOKEN=(\S+)/.exec(line)?.[1];
        if (url && token) resolve({ url, token });
      });
    });
    lines.close();
    child.stdout?.on('data', () => {}); // the request log, dropped
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const body = JSON.stringify({ ...BENCH_POLICY, scope: 'enterprise', scopeId: 'acme' });
    const created = await fetch(`${url}/api/v1/policies`, { method: 'POST', headers, body });
    if (created.status !== 201) throw new Error(`creating the policy: ${created.status}`);
    const decided = await fetch(`${url}/api/v1/decisions`, { method: 'POST', headers, body: DECISION_BODY });
    if (decided.status !== 200) throw new Error(`the decision: ${decided.status}`);
    const decisionJson = await decided.text();
    const pid = child.pid as number;
    return {
      info: { port: Number(new URL(url).port), decisionJson },
      url,
      token,
      async cpu() {
        // utime and stime (fields 14 and 15) in clock ticks of 10 ms.
        const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
        return (Number(fields[11]) + Number(fields[12])) * 10_000;
      },
      stop,
    };
  } catch (error) {
    stop();
    throw error;
  }
}

/**
 * POST /decisions on the reference server (what an operator runs and an outside harness
 * measures: every plugin, the development issuer in process, metrics, the request log) against
 * the same bare framework as the gateway suites' baseline.
 */
function referenceSuite(framework: Framework, database: ReferenceDatabase): BenchSuite {
  const baseline = `bare ${framework}, same JSON`;
  const db = {
    memory: 'DATABASE_URL=memory:',
    pglite: 'embedded PGlite, the default',
    postgres: `PostgreSQL (a new database on ${benchDatabaseUrl().source})`,
  }[database];
  return {
    name: `POST /api/v1/decisions on the reference server (${framework}, ${db}, request log on; ${CONNECTIONS} connections, ${SECONDS}s each)`,
    baseline,
    async run() {
      const children: Child[] = [];
      try {
        const reference = await startReference(framework, database);
        children.push(reference);
        const bare = await startChild(`bare-${framework}`, reference.info);
        children.push(bare);
        const headers = { authorization: `Bearer ${reference.token}`, 'content-type': 'application/json' };
        const load = (): Load => ({
          method: 'POST',
          path: '/api/v1/decisions',
          headers,
          body: DECISION_BODY,
        });
        return await alternate(bare, reference, load, [baseline, `reference server on ${framework}`]);
      } finally {
        for (const c of children) c.stop();
      }
    },
  };
}

const kind = process.env.AGENTGOV_BENCH_SERVER as Kind | undefined;
if (kind) {
  // Exit on a signal (so `node --cpu-prof` writes its profile when the parent stops the server).
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => process.exit(0));
  await serve(kind);
}

export default [
  suite('GET', 'express'),
  suite('GET', 'koa'),
  suite('POST', 'express'),
  suite('POST', 'koa'),
  referenceSuite('express', 'memory'),
  referenceSuite('koa', 'memory'),
  referenceSuite('express', 'pglite'),
  referenceSuite('koa', 'pglite'),
  referenceSuite('express', 'postgres'),
  referenceSuite('koa', 'postgres'),
];
