import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { argumentsDigest, governTools } from '../src/index';
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
      actionDetail: { approver: 'olga', approvalId, approvalVia: 'inbox' },
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

  it('an approval expires (injected clock); a rejected one is never used', async () => {
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
    await world.decide(second?.id, { approved: false, by: 'alice' });
    expect((await refused(client.callTool(DELETE))).refusal).toBe('approval_required');
    expect(world.state.deleted).toEqual([]);
    // An expired approval cannot be decided any more.
    expect(await world.decide(first.approvalId, { approved: true, by: 'alice' })).toBeUndefined();
  });
});

describe('approve with elicitation', () => {
  it('the user accepts: forwarded, the user recorded as approver', async () => {
    world = await makeProxyWorld();
    const asked: string[] = [];
    const client = await world.client(USERS.alice, {
      elicit: (message) => {
        asked.push(message);
        return { action: 'accept', content: { approve: true } };
      },
    });
    const r = await client.callTool(DELETE);
    expect(r.content).toEqual([{ type: 'text', text: 'deleted /notes/a.md' }]);
    expect(asked[0]).toMatch(/notes__delete_file/);
    expect(asked[0]).toContain('{"path":"/notes/a.md"}');
    expect(world.audit.entries.at(-1)).toMatchObject({
      outcome: 'success',
      actionDetail: { approver: 'alice', approvalVia: 'elicitation' },
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
