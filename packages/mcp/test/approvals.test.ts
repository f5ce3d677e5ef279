import {
  type AuditEntryInput,
  type AuditSink,
  err,
  InMemorySecretStore,
  ok,
  PolicyEngineUnreachableError,
  type Principal,
  type ToolApproval,
} from '@agentgov/core';
import { createGovernance, createMemoryStores } from '@agentgov/gateway';
import { OFFLINE_ISSUER, testOidcConfig } from '@agentgov/gateway/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { mcpRoutes } from '../src/gateway/index';
import { argumentsDigest, canonicalArguments, governTools } from '../src/index';
import { makeProxyWorld, newNotesState, notesServer, type ProxyWorld, refusal, USERS } from './harness';

let world: ProxyWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** The refusal `p` rejects with (an McpError carrying one). */
async function refused(p: Promise<unknown>) {
  const r = (await refusal(p)).refusal;
  expect(r).toBeDefined();
  return r as NonNullable<typeof r>;
}

const DELETE = { name: 'notes__delete_file', arguments: { path: '/notes/a.md' } };

/**
 * A proxy world (`world`) under these actions whose upstream also has `move_file` (a nested
 * argument, `target.path`); the paths the upstream was asked to move to, in order.
 */
async function moveFileWorld(actions: string): Promise<{ w: ProxyWorld; received: string[] }> {
  const received: string[] = [];
  const w = await makeProxyWorld({
    actions,
    extraTools: (server) =>
      server.registerTool(
        'move_file',
        { description: 'Move a file', inputSchema: { target: z.object({ path: z.string() }) } },
        async ({ target }) => {
          received.push(target.path);
          return { content: [{ type: 'text', text: `moved to ${target.path}` }] };
        },
      ),
  });
  world = w;
  return { w, received };
}

