/**
 * The proxy serves `tools/call` from its transport and forwards it on the upstream client's
 * transport (its own request ids, its own progress tokens), beside the SDK's Server and Client,
 * which keep every other message: concurrent calls and lists on one connection, progress of
 * concurrent calls, an upstream closing mid-call, the assistant closing mid-call, a malformed
 * result, a late answer after the timeout, task-augmented and malformed calls left to the SDK.
 */
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { type JSONRPCMessage, McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  linked,
  makeProxyWorld,
  newNotesState,
  notesServer,
  type ProxyWorld,
  refusal,
  refusedAndAudited,
} from './harness';

let world: ProxyWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** A promise and its resolver. */
function gate<T = void>() {
  let open!: (value: T) => void;
  const opened = new Promise<T>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

describe('the proxy’s own request ids and progress tokens', () => {
  it('concurrent calls and lists on one connection each get their own answer', async () => {
    world = await makeProxyWorld({
      extraTools: (s) =>
        s.registerTool('echo', { inputSchema: { n: z.number() } }, async ({ n }) => ({
          content: [{ type: 'text', text: `echo ${n}` }],
        })),
    });
    const client = await world.client();
    await client.listTools();
    const ns = Array.from({ length: 25 }, (_, i) => i);
    const [results, lists] = await Promise.all([
      Promise.all(ns.map((n) => client.callTool({ name: 'notes__echo', arguments: { n } }))),
      Promise.all([client.listTools(), client.listTools()]),
    ]);
    expect(results.map((r) => r.content)).toEqual(ns.map((n) => [{ type: 'text', text: `echo ${n}` }]));
    for (const l of lists) expect(l.tools.map((t) => t.name)).toContain('notes__echo');
    const done = world.audit.entries.filter(
      (e) => e.actionType === 'tool_invocation' && e.outcome === 'success',
    );
    expect(done).toHaveLength(25);
    // Each went upstream after its write-ahead entry, under its own request id.
    const ahead = world.audit.entries.filter((e) => e.actionType === 'policy_decision');
    expect(new Set(ahead.map((e) => e.requestId))).toEqual(new Set(done.map((e) => e.requestId)));
  });

  it('progress of concurrent calls reaches each caller’s own token', async () => {
    const both = gate();
    let waiting = 0;
    world = await makeProxyWorld({
      extraTools: (s) =>
        s.registerTool('steps', { inputSchema: { tag: z.number() } }, async ({ tag }, extra) => {
          if (++waiting === 2) both.open();
          await both.opened; // both calls are in flight before either reports progress
          const token = extra._meta?.progressToken;
          if (token !== undefined)
            await extra.sendNotification({
              method: 'notifications/progress',
              params: { progressToken: token, progress: tag, total: 100 },
            });
          return { content: [{ type: 'text', text: `done ${tag}` }] };
        }),
    });
    const client = await world.client();
    const seen: Record<number, number[]> = { 1: [], 2: [] };
    await Promise.all(
      [1, 2].map((tag) =>
        client.callTool({ name: 'notes__steps', arguments: { tag } }, undefined, {
          onprogress: (p) => {
            seen[tag]?.push(p.progress);
          },
        }),
      ),
    );
    expect(seen).toEqual({ 1: [1], 2: [2] });
  });
});

describe('connections closing mid-call', () => {
  it('an upstream that closes while a call waits: refused at once as unavailable, audited', async () => {
    const started = gate();
    const upstreamSides: InMemoryTransport[] = [];
    const make = linked(() =>
      notesServer(newNotesState(), (s) =>
        s.registerTool('stall', {}, async () => {
          started.open();
          return new Promise(() => {});
        }),
      ),
    );
    world = await makeProxyWorld({
      upstreams: {
        notes: () => {
          const side = make();
          upstreamSides.push(side);
          return side;
        },
      },
    });
    const client = await world.client();
    const call = client.callTool({ name: 'notes__stall', arguments: {} });
    await started.opened;
    await upstreamSides[0]?.close();
    await refusedAndAudited(world, call, 'upstream_unavailable');
  });

  it('the assistant closing while a call waits cancels it upstream', async () => {
    const started = gate();
    const cancelled = gate<string>();
    world = await makeProxyWorld({
      extraTools: (s) =>
        s.registerTool('stall', {}, (extra) => {
          started.open();
          extra.signal.addEventListener('abort', () => cancelled.open(String(extra.signal.reason)));
          return new Promise(() => {});
        }),
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await world.proxy.connect(serverSide, { tenantId: 'acme', userId: 'alice' });
    await clientSide.start();
    await clientSide.send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
    });
    await clientSide.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await clientSide.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'notes__stall' } });
    await started.opened;
    await clientSide.close();
    expect(await cancelled.opened).toContain('the connection closed');
  });
});

