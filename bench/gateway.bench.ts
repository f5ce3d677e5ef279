/**
 * Requests/s and p99 through the gateway on each adapter (Express, Koa), each against the bare
 * framework serving the same JSON on the same route (the baseline), all in one run, driven by
 * autocannon over loopback:
 * - authenticated `GET /api/v1/policies/{id}`;
 * - authenticated `POST /api/v1/decisions` (an agent-to-agent decision: body parsed and validated,
 *   the built-in engine, the audited `policy_decision` appended to the in-memory chain) against
 *   the bare framework parsing the same JSON body and answering the same decision.
 *
 * Every server runs in its own process (this file, re-run as a child with
 * `AGENTGOV_BENCH_SERVER=<kind>`), so the load generator and the server under test do not share
 * an event loop. Each pair is measured gateway and baseline back to back, after a warm-up.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import type { BenchRow, BenchSuite } from './lib';

const SECONDS = Number(process.env.BENCH_HTTP_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_HTTP_CONNECTIONS ?? 10);
const WARMUP_SECONDS = 1;

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
    const decisionJson = env.decisionJson ?? '{}';
    if (kind === 'bare-express') {
      const { default: express } = await import('express');
      const app = express();
      app.get('/api/v1/policies/:id', (_req, res) => {
        res.type('application/json').send(policyJson);
      });
      app.post('/api/v1/decisions', express.json(), (req, res) => {
        if (typeof req.body !== 'object' || req.body === null) res.status(400);
        res.type('application/json').send(decisionJson);
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
          ctx.body = decisionJson;
        } else if (ctx.method === 'GET' && ctx.path.startsWith('/api/v1/policies/')) {
          ctx.body = policyJson;
        }
      });
      listener = app.callback();
    }
  } else {
    const { createTestService } = await import('@agentgov/http-suite');
    if (!env.issuer || !env.token) throw new Error('a gateway server needs the issuer and a token');
    // The kernel with the policy and audit plugins on in-memory stores (the HTTP suite's composition).
    const gov = await createTestService(env.issuer);
    await gov.start();
    const auth = { authorization: `Bearer ${env.token}`, 'content-type': 'application/json' };
    const created = await gov.handle(
      new Request('http://bench/api/v1/policies', {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({
          scope: 'enterprise',
          scopeId: 'acme',
          domain: 'agent-to-agent',
          name: 'bench',
          version: '1.0.0',
          changeReason: 'bench',
          content: 'enabled: true\nmax_rounds:\n  information_query: 3\n',
        }),
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
        import('@agentgov/adapter-express'),
      ]);
      const app = express();
      app.use(mount(gov));
      listener = app;
    } else {
      const [{ default: Koa }, { mount }] = await Promise.all([
        import('koa'),
        import('@agentgov/adapter-koa'),
      ]);
      const app = new Koa();
      app.use(mount(gov));
      listener = app.callback();
    }
  }
  const server = http.createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ ...info, port })}\n`);
}

// ---------------------------------------------------------------------------------------------
// The parent: starts the children, drives the load, returns the rows.

interface Child {
  info: ServerInfo;
  url: string;
  stop(): void;
}

async function startChild(kind: Kind, env: object): Promise<Child> {
  const file = fileURLToPath(import.meta.url);
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', file], {
    env: { ...process.env, AGENTGOV_BENCH_SERVER: kind, AGENTGOV_BENCH_ENV: JSON.stringify(env) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const info = await new Promise<ServerInfo>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`bench server ${kind} exited (${code})`)));
    lines.once('line', (line) => resolve(JSON.parse(line) as ServerInfo));
  });
  return {
    info,
    url: `http://127.0.0.1:${info.port}`,
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

async function load(name: string, url: string, l: Load, seconds: number): Promise<BenchRow> {
  const result = await autocannon({
    url: `${url}${l.path}`,
    method: l.method,
    headers: l.headers,
    ...(l.body ? { body: l.body } : {}),
    connections: CONNECTIONS,
    duration: seconds,
  });
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${name}: ${result.non2xx} non-2xx responses and ${result.errors} errors`);
  }
  return {
    name,
    opsPerSec: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    unit: 'request',
    note: `${result.requests.total} requests, ${CONNECTIONS} connections, ${seconds}s, own process`,
  };
}

function suite(route: 'GET' | 'POST', framework: Framework): BenchSuite {
  const what = route === 'GET' ? 'GET /api/v1/policies/{id}' : 'POST /api/v1/decisions';
  const baseline = `bare ${framework}, same JSON`;
  return {
    name: `${what} on ${framework}, authenticated (${CONNECTIONS} connections, ${SECONDS}s each)`,
    baseline,
    async run() {
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
        // Warm both (JIT, the JWKS fetch), then measure the baseline and the gateway back to back.
        await load('warm-up', bare.url, loadOf(bare), WARMUP_SECONDS);
        await load('warm-up', gateway.url, loadOf(gateway), WARMUP_SECONDS);
        return [
          await load(baseline, bare.url, loadOf(bare), SECONDS),
          await load(`gateway on ${framework}`, gateway.url, loadOf(gateway), SECONDS),
        ];
      } finally {
        for (const c of children) c.stop();
        await issuer.close();
      }
    },
  };
}

const kind = process.env.AGENTGOV_BENCH_SERVER as Kind | undefined;
if (kind) await serve(kind);

export default [suite('GET', 'express'), suite('GET', 'koa'), suite('POST', 'express'), suite('POST', 'koa')];