/** Alice's client on `w`, accepting every elicitation; `asked` keeps the messages it was shown. */
async function acceptingClient(w: ProxyWorld) {
  const asked: string[] = [];
  const client = await w.client(USERS.alice, {
    elicit: (message) => {
      asked.push(message);
      return { action: 'accept', content: { approve: true } };
    },
  });
  return { client, asked };
}
describe('approve without elicitation: a pending approval decided by a human', () => {
  it('paused, approved once for these arguments, forwarded once, refused on replay', async () => {
    world = await makeProxyWorld();
    const client = await world.client();
    await client.listTools();
    const first = await refused(client.callTool(DELETE));
    expect(first.refusal).toBe('approval_required');
    expect(world.state.calls).toEqual([]);
    const approvalId = first.approvalId as string;
    const pending = await world.inbox.get('acme', approvalId, world.clock.now());
    expect(pending).toMatchObject({
      status: 'pending',
      userId: 'alice',
      policyTool: 'notes__delete_file',
      argumentsDigest: argumentsDigest({ path: '/notes/a.md' }),
    });
    expect(world.audit.entries.at(-1)).toMatchObject({
      outcome: 'pending_approval',
      policyResult: 'require_approval',
      actionDetail: { approvalId, decision: 'approve' },
    });
    // Asking again before the decision answers the same pending approval.
    expect((await refused(client.callTool(DELETE))).approvalId).toBe(approvalId);

    await world.decide(approvalId, { approved: true, by: 'olga' });
    const ok = await client.callTool(DELETE);
    expect(ok.content).toEqual([{ type: 'text', text: 'deleted /notes/a.md' }]);
    expect(world.state.deleted).toEqual(['/notes/a.md']);
    expect(world.audit.entries.at(-1)).toMatchObject({
      outcome: 'success',
      policyResult: 'allow',
      actionDetail: { approverUserId: 'olga', approvalId, approvalVia: 'inbox' },
    });
    expect((await world.inbox.get('acme', approvalId, world.clock.now()))?.status).toBe('consumed');

    // Replay: the approval was single-use.
    const replay = await refused(client.callTool(DELETE));
    expect(replay.refusal).toBe('approval_required');
    expect(replay.approvalId).not.toBe(approvalId);
    expect(world.state.deleted).toEqual(['/notes/a.md']);
  });

  it('arguments changed after approval: the approval does not apply (another digest)', async () => {
    world = await makeProxyWorld();
    const client = await world.client();
    const first = await refused(client.callTool(DELETE));
    await world.decide(first.approvalId, { approved: true, by: 'alice' });
    const changed = await refused(
      client.callTool({ name: 'notes__delete_file', arguments: { path: '/notes/b.md' } }),
    );
    expect(changed.refusal).toBe('approval_required');
    const extraKey = await refused(
      client.callTool({ name: 'notes__delete_file', arguments: { path: '/notes/a.md', force: true } }),
    );
    expect(extraKey.refusal).toBe('approval_required');
    expect(world.state.deleted).toEqual([]);
    // Same arguments in another key order: the same digest, the approval applies.
    const ok = await client.callTool({ name: 'notes__delete_file', arguments: { path: '/notes/a.md' } });
    expect(ok.isError).toBeFalsy();
  });

  it('an approval is bound to its user: another user with the same arguments does not use it', async () => {
    world = await makeProxyWorld();
    const alice = await world.client(USERS.alice);
    const bob = await world.client(USERS.bob);
    const first = await refused(alice.callTool(DELETE));
    await world.decide(first.approvalId, { approved: true, by: 'olga' });
    const byBob = await refused(bob.callTool(DELETE));
    expect(byBob.refusal).toBe('approval_required');
    expect(byBob.approvalId).not.toBe(first.approvalId);
    expect(world.state.deleted).toEqual([]);
    expect((await world.inbox.get('acme', first.approvalId as string, world.clock.now()))?.status).toBe(
      'approved',
    );
  });

  it('an approval expires (injected clock); a rejected one is never used, and the rejection is told for an approval lifetime', async () => {
    world = await makeProxyWorld({ config: { limits: { approvalTtlMs: 60_000 } } });
    const client = await world.client();
    const first = await refused(client.callTool(DELETE));
    await world.decide(first.approvalId, { approved: true, by: 'alice' });
    world.clock.advance(60_001);
    expect((await refused(client.callTool(DELETE))).refusal).toBe('approval_required');
    expect((await world.inbox.get('acme', first.approvalId as string, world.clock.now()))?.status).toBe(
      'expired',
    );
    const second = (await world.inbox.list('acme', world.clock.now(), { status: 'pending' }))[0];
    expect(second).toBeDefined();
    await world.decide(second?.id, { approved: false, by: 'alice', note: 'not that file' });
    // The assistant is told of the rejection (not handed a new approval to ask again at once)…
    const told = await refused(client.callTool(DELETE));
    expect(told.refusal).toBe('policy_denied');
    expect(told.reason).toMatch(/alice rejected this call with these arguments: not that file/);
    expect(told.approvalId).toBe(second?.id);
    expect(await world.inbox.list('acme', world.clock.now(), { status: 'pending' })).toEqual([]);
    // Bound to the user: bob's very same call is not refused by alice's rejection, it asks.
    expect((await refused((await world.client(USERS.bob)).callTool(DELETE))).refusal).toBe(
      'approval_required',
    );
    // …for an approval lifetime; then the same call asks again.
    world.clock.advance(60_001);
    expect((await refused(client.callTool(DELETE))).refusal).toBe('approval_required');
    expect(world.state.deleted).toEqual([]);
    // An expired approval cannot be decided any more.
    expect(await world.decide(first.approvalId, { approved: true, by: 'alice' })).toBeUndefined();
  });
});

/**
 * The governance service's inbox routes over `w`'s inbox (the MCP plugin mounted in a kernel whose
 * caller is the user named by the `x-test-user` header, in `w`'s org directory); `call` answers
 * the status and the JSON body. Close `gov` after.
 */
async function inboxRoutes(w: ProxyWorld) {
  const principal = (userId: string): Principal => ({
    userId,
    email: `${userId}@acme.example`,
    roles: ['user'],
    tenantId: 'acme',
    orgUnit: 'eng',
    team: null,
    via: 'bearer',
  });
  const gov = createGovernance({
    stores: createMemoryStores(),
    directory: w.directory,
    secrets: new InMemorySecretStore(),
    audit: w.audit,
    authenticate: async (request) => {
      const user = request.headers.get('x-test-user');
      return user ? principal(user) : undefined;
    },
    plugins: [
      mcpRoutes({
        governor: w.proxy.governor,
        oidc: testOidcConfig(OFFLINE_ISSUER),
        resource: 'http://gov.test/api/v1/mcp',
        audit: w.audit,
        directory: w.directory,
        clock: w.clock,
      }),
    ],
  });
  await gov.start();
  const call = async (path: string, user: string, init: RequestInit = {}) => {
    const r = await gov.handle(
      new Request(`http://gov.test/api/v1${path}`, {
        ...init,
        headers: { 'x-test-user': user, 'content-type': 'application/json' },
      }),
    );
    return { status: r.status, body: (await r.json()) as Record<string, unknown> };
  };
  return { gov, call };
}