describe('what the upstream answers', () => {
  it('a malformed result is refused (upstream_unavailable), never delivered', async () => {
    world = await makeProxyWorld({
      upstreams: {
        notes: () => {
          // A raw upstream: lists one tool, answers every call with content that is not an array.
          const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
          serverSide.onmessage = (m) => {
            const r = m as { id?: number | string; method?: string };
            if (r.id === undefined) return;
            const result =
              r.method === 'initialize'
                ? {
                    protocolVersion: '2025-06-18',
                    capabilities: { tools: {} },
                    serverInfo: { name: 'raw', version: '0' },
                  }
                : r.method === 'tools/list'
                  ? { tools: [{ name: 'odd', inputSchema: { type: 'object' } }] }
                  : { content: 'not an array' };
            void serverSide.send({ jsonrpc: '2.0', id: r.id, result } as JSONRPCMessage);
          };
          void serverSide.start();
          return clientSide;
        },
      },
    });
    const client = await world.client();
    const r = await refusal(client.callTool({ name: 'notes__odd', arguments: {} }));
    // The assistant is told which upstream failed; what the failure was is in the audit entry
    // (a transport's own words can hold an address or a command line).
    expect(r.refusal).toMatchObject({
      refusal: 'upstream_unavailable',
      reason: 'the upstream notes is unavailable',
    });
    expect(world.audit.entries.at(-1)).toMatchObject({
      outcome: 'error',
      actionDetail: { error: 'upstream_unavailable' },
      policyReason: expect.stringMatching(/^notes: .*malformed/),
    });
  });

  it('an answer after the timeout is dropped; the next call is answered', async () => {
    const late = gate();
    const answered = gate();
    let calls = 0;
    world = await makeProxyWorld({
      config: { limits: { callTimeoutMs: 1000 } },
      extraTools: (s) =>
        s.registerTool('late', {}, async () => {
          if (++calls === 1) {
            await late.opened; // answers only once the proxy has given up on it
            answered.open();
          }
          return { content: [{ type: 'text', text: `answer ${calls}` }] };
        }),
    });
    const client = await world.client();
    await refusedAndAudited(
      world,
      client.callTool({ name: 'notes__late', arguments: {} }),
      'upstream_timeout',
    );
    late.open();
    await answered.opened;
    const next = await client.callTool({ name: 'notes__late', arguments: {} });
    expect(next.content).toEqual([{ type: 'text', text: 'answer 2' }]);
  });
});

describe('one timer for the calls of an upstream', () => {
  it('calls started one after the other are each cut at their own timeout, and so is a later one', async () => {
    const started: (() => void)[] = [];
    world = await makeProxyWorld({
      config: { limits: { callTimeoutMs: 50 } },
      extraTools: (s) => {
        s.registerTool('hang', {}, () => {
          started.shift()?.();
          return new Promise(() => {});
        });
      },
    });
    const client = await world.client();
    const first = gate();
    started.push(first.open);
    const a = refusal(client.callTool({ name: 'notes__hang', arguments: {} }));
    await first.opened;
    const second = gate();
    started.push(second.open);
    const b = refusal(client.callTool({ name: 'notes__hang', arguments: {} }));
    await second.opened;
    expect((await a).refusal?.refusal).toBe('upstream_timeout');
    expect((await b).refusal?.refusal).toBe('upstream_timeout');
    // And after both were cut, the timer is armed again for the next call.
    const third = gate();
    started.push(third.open);
    const c = refusal(client.callTool({ name: 'notes__hang', arguments: {} }));
    await third.opened;
    expect((await c).refusal?.refusal).toBe('upstream_timeout');
  });
});

describe('calls the SDK’s Server still answers', () => {
  it('a task-augmented call and malformed calls get the SDK’s answers', async () => {
    world = await makeProxyWorld();
    const client = await world.client();
    const task = await client
      .request(
        {
          method: 'tools/call',
          params: { name: 'notes__read_file', arguments: { path: '/notes/a.md' }, task: { ttl: 1000 } },
        },
        z.looseObject({}),
      )
      .then(
        () => 'answered',
        (e: unknown) => (e instanceof McpError ? 'refused' : 'other'),
      );
    expect(['answered', 'refused']).toContain(task);
    const bad = await client
      .request({ method: 'tools/call', params: { name: 7 } } as never, z.looseObject({}))
      .catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(McpError);
    expect((bad as McpError).code).toBe(-32602);
  });
});
