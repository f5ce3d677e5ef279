import { err, ok, PolicyEngineUnreachableError } from '@agentgov/core';
import {
  LoggingMessageNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { argumentsDigest, governTools, META_AUTONOMY, refusalOf } from '../src/index';
import {
  FAILURES,
  failingServer,
  failure,
  linked,
  makeProxyWorld,
  newNotesState,
  notesServer,
  type ProxyWorld,
  refusal,
  USERS,
} from './harness';

/** A client of `world` that keeps the MCP log messages it is sent; its tools listed. */
async function withMessages(w: ProxyWorld) {
  const client = await w.client();
  const messages: unknown[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    messages.push(n.params);
  });
  await client.listTools();
  return { client, messages };
}
let world: ProxyWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe('tools/list', () => {
  it('shows only what the user may call, namespaced, with the autonomy in _meta and the description', async () => {
    world = await makeProxyWorld();
    const client = await world.client();
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(Object.keys(byName).sort()).toEqual([
      'notes__delete_file',
      'notes__read_file',
      'notes__search_notes',
      'notes__send_message',
    ]);
    expect(byName.notes__wipe_all).toBeUndefined();
    expect(byName.notes__read_file?._meta?.[META_AUTONOMY]).toBe('autonomous');
    expect(byName.notes__send_message?._meta?.[META_AUTONOMY]).toBe('notify');
    expect(byName.notes__delete_file?._meta?.[META_AUTONOMY]).toBe('approve');
    expect(byName.notes__delete_file?.description).toMatch(/^\[agentgov: approve/);
    expect(byName.notes__read_file?.inputSchema.properties).toHaveProperty('path');
    expect(byName.notes__delete_file?.annotations?.destructiveHint).toBe(true);
  });

  it('follows the hierarchy: bob’s own policy tightens send_message to approve', async () => {
    world = await makeProxyWorld();
    const { tools } = await (await world.client(USERS.bob)).listTools();
    expect(tools.find((t) => t.name === 'notes__send_message')?._meta?.[META_AUTONOMY]).toBe('approve');
  });

  it('a tenant whose actions policy changed: its sessions are told to list again, other tenants’ not', async () => {
    world = await makeProxyWorld();
    const told = async (identity: { tenantId: string; userId: string }) => {
      const client = await world!.client(identity);
      let n = 0;
      client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
        n++;
      });
      return () => n;
    };
    const acme = await told(USERS.alice);
    const other = await told({ tenantId: 'globex', userId: 'gina' });
    world.proxy.governor.toolsChanged('acme');
    // The notification travels through the in-memory transports: a few turns of the loop.
    for (let i = 0; i < 20 && acme() === 0; i++) await new Promise((r) => setImmediate(r));
    expect([acme(), other()]).toEqual([1, 0]);
    // Every tenant's (an upstream's own change).
    world.proxy.governor.toolsChanged();
    for (let i = 0; i < 20 && other() === 0; i++) await new Promise((r) => setImmediate(r));
    expect([acme(), other()]).toEqual([2, 1]);
  });

  it('an unknown user sees no tools and cannot call any', async () => {
    world = await makeProxyWorld();
    const client = await world.client({ tenantId: 'acme', userId: 'mallory' });
    expect((await client.listTools()).tools).toEqual([]);
    const r = await refusal(
      client.callTool({ name: 'notes__read_file', arguments: { path: '/notes/a.md' } }),
    );
    // Nothing allows an unknown user anything: the call is unknown to them, as every other name
    // (they learn nothing of which tools exist upstream).
    expect(r.refusal?.refusal).toBe('unknown_tool');
    const made = await refusal(client.callTool({ name: 'notes__no_such_tool', arguments: {} }));
    expect(made.error.message).toBe(r.error.message.replace('notes__read_file', 'notes__no_such_tool'));
    expect(world.state.calls).toEqual([]);
  });
});

