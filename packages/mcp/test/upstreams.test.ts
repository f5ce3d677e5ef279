/**
 * A Streamable HTTP upstream (the SDK's server transport on a real node:http server, port 0) and
 * per-user call limits (the gateway's in-memory limiter).
 */
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMemoryRateLimiter } from '@agentgov/gateway';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createMcpProxy, refusalOf } from '../src/index';
import { makeProxyWorld, notesServer, type ProxyWorld, USERS } from './harness';

let world: ProxyWorld | undefined;
let http: HttpServer | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
  http?.closeAllConnections();
  await new Promise<void>((resolve) => (http ? http.close(() => resolve()) : resolve()));
  http = undefined;
});

describe('a Streamable HTTP upstream', () => {
  it('is listed and called through the proxy, with the configured headers', async () => {
    const seen: (string | undefined)[] = [];
    const state = {
      files: new Map([['/r.md', 'remote note']]),
      sent: [],
      deleted: [],
      calls: [] as string[],
    };
    http = createServer(async (req, res) => {
      seen.push(req.headers['x-upstream-key'] as string | undefined);
      // Stateless: a server and transport per request.
      const server = notesServer(state);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res);
    });
    await new Promise<void>((resolve) => http?.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
    world = await makeProxyWorld();
    const proxy = createMcpProxy(
      { upstreams: [{ namespace: 'notes', transport: 'http', url, headers: { 'x-upstream-key': 'k1' } }] },
      { engine: world.engine, audit: world.audit },
    );
    const { InMemoryTransport } = await import('@modelcontextprotocol/sdk/inMemory.js');
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const [c, s] = InMemoryTransport.createLinkedPair();
    await proxy.connect(s, { tenantId: 'acme', userId: 'alice' });
    const client = new Client({ name: 'a', version: '1' });
    await client.connect(c);
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toContain('notes__read_file');
      expect(names).not.toContain('notes__wipe_all');
      const r = await client.callTool({ name: 'notes__read_file', arguments: { path: '/r.md' } });
      expect(r.content).toEqual([{ type: 'text', text: 'remote note' }]);
      expect(seen.length).toBeGreaterThan(0);
      expect(seen.every((k) => k === 'k1')).toBe(true);
      expect(proxy.governor.health()).toEqual({ notes: 'up' });
    } finally {
      await client.close();
      await proxy.close();
    }
  });
});

describe('per-user call limits', () => {
  it('a user over the limit is refused; another user is not', async () => {
    world = await makeProxyWorld({ config: { limits: { callsPerWindow: 2, windowSeconds: 60 } } });
    const proxy = createMcpProxy(
      {
        upstreams: [{ namespace: 'notes', transport: 'stdio', command: 'unused' }],
        limits: { callsPerWindow: 2, windowSeconds: 60 },
      },
      {
        engine: world.engine,
        audit: world.audit,
        rateLimiter: createMemoryRateLimiter(),
        connect: { notes: () => world?.proxy.governor.upstream('notes')?.spec.connect?.() as never },
      },
    );
    const { InMemoryTransport } = await import('@modelcontextprotocol/sdk/inMemory.js');
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const open = async (who: { tenantId: string; userId: string }) => {
      const [c, s] = InMemoryTransport.createLinkedPair();
      await proxy.connect(s, who);
      const client = new Client({ name: 'a', version: '1' });
      await client.connect(c);
      return client;
    };
    const alice = await open(USERS.alice);
    const bob = await open(USERS.bob);
    try {
      const call = (client: typeof alice) =>
        client
          .callTool({ name: 'notes__read_file', arguments: { path: '/notes/a.md' } })
          .catch((e: unknown) => e);
      await call(alice);
      await call(alice);
      expect(refusalOf(await call(alice))?.refusal).toBe('rate_limit_exceeded');
      expect(await call(bob)).toMatchObject({ content: [{ type: 'text', text: 'alpha plan' }] });
      expect(world.audit.entries.at(-2)).toMatchObject({
        userId: 'alice',
        actionDetail: { error: 'rate_limit_exceeded' },
      });
    } finally {
      await alice.close();
      await bob.close();
      await proxy.close();
    }
  });
});