describe('a granted approval is taken only once the call is on the log', () => {
  it('a call the audit log refuses does not spend its approval; the call again uses it, once', async () => {
    let down = false;
    const entries: AuditEntryInput[] = [];
    const sink: AuditSink = {
      append: async (input) => {
        if (down) return err(new PolicyEngineUnreachableError());
        entries.push(input);
        return ok({ id: '0'.repeat(26), timestamp: '', ...input }) as never;
      },
    };
    world = await makeProxyWorld({ sink });
    const client = await world.client();
    await client.listTools();
    const approvalId = (await refused(client.callTool(DELETE))).approvalId as string;
    await world.decide(approvalId, { approved: true, by: 'olga' });
    const status = async () => (await world?.inbox.get('acme', approvalId, world.clock.now()))?.status;

    down = true;
    expect((await refused(client.callTool(DELETE))).refusal).toBe('audit_unavailable');
    expect(world.state.deleted).toEqual([]);
    expect(await status()).toBe('approved');

    down = false;
    expect((await client.callTool(DELETE)).content).toEqual([{ type: 'text', text: 'deleted /notes/a.md' }]);
    expect(world.state.deleted).toEqual(['/notes/a.md']);
    expect(await status()).toBe('consumed');
    const [ahead, outcome] = entries.slice(-2);
    expect(ahead).toMatchObject({
      actionType: 'policy_decision',
      actionDetail: { approvalId, approverUserId: 'olga' },
    });
    expect(outcome).toMatchObject({
      actionType: 'tool_invocation',
      outcome: 'success',
      actionDetail: { approvalId },
    });
    expect((await refused(client.callTool(DELETE))).refusal).toBe('approval_required');
  });

  it('of two granted approvals of the same call, both entries name the one taken (the oldest)', async () => {
    const entries: AuditEntryInput[] = [];
    const sink: AuditSink = {
      append: async (input) => {
        entries.push(input);
        return ok({ id: '0'.repeat(26), timestamp: '', ...input }) as never;
      },
    };
    world = await makeProxyWorld({ sink });
    const client = await world.client();
    await client.listTools();
    const older = (await refused(client.callTool(DELETE))).approvalId as string;
    await world.decide(older, { approved: true, by: 'olga' });
    // A second approval of the very same call (another process's request, say), granted too.
    const first = (await world.inbox.get('acme', older, world.clock.now())) as ToolApproval;
    const newer = await world.inbox.request({ ...first, ttlMs: 60_000 }, world.clock.now());
    expect(newer.id).not.toBe(older);
    await world.decide(newer.id, { approved: true, by: 'pia' });

    await client.callTool(DELETE);
    const [ahead, outcome] = entries.slice(-2);
    expect(ahead).toMatchObject({
      actionType: 'policy_decision',
      actionDetail: { approvalId: older, approverUserId: 'olga' },
    });
    expect(outcome).toMatchObject({ actionType: 'tool_invocation', actionDetail: { approvalId: older } });
    expect((await world.inbox.get('acme', older, world.clock.now()))?.status).toBe('consumed');
    expect((await world.inbox.get('acme', newer.id, world.clock.now()))?.status).toBe('approved');
  });

  it('two calls at once on one approval: one goes upstream, the other is refused', async () => {
    world = await makeProxyWorld();
    const client = await world.client();
    await client.listTools();
    const approvalId = (await refused(client.callTool(DELETE))).approvalId as string;
    await world.decide(approvalId, { approved: true, by: 'olga' });
    const results = await Promise.allSettled([client.callTool(DELETE), client.callTool(DELETE)]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const lost = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(['policy_denied', 'approval_required']).toContain(
      (await refused(Promise.reject(lost.reason))).refusal,
    );
    expect(world.state.deleted).toEqual(['/notes/a.md']);
  });
});

describe('the human deciding a pending approval sees the arguments themselves', () => {
  it('the pending approval of a call holds exactly its canonical arguments; GET /mcp/approvals and the decision answer them', async () => {
    world = await makeProxyWorld();
    const client = await world.client();
    // Keys out of order and non-ASCII: what is kept is the canonical text (sorted keys), the one
    // the digest is of — not the caller's text.
    const args = { path: '/notes/a.md', dryRun: false, why: 'nettoyage — 東京 🚀' };
    const canonical = '{"dryRun":false,"path":"/notes/a.md","why":"nettoyage — 東京 🚀"}';
    expect(canonicalArguments(args)).toBe(canonical);
    const first = await refused(client.callTool({ name: 'notes__delete_file', arguments: args }));
    expect(first.refusal).toBe('approval_required');
    const approvalId = first.approvalId as string;
    const pending = (await world.inbox.get('acme', approvalId, world.clock.now())) as ToolApproval;
    expect(pending).toMatchObject({ status: 'pending', arguments: canonical });
    expect(pending.argumentsDigest).toBe(argumentsDigest(args));

    const { gov, call } = await inboxRoutes(world);
    try {
      const listed = await call('/mcp/approvals?status=pending', 'alice');
      expect(listed.status).toBe(200);
      expect(listed.body.approvals).toEqual([
        expect.objectContaining({
          id: approvalId,
          arguments: canonical,
          argumentsDigest: argumentsDigest(args),
        }),
      ]);
      const decided = await call(`/mcp/approvals/${approvalId}/approve`, 'alice', {
        method: 'POST',
        body: '{}',
      });
      expect(decided.status).toBe(200);
      expect(decided.body).toMatchObject({ id: approvalId, status: 'approved', arguments: canonical });
    } finally {
      await gov.close();
    }
    // What was approved is what runs (the same arguments, once).
    expect((await client.callTool({ name: 'notes__delete_file', arguments: args })).isError).toBeFalsy();
    expect(world.state.deleted).toEqual(['/notes/a.md']);
  });

  it('arguments longer than an elicitation message shows (2000 characters) are never elicited: the call waits in the inbox with all of them', async () => {
    world = await makeProxyWorld();
    const { client, asked } = await acceptingClient(world);
    // A padding key sorted before `path`: cut at 2000 characters, the message would never show "/".
    const padded = (length: number) => {
      const bare = canonicalArguments({ _: '', path: '/' }).length;
      return { _: 'x'.repeat(length - bare), path: '/' };
    };
    const long = padded(2001);
    const canonical = canonicalArguments(long);
    expect(canonical.length).toBe(2001);
    const r = await refused(client.callTool({ name: 'notes__delete_file', arguments: long }));
    expect(r.refusal).toBe('approval_required');
    expect(asked).toEqual([]);
    expect(world.state.calls).toEqual([]);
    const pending = (await world.inbox.get(
      'acme',
      r.approvalId as string,
      world.clock.now(),
    )) as ToolApproval;
    expect(pending).toMatchObject({ status: 'pending', argumentsDigest: argumentsDigest(long) });
    expect(pending.arguments).toBe(canonical);
    expect(pending.arguments?.endsWith('"path":"/"}')).toBe(true);
    expect(world.audit.entries.at(-1)).toMatchObject({
      outcome: 'pending_approval',
      actionDetail: { approvalId: r.approvalId, approvalVia: 'inbox' },
    });

    // At the limit (2000 characters), the whole arguments fit the message: elicited, shown whole.
    const atLimit = padded(2000);
    expect(canonicalArguments(atLimit).length).toBe(2000);
    expect((await client.callTool({ name: 'notes__delete_file', arguments: atLimit })).isError).toBeFalsy();
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain(`Arguments (canonical JSON): ${canonicalArguments(atLimit)}`);
    expect(await world.inbox.list('acme', world.clock.now())).toHaveLength(1);
  });
});

describe('approve with elicitation', () => {
  it('elicitApprovals: false — never asked by elicitation, even of a client that supports it: the call waits in the inbox', async () => {
    world = await makeProxyWorld({ config: { elicitApprovals: false } });
    const { client, asked } = await acceptingClient(world);
    const args = { path: '/notes/a.md' };
    const r = await refused(client.callTool({ name: 'notes__delete_file', arguments: args }));
    expect(r.refusal).toBe('approval_required');
    expect(asked).toEqual([]);
    expect(world.state.calls).toEqual([]);
    expect(await world.inbox.list('acme', world.clock.now())).toMatchObject([
      { status: 'pending', userId: 'alice', argumentsDigest: argumentsDigest(args) },
    ]);
  });

  it('the user accepts: forwarded, the user recorded as approver', async () => {
    world = await makeProxyWorld();
    const { client, asked } = await acceptingClient(world);
    const r = await client.callTool(DELETE);
    expect(r.content).toEqual([{ type: 'text', text: 'deleted /notes/a.md' }]);
    expect(asked[0]).toMatch(/notes__delete_file/);
    expect(asked[0]).toContain('{"path":"/notes/a.md"}');
    expect(world.audit.entries.at(-1)).toMatchObject({
      outcome: 'success',
      actionDetail: { approverUserId: 'alice', approvalVia: 'elicitation' },
    });
    expect(await world.inbox.list('acme', world.clock.now())).toEqual([]);
  });

  it('the user declines (or accepts with approve false): refused, nothing forwarded', async () => {
    world = await makeProxyWorld();
    const answers = [
      { action: 'decline' as const },
      { action: 'accept' as const, content: { approve: false } },
      { action: 'cancel' as const },
    ];
    const client = await world.client(USERS.alice, {
      elicit: () => answers.shift() ?? { action: 'decline' },
    });
    for (let i = 0; i < 3; i++)
      expect((await refused(client.callTool(DELETE))).refusal).toBe('policy_denied');
    expect(world.state.deleted).toEqual([]);
    expect(world.audit.entries.map((e) => e.policyResult)).toEqual([
      'require_approval',
      'require_approval',
      'require_approval',
    ]);
  });
});

describe('in-process: arguments changed while the call waits for its approval', () => {
  it('the upstream gets the arguments that were approved and audited, not the caller’s object changed since', async () => {
    world = await makeProxyWorld();
    const state = newNotesState({ '/notes/a.md': 'a' });
    const governed = governTools(notesServer(state), {
      namespace: 'notes',
      identity: { tenantId: 'acme', userId: 'alice' },
      engine: world.engine,
      audit: world.audit,
    });
    try {
      await governed.listTools();
      const args: Record<string, unknown> = { path: '/notes/a.md' };
      const asked: string[] = [];
      await governed.callTool('notes__delete_file', args, {
        elicit: async (params) => {
          asked.push(params.message);
          args.path = '/etc/passwd'; // the caller still holds the object it passed
          return { action: 'accept', content: { approve: true } };
        },
      });
      expect(asked[0]).toContain('{"path":"/notes/a.md"}');
      expect(state.deleted).toEqual(['/notes/a.md']);
      expect(world.audit.entries.at(-1)).toMatchObject({
        outcome: 'success',
        actionDetail: { argumentsDigest: argumentsDigest({ path: '/notes/a.md' }) },
      });
    } finally {
      await governed.close();
    }
  });

  it('an SDK client linked in memory changes a nested argument while it answers the elicitation: the upstream gets what was approved', async () => {
    // In memory the proxy receives the client's own message object: a shallow copy of the
    // arguments would still share `target` with the caller.
    const { w, received } = await moveFileWorld(
      'default_autonomy: autonomous\nactions:\n  notes__move_file: approve\n',
    );
    const args = { target: { path: '/notes/b.md' } };
    const client = await w.client(USERS.alice, {
      elicit: () => {
        args.target.path = '/etc/passwd';
        return { action: 'accept', content: { approve: true } };
      },
    });
    await client.listTools();
    const r = await client.callTool({ name: 'notes__move_file', arguments: args });
    expect(r.isError).toBeFalsy();
    expect(received).toEqual(['/notes/b.md']);
    expect(w.audit.entries.at(-1)).toMatchObject({
      outcome: 'success',
      actionDetail: { argumentsDigest: argumentsDigest({ target: { path: '/notes/b.md' } }) },
    });
  });

  it('an SDK client linked in memory changes a nested argument while an autonomous call is decided: what goes upstream is what the audit digested', async () => {
    // No approval to wait for: the caller's window is the decision (and anything else the proxy
    // awaits before it forwards). Changed at each turn from the call on, the upstream must still
    // get the arguments whose digest the audit entry holds.
    const { w, received } = await moveFileWorld('default_autonomy: autonomous\n');
    const client = await w.client(USERS.alice);
    await client.listTools();
    for (let turns = 0; turns < 6; turns++) {
      const args = { target: { path: '/notes/b.md' } };
      const pending = client.callTool({ name: 'notes__move_file', arguments: args });
      for (let t = 0; t < turns; t++) await Promise.resolve();
      args.target.path = `/etc/passwd-${turns}`;
      const r = await pending;
      expect(r.isError).toBeFalsy();
      const sent = received.at(-1) as string;
      expect(w.audit.entries.at(-1)).toMatchObject({
        outcome: 'success',
        actionDetail: { argumentsDigest: argumentsDigest({ target: { path: sent } }) },
      });
    }
    // The change reached the proxy in time for some calls, too late for others: both were tried.
    expect(received).toContain('/notes/b.md');
  });
});