describe('tools/call', () => {
  it('autonomous: forwarded as is, audited with the digest and never the raw arguments', async () => {
    world = await makeProxyWorld();
    const client = await world.client();
    await client.listTools();
    const r = await client.callTool({ name: 'notes__read_file', arguments: { path: '/notes/a.md' } });
    expect(r.content).toEqual([{ type: 'text', text: 'alpha plan' }]);
    const entry = world.audit.entries.at(-1);
    expect(entry).toMatchObject({
      userId: 'alice',
      actionType: 'tool_invocation',
      policyResult: 'allow',
      outcome: 'success',
      actionDetail: {
        tool: 'notes__read_file',
        upstream: 'notes',
        upstreamTool: 'read_file',
        decision: 'autonomous',
        outcome: 'success',
        argumentsDigest: argumentsDigest({ path: '/notes/a.md' }),
      },
    });
    expect(JSON.stringify(entry)).not.toContain('/notes/a.md');
    expect(entry?.actionDetail.durationMs).toBeTypeOf('number');
  });

  it('passes structured content and the upstream’s tool errors through unchanged', async () => {
    world = await makeProxyWorld();
    const client = await world.client();
    await client.listTools();
    const s = await client.callTool({ name: 'notes__search_notes', arguments: { query: 'plan' } });
    expect(s.structuredContent).toEqual({ hits: ['/notes/a.md', '/notes/b.md'] });
    const e = await client.callTool({ name: 'notes__read_file', arguments: { path: '/nope' } });
    expect(e.isError).toBe(true);
    expect(world.audit.entries.at(-1)?.outcome).toBe('error');
  });

  it('notify: forwarded, the client gets a notifications/message, and a notice is recorded', async () => {
    world = await makeProxyWorld();
    const { client, messages } = await withMessages(world);
    await client.callTool({ name: 'notes__send_message', arguments: { to: 'bob', text: 'hi' } });
    expect(world.state.sent).toEqual([{ to: 'bob', text: 'hi' }]);
    await new Promise((r) => setImmediate(r));
    expect(messages).toEqual([
      expect.objectContaining({
        level: 'notice',
        logger: 'agentgov',
        data: expect.objectContaining({ tool: 'notes__send_message', userId: 'alice' }),
      }),
    ]);
    const notices = await world.inbox.notices('acme');
    expect(notices).toMatchObject([{ userId: 'alice', tool: 'notes__send_message', outcome: 'success' }]);
    expect(world.audit.entries.at(-1)?.actionDetail.decision).toBe('notify');
  });

  it('notify, the notice not recordable: the call stands (result delivered, audited success, runs once), the failure said', async () => {
    world = await makeProxyWorld();
    world.inbox.notice = async () => {
      throw new Error('the inbox store is down');
    };
    const { client, messages } = await withMessages(world);
    const r = await client.callTool({ name: 'notes__send_message', arguments: { to: 'bob', text: 'hi' } });
    expect(r.isError).toBeFalsy();
    expect(world.state.sent).toEqual([{ to: 'bob', text: 'hi' }]);
    await new Promise((r) => setImmediate(r));
    expect(messages).toHaveLength(1);
    expect(world.audit.entries.at(-1)).toMatchObject({
      outcome: 'success',
      actionDetail: { decision: 'notify', noticeUnrecorded: 'the inbox store is down' },
    });
    expect(world.warnings).toEqual([
      expect.objectContaining({
        tool: 'notes__send_message',
        problem: expect.stringMatching(/could not be recorded/),
      }),
    ]);
  });

  it('an unexpected failure (the rate limiter’s store down) is an audited internal error that tells the assistant no internals', async () => {
    world = await makeProxyWorld({
      rateLimiter: {
        consume: async () => {
          throw new Error('connect ECONNREFUSED 10.1.2.3:6379');
        },
      },
    });
    const client = await world.client();
    await client.listTools();
    const r = await refusal(client.callTool({ name: 'notes__search_notes', arguments: { query: 'plan' } }));
    expect(r.error.message).toMatch(/internal error of the governing proxy/);
    expect(r.error.message).not.toMatch(/10\.1\.2\.3|ECONNREFUSED/);
    expect(world.state.calls).toEqual([]);
    expect(world.audit.entries.at(-1)).toMatchObject({
      outcome: 'error',
      actionDetail: { error: 'internal' },
      policyReason: 'connect ECONNREFUSED 10.1.2.3:6379',
    });
  });

  it('approve by elicitation: the policy is asked again after the person answers; blocked meanwhile, the call does not go', async () => {
    let blockedNow = false;
    world = await makeProxyWorld({
      engine: (e) => ({
        ...e,
        name: e.name,
        health: () => e.health(),
        decide: async (request, options) =>
          blockedNow && (request.input as { tool?: string }).tool === 'notes__delete_file'
            ? ok({
                allow: false,
                deny: true,
                reason: 'tool notes__delete_file is blocked by policy',
                constraints: { autonomy: 'block' },
              })
            : e.decide(request, options),
      }),
    });
    const client = await world.client(USERS.alice, {
      elicit: () => {
        blockedNow = true; // an admin blocks the tool while the person reads the question
        return { action: 'accept', content: { approve: true } };
      },
    });
    await client.listTools();
    const r = await refusal(
      client.callTool({ name: 'notes__delete_file', arguments: { path: '/notes/a.md' } }),
    );
    expect(r.refusal?.refusal).toBe('policy_denied');
    expect(r.refusal?.reason).toMatch(/changed while the approval was asked/);
    expect(world.state.calls).toEqual([]);
    expect(world.audit.entries.at(-1)).toMatchObject({
      outcome: 'denied',
      actionDetail: { decision: 'deny', approvalVia: 'elicitation', approverUserId: 'alice' },
    });
  });

  it('block, a tool never listed, and a tool of no upstream are MCP errors with the reason; nothing reaches the upstream', async () => {
    world = await makeProxyWorld();
    const client = await world.client();
    await client.listTools();
    // Blocked: refused with the policy's reason (the user may know their own policy), the
    // upstream named in the audit entry; anything else is unknown.
    const blocked = await refusal(client.callTool({ name: 'notes__wipe_all', arguments: {} }));
    expect(blocked.refusal?.refusal).toBe('policy_denied');
    expect(blocked.error.message).toMatch(
      /tool notes__wipe_all is blocked by policy.*\(for you, as of this session's last tools\/list/,
    );
    // The client's own "MCP error <code>:" prefix, once.
    expect(blocked.error.message.match(/MCP error/g)).toHaveLength(1);
    for (const name of ['notes__nothing', 'mail__send', 'wipe_all', '', 'notes__Wipe_All']) {
      const r = await refusal(client.callTool({ name, arguments: {} }));
      expect(r.refusal?.refusal).toBe('unknown_tool');
      expect(r.error.message).toMatch(/last tools\/list/);
    }
    expect(world.audit.entries[0]?.actionDetail).toMatchObject({
      tool: 'notes__wipe_all',
      upstream: 'notes',
      argumentsDigest: argumentsDigest({}),
    });
    // An unknown name's refusal names its arguments' digest too.
    await refusal(client.callTool({ name: 'notes__nothing', arguments: { path: '/x', n: 1 } }));
    expect(world.audit.entries.at(-1)?.actionDetail).toMatchObject({
      tool: 'notes__nothing',
      argumentsDigest: argumentsDigest({ n: 1, path: '/x' }),
    });
    expect(world.state.calls).toEqual([]);
    expect(world.audit.entries.map((e) => e.outcome)).toEqual([
      'denied',
      'denied',
      'denied',
      'denied',
      'denied',
      'denied',
      'denied',
    ]);
  });

  it('a call before any tools/list is decided against a list taken then', async () => {
    world = await makeProxyWorld();
    const client = await world.client();
    const r = await client.callTool({ name: 'notes__read_file', arguments: { path: '/notes/b.md' } });
    expect(r.content).toEqual([{ type: 'text', text: 'beta plan' }]);
    const w = await refusal(client.callTool({ name: 'notes__wipe_all', arguments: {} }));
    expect(w.refusal?.refusal).toBe('policy_denied');
  });

  it('decides again at call time: a tool blocked after the list is refused', async () => {
    world = await makeProxyWorld();
    const client = await world.client();
    await client.listTools();
    const r = await world.service.create(
      { userId: 'root', tenantId: 'acme', roles: ['enterprise_admin'] },
      {
        scope: 'user',
        scopeId: 'alice',
        domain: 'actions',
        name: 'alice-block',
        version: '1.0.0',
        content: 'actions: {notes__read_file: block}\n',
        changeReason: 'test',
      },
    );
    if (r.isErr()) throw r.error;
    const refused = await refusal(
      client.callTool({ name: 'notes__read_file', arguments: { path: '/notes/a.md' } }),
    );
    expect(refused.refusal?.refusal).toBe('policy_denied');
    expect(refused.refusal?.reason).toMatch(/block/i);
    expect(world.state.calls).toEqual([]);
  });

  it('engine down: list and call are refused (fail closed), nothing forwarded, the refusal audited', async () => {
    let down = false;
    world = await makeProxyWorld({
      engine: (e) => ({
        name: 'flaky',
        health: async () => !down,
        decide: async (req, o) => {
          if (down) {
            return err(new PolicyEngineUnreachableError());
          }
          return e.decide(req, o);
        },
      }),
    });
    const client = await world.client();
    await client.listTools();
    down = true;
    const c = await refusal(
      client.callTool({ name: 'notes__read_file', arguments: { path: '/notes/a.md' } }),
    );
    expect(c.refusal?.refusal).toBe('policy_engine_unreachable');
    await expect(client.listTools()).rejects.toThrow(/decision engine/);
    expect(world.state.calls).toEqual([]);
    expect(world.audit.entries.at(-1)).toMatchObject({
      outcome: 'denied',
      actionDetail: { error: 'policy_engine_unreachable' },
    });
  });

  it('an engine that throws is also refused, never forwarded', async () => {
    world = await makeProxyWorld({
      engine: () => ({
        name: 'broken',
        health: async () => false,
        decide: async () => {
          throw new Error('boom');
        },
      }),
    });
    const client = await world.client();
    const c = await refusal(
      client.callTool({ name: 'notes__read_file', arguments: { path: '/notes/a.md' } }),
    );
    expect(c.error.message).toMatch(/decision engine/);
    expect(world.state.calls).toEqual([]);
  });
});

describe('results are classified and filtered for the assistant’s model', () => {
  it('a result above what the models policy lets the model receive is withheld with the reason', async () => {
    world = await makeProxyWorld({
      models: 'allowed_providers: [acme-ai]\nmax_classification: internal\n',
      config: {
        model: { provider: 'acme-ai', model: 'm1' },
        upstreams: [
          {
            namespace: 'notes',
            transport: 'stdio',
            command: 'unused',
            classification: 'internal',
            tools: { read_file: { classification: 'confidential' } },
          },
        ],
      },
    });
    const client = await world.client();
    const withheld = await client.callTool({ name: 'notes__read_file', arguments: { path: '/notes/a.md' } });
    expect(withheld.isError).toBe(true);
    expect(JSON.stringify(withheld.content)).not.toContain('alpha plan');
    expect(withheld._meta?.['agentgov.dev/withheld']).toMatchObject({
      reason: 'classification_exceeded',
      classification: 'confidential',
    });
    expect(world.audit.entries.at(-1)?.actionDetail.withheld).toMatch(/classification_exceeded/);
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === 'notes__read_file')?._meta?.['agentgov.dev/classification']).toBe(
      'confidential',
    );
    const delivered = await client.callTool({ name: 'notes__search_notes', arguments: { query: 'plan' } });
    expect(delivered.structuredContent).toEqual({ hits: ['/notes/a.md', '/notes/b.md'] });
  });
});

