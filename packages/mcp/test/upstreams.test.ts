/**
 * A Streamable HTTP upstream (the SDK's server transport on a real node:http server, port 0) and
 * per-user call limits (the gateway's in-memory limiter).
 */
import type { Server as HttpServer } from 'node:http';
import { createMemoryRateLimiter } from '@agentgov/gateway';
import { createTestGovernance, startTestIssuer, testOidcConfig } from '@agentgov/gateway/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { mcpRoutes } from '../src/gateway/index';
import { createMcpProxy, refusalOf } from '../src/index';
import {
  connectClient,
  makeProxyWorld,
  newNotesState,
  type ProxyWorld,
  startHttpNotes,
  USERS,
} from './harness';

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
    const started = await startHttpNotes(newNotesState({ '/r.md': 'remote note' }), (req) => {
      seen.push(req.headers['x-upstream-key'] as string | undefined);
      return false;
    });
    http = started.http;
    const { url } = started;
    world = await makeProxyWorld();
    const proxy = createMcpProxy(
      { upstreams: [{ namespace: 'notes', transport: 'http', url, headers: { 'x-upstream-key': 'k1' } }] },
      { engine: world.engine, audit: world.audit },
    );
    const client = await connectClient(proxy, { tenantId: 'acme', userId: 'alice' });
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

describe('a Streamable HTTP upstream that keeps failing', () => {
  it('is unhealthy after `unhealthyAfter` failed requests (plugin health, /status 503), up again once it answers', async () => {
    let failing = false;
    const started = await startHttpNotes(newNotesState({ '/r.md': 'remote note' }), (_req, res) => {
      if (!failing) return false;
      res.writeHead(503, { 'content-type': 'text/plain' }).end('upstream down');
      return true;
    });
    http = started.http;
    const { url } = started;
    world = await makeProxyWorld();
    const proxy = createMcpProxy(
      { upstreams: [{ namespace: 'notes', transport: 'http', url, unhealthyAfter: 2 }] },
      { engine: world.engine, audit: world.audit },
    );
    const idp = await startTestIssuer();
    const plugin = mcpRoutes({
      governor: proxy.governor,
      oidc: testOidcConfig(idp),
      resource: 'http://127.0.0.1/api/v1/mcp',
      audit: world.audit,
    });
    const gov = createTestGovernance(idp, { plugins: [plugin] });
    await gov.start();
    const status = async () => {
      const r = await gov.handle(new Request('http://gov.test/api/v1/status'), {
        remoteAddress: '127.0.0.1',
      });
      const body = (await r.json()) as { components: Record<string, { status: string }> };
      return { code: r.status, notes: body.components['mcp upstream notes']?.status };
    };
    const session = { identity: USERS.alice, via: 'in-process' as const };
    const read = () =>
      proxy.governor
        .callTool(session, 'notes__read_file', { path: '/r.md' })
        .catch((e: unknown) => refusalOf(e)?.refusal);
    try {
      expect(await read()).toMatchObject({ content: [{ type: 'text', text: 'remote note' }] });
      expect(await plugin.health?.(new AbortController().signal)).toEqual({ 'mcp upstream notes': true });
      expect(await status()).toEqual({ code: 200, notes: 'healthy' });

      failing = true;
      expect(await read()).toBe('upstream_unavailable');
      expect(proxy.governor.health()).not.toEqual({ notes: 'unhealthy' }); // one failure is not yet unhealthy
      expect(await read()).toBe('upstream_unavailable');
      expect(proxy.governor.health()).toEqual({ notes: 'unhealthy' });
      expect(await plugin.health?.(new AbortController().signal)).toEqual({ 'mcp upstream notes': false });
      expect(await status()).toEqual({ code: 503, notes: 'unhealthy' });

      failing = false;
      expect(await read()).toMatchObject({ content: [{ type: 'text', text: 'remote note' }] });
      expect(proxy.governor.health()).toEqual({ notes: 'up' });
      expect(proxy.governor.upstream('notes')?.failures).toBe(0);
      expect(await status()).toEqual({ code: 200, notes: 'healthy' });
    } finally {
      await gov.close();
      await proxy.close();
      await idp.close();
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
    const alice = await connectClient(proxy, USERS.alice);
    const bob = await connectClient(proxy, USERS.bob);
    try {
      const call = (client: typeof alice) =>
        client
          .callTool({ name: 'notes__read_file', arguments: { path: '/notes/a.md' } })
          .catch((e: unknown) => e);
      await call(alice);
      await call(alice);
      expect(refusalOf(await call(alice))?.refusal).toBe('rate_limit_exceeded');
      expect(await call(bob)).toMatchObject({ content: [{ type: 'text', text: 'alpha plan' }] });
      const calls = world.audit.entries.filter((e) => e.actionType === 'tool_invocation');
      expect(calls.at(-2)).toMatchObject({
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
