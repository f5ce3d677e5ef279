/**
 * What the upstream answers, as the proxy passes it on: its own JSON-RPC errors unchanged (even
 * -32001, the SDK's timeout code, and through a proxy in front of another proxy), an answer for
 * its health; a mute upstream holds the list no longer than its deadline; malformed tools/list
 * entries withheld and reported, the valid ones kept (across pages); a refusal of the rate limiter
 * still names the arguments' digest.
 */
import type { RateLimiter } from '@agentgov/core';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { argumentsDigest, refusalOf, Upstream } from '../src/index';
import { failingServer, failure, linked, makeProxyWorld, type ProxyWorld, USERS } from './harness';

let worlds: ProxyWorld[] = [];
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(worlds.map((w) => w.close()));
  worlds = [];
});

async function world(options: Parameters<typeof makeProxyWorld>[0] = {}): Promise<ProxyWorld> {
  const w = await makeProxyWorld(options);
  worlds.push(w);
  return w;
}

describe("the upstream's own errors pass through unchanged", () => {
  it('an upstream answering -32001 at once has answered: it does not count towards unhealthyAfter', async () => {
    const upstream = new Upstream({
      namespace: 'ev2',
      classification: 'internal',
      unhealthyAfter: 1,
      connect: linked(failingServer),
    });
    try {
      const args = { code: -32001, message: 'ev2 is busy', wire: true };
      for (let i = 0; i < 3; i++) {
        const e = await upstream
          .callTool({ name: 'fail', arguments: args }, { timeoutMs: 60_000 })
          .catch((error: unknown) => error);
        expect(e).toMatchObject({ code: -32001, message: 'ev2 is busy' });
        expect(upstream.failures).toBe(0);
        expect(upstream.health).toBe('up');
      }
    } finally {
      await upstream.close();
    }
  });

  it('through a proxy in front of another proxy, the inner proxy’s refusal comes back as it sent it', async () => {
    const inner = await world({
      config: { limits: { callTimeoutMs: 50 } },
      extraTools: (s) => s.registerTool('hang', {}, () => new Promise(() => {})),
    });
    const toInner = () => {
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      void inner.proxy.connect(serverSide, USERS.alice);
      return clientSide;
    };
    const outer = await world({
      config: { upstreams: [{ namespace: 'inner', transport: 'stdio', command: 'unused' }] },
      upstreams: { inner: toInner },
    });
    const direct = await inner.client();
    const chained = await outer.client();
    const a = await failure(direct.callTool({ name: 'notes__hang', arguments: {} }));
    const b = await failure(chained.callTool({ name: 'inner__notes__hang', arguments: {} }));
    expect(a).toMatchObject({ code: -32001, data: { agentgov: { refusal: 'upstream_timeout' } } });
    expect(b).toEqual(a);
    expect(outer.proxy.governor.health()).toEqual({ inner: 'up' });
  });
});

/** A transport to an upstream that reads everything and never answers (not even `initialize`). */
function mute(): Transport {
  const t: Transport = {
    start: async () => {},
    send: async () => {},
    close: async () => t.onclose?.(),
  };
  return t;
}

describe('an upstream that never answers', () => {
  const notes = { namespace: 'notes', transport: 'stdio' as const, command: 'unused' };
  const upstreams = [notes, { namespace: 'mute', transport: 'stdio' as const, command: 'unused' }];

  it('holds the other upstreams’ tools no longer than limits.callTimeoutMs (its default timeoutMs)', async () => {
    const w = await world({ config: { upstreams, limits: { callTimeoutMs: 2000 } }, upstreams: { mute } });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const listed = w.proxy.governor.listTools({ identity: USERS.alice, via: 'in-process' });
    await vi.advanceTimersByTimeAsync(2000);
    const tools = await listed;
    expect(tools.map((t) => t.name)).toContain('notes__read_file');
    expect(w.warnings).toContainEqual({
      upstream: 'mute',
      problem: 'cannot be listed: mute did not answer tools/list within 2000 ms',
    });
  });

  it('an upstream’s own timeoutMs is its deadline', async () => {
    const w = await world({
      config: {
        upstreams: [notes, { namespace: 'mute', transport: 'stdio', command: 'unused', timeoutMs: 300 }],
        limits: { callTimeoutMs: 60_000 },
      },
      upstreams: { mute },
    });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const listed = w.proxy.governor.listTools({ identity: USERS.alice, via: 'in-process' });
    await vi.advanceTimersByTimeAsync(300);
    expect((await listed).map((t) => t.name)).toContain('notes__read_file');
    expect(w.warnings.map((x) => x.problem)).toEqual([
      'cannot be listed: mute did not answer tools/list within 300 ms',
    ]);
  });
});

describe('malformed tools/list entries', () => {
  it('are withheld and reported; the valid tools of every page are kept', async () => {
    const pages: Record<string, { tools: unknown[]; nextCursor?: string }> = {
      first: {
        tools: [{ name: 'good', inputSchema: { type: 'object' } }, { name: 'noschema' }],
        nextCursor: 'second',
      },
      second: {
        tools: [
          42,
          { name: 'bad_schema', inputSchema: 'x' },
          { name: 'also_good', inputSchema: { type: 'object' } },
        ],
      },
    };
    const paged = () => {
      const s = new Server({ name: 'paged', version: '1.0.0' }, { capabilities: { tools: {} } });
      s.setRequestHandler(
        ListToolsRequestSchema,
        async (req) => pages[req.params?.cursor ?? 'first'] as never,
      );
      return s;
    };
    const w = await world({ upstreams: { notes: linked(paged) } });
    const client = await w.client();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['notes__good', 'notes__also_good']);
    expect(w.warnings).toEqual([
      {
        upstream: 'notes',
        tool: 'noschema',
        problem: expect.stringMatching(/^withheld: not a valid tool: inputSchema: /),
      },
      { upstream: 'notes', problem: expect.stringMatching(/^withheld: not a valid tool: \(entry\): /) },
      {
        upstream: 'notes',
        tool: 'bad_schema',
        problem: expect.stringMatching(/^withheld: not a valid tool: inputSchema: /),
      },
    ]);
  });
});

describe('a call the rate limiter refuses', () => {
  it('is audited with the digest of its arguments (none when they are no JSON object)', async () => {
    const refuseAll: RateLimiter = {
      consume: async (_key, limit) => ({
        allowed: false,
        limit: limit.points,
        remaining: 0,
        resetSeconds: 30,
      }),
    };
    const w = await world({ rateLimiter: refuseAll });
    const session = { identity: USERS.alice, via: 'in-process' as const };
    const args = { path: '/notes/a.md', n: [1, 2] };
    for (const a of [args, 'not an object', { big: 1n }]) {
      const e = await w.proxy.governor.callTool(session, 'notes__read_file', a).catch((x: unknown) => x);
      expect(refusalOf(e)?.refusal).toBe('rate_limit_exceeded');
    }
    const digests = w.audit.entries.map((e) => e.actionDetail?.argumentsDigest);
    expect(digests).toEqual([argumentsDigest(args), undefined, undefined]);
    expect(w.state.calls).toEqual([]);
  });
});