describe('governTools (in-process) and the audit port', () => {
  it('governs an McpServer in-process; a call whose audit entry cannot be written is not delivered', async () => {
    const base = await makeProxyWorld();
    world = base;
    let failing = false;
    const audit = {
      append: async (input: Parameters<typeof base.audit.append>[0]) =>
        failing ? err(new PolicyEngineUnreachableError()) : base.audit.append(input),
    };
    const state = newNotesState({ a: 'secret a' });
    const governed = governTools(notesServer(state), {
      namespace: 'local',
      identity: { tenantId: 'acme', userId: 'alice' },
      engine: base.engine,
      audit,
    });
    try {
      const names = (await governed.listTools()).map((t) => t.name).sort();
      expect(names).toEqual([
        'local__delete_file',
        'local__read_file',
        'local__search_notes',
        'local__send_message',
        'local__wipe_all',
      ]);
      expect((await governed.callTool('local__read_file', { path: 'a' })).content).toEqual([
        { type: 'text', text: 'secret a' },
      ]);
      failing = true;
      const r = await refusal(governed.callTool('local__read_file', { path: 'a' }));
      expect(r.refusal?.refusal).toBe('audit_unavailable');
      expect(JSON.stringify(r.error)).not.toContain('secret a');
    } finally {
      await governed.close();
    }
  });
});

