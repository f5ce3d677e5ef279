/**
 * Requests/s and p99 of an authenticated `GET /api/v1/policies/{id}` through the gateway on each
 * adapter (Express, Koa), against the same route on the bare framework returning the same JSON
 * (the baseline), all in one run, driven by autocannon over loopback.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mount as mountExpress } from '@agentgov/adapter-express';
import { mount as mountKoa } from '@agentgov/adapter-koa';
import type { Governance } from '@agentgov/gateway';
import { createTestService } from '@agentgov/http-suite';
import autocannon from 'autocannon';
import express from 'express';
import Koa from 'koa';
import { startDevIssuer } from '../examples/server/src/dev-issuer';
import type { BenchRow, BenchSuite } from './lib';

const SECONDS = Number(process.env.BENCH_HTTP_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_HTTP_CONNECTIONS ?? 10);

async function listen(listener: http.RequestListener): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function load(name: string, url: string, headers: Record<string, string>): Promise<BenchRow> {
  const result = await autocannon({ url, headers, connections: CONNECTIONS, duration: SECONDS });
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${name}: ${result.non2xx} non-2xx responses and ${result.errors} errors`);
  }
  return {
    name,
    opsPerSec: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    unit: 'request',
    note: `${result.requests.total} requests, ${CONNECTIONS} connections, ${SECONDS}s`,
  };
}

const suite: BenchSuite = {
  name: `GET /api/v1/policies/{id}, authenticated (${CONNECTIONS} connections, ${SECONDS}s each)`,
  baseline: 'bare express, same JSON',
  async run() {
    const issuer = await startDevIssuer({
      clientId: 'bench',
      clientSecret: 'bench-secret',
      redirectUri: 'http://127.0.0.1:9/callback',
    });
    // The kernel with the policy and audit plugins on in-memory stores (the HTTP suite's composition).
    const gov: Governance = await createTestService(issuer);
    await gov.start();
    const token = await issuer.mintIdToken('alice');
    const headers = { authorization: `Bearer ${token}` };
    const created = await gov.handle(
      new Request('http://bench/api/v1/policies', {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
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
    const policy = (await created.json()) as { id: string };
    const body = JSON.stringify(policy);
    const path = `/api/v1/policies/${policy.id}`;

    const bareExpress = express();
    bareExpress.get('/api/v1/policies/:id', (_req, res) => {
      res.type('application/json').send(body);
    });
    const bareKoa = new Koa();
    bareKoa.use((ctx) => {
      ctx.type = 'application/json';
      ctx.body = body;
    });
    const govExpress = express();
    govExpress.use(mountExpress(gov));
    const govKoa = new Koa();
    govKoa.use(mountKoa(gov));

    const targets: [string, http.RequestListener][] = [
      ['bare express, same JSON', bareExpress],
      ['bare koa, same JSON', bareKoa.callback()],
      ['gateway on express', govExpress],
      ['gateway on koa', govKoa.callback()],
    ];
    const rows: BenchRow[] = [];
    try {
      for (const [name, listener] of targets) {
        const server = await listen(listener);
        try {
          rows.push(await load(name, `${server.url}${path}`, headers));
        } finally {
          await server.close();
        }
      }
    } finally {
      await gov.close();
      await issuer.close();
    }
    return rows;
  },
};

export default [suite];