describe('write-ahead: no call reaches an upstream unrecorded', () => {
  /** governTools over `state` with an audit sink that refuses the appends `refuse` names (1-based). */
  const governedWith = async (state: ReturnType<typeof newNotesState>, refuse: (n: number) => boolean) => {
    const base = await makeProxyWorld();
    world = base;
    let n = 0;
    const audit = {
      append: async (input: Parameters<typeof base.audit.append>[0]) =>
        refuse(++n) ? err(new PolicyEngineUnreachableError()) : base.audit.append(input),
    };
    const governed = governTools(notesServer(state), {
      namespace: 'local',
      identity: { tenantId: 'acme', userId: 'alice' },
      engine: base.engine,
      audit,
    });
    await governed.listTools();
    return { base, governed };
  };

  it('with the audit log down nothing is forwarded: the upstream never sees the call', async () => {
    const state = newNotesState({ a: 'secret a' });
    const { governed } = await governedWith(state, () => true);
    try {
      const r = await refusal(governed.callTool('local__read_file', { path: 'a' }));
      expect(r.refusal?.refusal).toBe('audit_unavailable');
      expect(r.refusal?.reason).toMatch(/not forwarded/);
      expect(state.calls).toEqual([]);
    } finally {
      await governed.close();
    }
  });

  it('a log that fails during the call keeps the write-ahead entry; the result is withheld', async () => {
    const state = newNotesState({ a: 'secret a' });
    // the first append (the write-ahead entry) is taken, the second (the outcome) refused
    const { base, governed } = await governedWith(state, (n) => n === 2);
    try {
      const r = await refusal(governed.callTool('local__read_file', { path: 'a' }));
      expect(r.refusal?.refusal).toBe('audit_unavailable');
      expect(JSON.stringify(r.error)).not.toContain('secret a');
      expect(state.calls).toEqual(['read_file a']);
      expect(base.audit.entries).toHaveLength(1);
      expect(base.audit.entries[0]).toMatchObject({
        actionType: 'policy_decision',
        userId: 'alice',
        policyResult: 'allow',
        outcome: 'success',
        actionDetail: { stage: 'forwarding', tool: 'local__read_file', upstream: 'local', domain: 'actions' },
      });
      expect(base.audit.entries[0]?.actionDetail?.argumentsDigest).toBe(argumentsDigest({ path: 'a' }));
    } finally {
      await governed.close();
    }
  });

  it('concurrent in-process calls (no client id) each pair their two entries under a request id of their own', async () => {
    const state = newNotesState({ a: 'A', b: 'B' });
    const { base, governed } = await governedWith(state, () => false);
    try {
      await Promise.all([
        governed.callTool('local__read_file', { path: 'a' }),
        governed.callTool('local__read_file', { path: 'b' }),
      ]);
      const ids = base.audit.entries.map((e) => e.requestId);
      expect(new Set(ids).size).toBe(2);
      for (const id of new Set(ids)) {
        const pair = base.audit.entries.filter((e) => e.requestId === id);
        expect(pair.map((e) => e.actionType).sort()).toEqual(['policy_decision', 'tool_invocation']);
        expect(pair[0]?.actionDetail?.argumentsDigest).toBe(pair[1]?.actionDetail?.argumentsDigest);
      }
    } finally {
      await governed.close();
    }
  });

  it('the write-ahead entry comes before the call, the outcome after, under one request id', async () => {
    const state = newNotesState({ a: 'secret a' });
    const seen: string[] = [];
    const { base, governed } = await governedWith(state, (n) => {
      seen.push(`append ${n} after ${state.calls.length} calls`);
      return false;
    });
    try {
      await governed.callTool('local__read_file', { path: 'a' });
      expect(seen).toEqual(['append 1 after 0 calls', 'append 2 after 1 calls']);
      const [ahead, outcome] = base.audit.entries;
      expect([ahead?.actionType, outcome?.actionType]).toEqual(['policy_decision', 'tool_invocation']);
      expect(ahead?.requestId).toBe(outcome?.requestId);
    } finally {
      await governed.close();
    }
  });
});

describe('conformance: the SDK client sees through the proxy what it sees on the upstream', () => {
  it('same results and tool errors for every allowed tool; same input schemas', async () => {
    world = await makeProxyWorld();
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { InMemoryTransport } = await import('@modelcontextprotocol/sdk/inMemory.js');
    const twin = notesServer(newNotesState());
    const [c, s] = InMemoryTransport.createLinkedPair();
    await twin.connect(s);
    const direct = new Client({ name: 'direct', version: '1' });
    await direct.connect(c);
    const proxied = await world.client();
    const calls: [string, Record<string, unknown>][] = [
      ['read_file', { path: '/notes/a.md' }],
      ['read_file', { path: '/missing' }],
      ['read_file', { path: 5 }],
      ['read_file', {}],
      ['search_notes', { query: 'plan', limit: 2 }],
      ['search_notes', { query: 'plan', limit: 'x' }],
    ];
    for (const [tool, args] of calls) {
      const a = await direct
        .callTool({ name: tool, arguments: args })
        .catch((e: Error) => ({ thrown: e.message }));
      const b = await proxied
        .callTool({ name: `notes__${tool}`, arguments: args })
        .catch((e: Error) => ({ thrown: e.message }));
      expect(b).toEqual(a);
    }
    const directTools = (await direct.listTools()).tools;
    const proxiedTools = (await proxied.listTools()).tools;
    for (const t of directTools.filter((x) => x.name !== 'wipe_all')) {
      const p = proxiedTools.find((x) => x.name === `notes__${t.name}`);
      expect(p?.inputSchema).toEqual(t.inputSchema);
      expect(p?.annotations).toEqual(t.annotations);
      expect(p?.description?.endsWith(t.description ?? '')).toBe(true);
    }
    await direct.close();
  });

  it("the upstream's own JSON-RPC errors: the same message, code and data (-32001 and -32000 included)", async () => {
    const w = await makeProxyWorld({ upstreams: { notes: linked(failingServer) } });
    world = w;
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { InMemoryTransport } = await import('@modelcontextprotocol/sdk/inMemory.js');
    const [c, s] = InMemoryTransport.createLinkedPair();
    await failingServer().connect(s);
    const direct = new Client({ name: 'direct', version: '1' });
    await direct.connect(c);
    const proxied = await w.client();
    try {
      for (const args of FAILURES) {
        const a = await failure(direct.callTool({ name: 'fail', arguments: args }));
        const b = await failure(proxied.callTool({ name: 'notes__fail', arguments: args }));
        expect(b).toEqual(a);
        expect(refusalOf(b)).toBeUndefined();
        if (args.wire) expect(b.message).toBe(`MCP error ${args.code}: ${args.message}`); // one prefix
      }
      // Audited as the upstream's errors, not as the proxy's refusals.
      const errors = w.audit.entries
        .filter((e) => e.actionType === 'tool_invocation')
        .map((e) => e.actionDetail?.error);
      expect(errors).toEqual(FAILURES.map((f) => `upstream ${f.code}`));
    } finally {
      await direct.close();
    }
  });
});
