/**
 * The A2A binding with real servers on loopback: alice's and bob's assistants (tenant acme) and
 * dave's (tenant globex), each with its own stores; a governed round trip, a commitment paused in
 * TASK_STATE_INPUT_REQUIRED until bob's human approves, and a hostile client that omits the
 * extension, forges, replays, re-addresses, resizes and reads other callers' tasks.
 */

import { type StreamResponse, TaskState } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { type Logger, newId, systemClock } from '@agentgov/core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  fromWireMessage,
  GOVERNANCE_EXTENSION_URI,
  type GovernedA2AServer,
  toWireMessage,
} from '../src/a2a/index';
import {
  type ExchangeMessage,
  type InterchangeNode,
  recordHumanDecision,
  verifyEnvelope,
} from '../src/index';
import {
  EXT,
  governedHeaders,
  governedSdkClient,
  taskOf as listedTaskOf,
  postJsonRpc,
  type ServedAgents,
  serveAgents,
  signedSendMessage,
  V1,
} from './a2a-harness';
import {
  type AgentName,
  answerWith,
  approve,
  ask,
  audience,
  itemsAt,
  makeWorld,
  sender,
  type World,
} from './harness';

type Name = 'alice' | 'bob' | 'carol' | 'dave';
let w: World;
let served: ServedAgents<Name>;
let servers: Record<Name, GovernedA2AServer>;
let nodes: Record<Name, InterchangeNode>;
const sdkLines: string[] = [];
const logger: Logger = {
  debug: (m, f) => sdkLines.push(`${m} ${JSON.stringify(f)}`),
  info() {},
  warn() {},
  error() {},
};
const consoleDebug = vi.fn();
const recorded: { url: string; init: RequestInit }[] = [];

beforeAll(async () => {
  console.debug = consoleDebug;
  w = await makeWorld({ stores: 'separate' });
  const recordingFetch: typeof fetch = async (url, init) => {
    recorded.push({ url: String(url), init: init ?? {} });
    return fetch(url, init);
  };
  served = await serveAgents(w, ['alice', 'bob', 'carol', 'dave'], {
    node: { answer: answerWith(itemsAt('public', 'restricted')), fetch: recordingFetch },
    server: {
      logger,
      limits: { bodyBytes: 32 * 1024, metadataBytes: 8 * 1024 },
      subscription: { pollMs: 20 },
    },
  });
  ({ servers, nodes } = served);
  // an agent whose "card" is served by someone else: re-addressing by DNS/URL games
  served.urls.set('agent-impostor', servers.carol.url);
});
afterAll(async () => {
  await served?.close();
});

/** A raw JSON-RPC call as a hostile client would make it (A2A 1.0 unless `headers` say otherwise). */
const rpc = (to: AgentName, body: unknown, headers: Record<string, string> = {}) =>
  postJsonRpc(servers[to].url, body, { ...V1, ...headers });
const governed = (from: AgentName, to: AgentName, method: string) => governedHeaders(w, from, to, method);

/** `from`'s signed query to `to` as a SendMessage request (signed with `over.signer`'s key). */
const signedQuery = async (
  from: AgentName,
  to: AgentName,
  message: ExchangeMessage,
  over: { signer?: AgentName } = {},
) =>
  (
    await signedSendMessage({
      signer: w.keyPairs[over.signer ?? from].signingKey,
      from: sender(from),
      to: audience(to),
      message,
      nowMs: Date.now(),
    })
  ).request;

describe('governed A2A round trip', () => {
  it('the AgentCard declares the governance extension as required and is signed', async () => {
    const card = await (await fetch(new URL('.well-known/agent-card.json', servers.bob.url))).json();
    expect(card.capabilities.extensions).toEqual([
      expect.objectContaining({
        uri: GOVERNANCE_EXTENSION_URI,
        required: true,
        params: expect.objectContaining({ tenantId: 'acme', agentId: 'agent-bob' }),
      }),
    ]);
    expect(card.signatures).toHaveLength(1);
  });

  it('alice asks bob over A2A: verified card, filtered both ways, audited on both sides', async () => {
    const r = await nodes.alice.query({
      to: 'agent-bob',
      message: { text: 'status?', items: itemsAt('internal', 'restricted') },
    });
    const got = r._unsafeUnwrap();
    expect(got.status).toBe('answered');
    expect(got.exchange.outcome).toBe('resolved');
    expect(got.reply?.items.map((i) => i.classification)).toEqual(['public']);
    const bobSide = await w.stores.bob.get('acme', got.exchange.exchangeId);
    expect(bobSide?.channel).toBe('a2a');
    expect(
      (bobSide?.transcript[0] as { items: { classification: string }[] } | undefined)?.items.map(
        (i) => i.classification,
      ),
    ).toEqual(['internal']);
    for (const side of ['alice', 'bob'] as const)
      expect(
        w.audits[side].entries.some(
          (e) => e.actionType === 'agent_exchange' && e.actionDetail.exchangeId === got.exchange.exchangeId,
        ),
      ).toBe(true);
  });

  it('a commitment pauses in TASK_STATE_INPUT_REQUIRED until bob’s human approves; the approval is used once', async () => {
    const r = await ask(nodes.alice, 'agent-bob', 'commitment_request', 'Can you own the release?');
    expect(r.status).toBe('pending');
    expect((await nodes.alice.collect(r.exchange.exchangeId))._unsafeUnwrap().status).toBe('pending');
    await approve(nodes.bob, r.exchange.exchangeId, 'bob', 'yes, I own it');
    const done = (await nodes.alice.collect(r.exchange.exchangeId))._unsafeUnwrap();
    expect(done.status).toBe('answered');
    expect(done.reply?.commitment).toEqual({ action: 'commitment_request', detail: 'yes, I own it' });
    expect(done.exchange.outcome).toBe('resolved');
  });

  it('CancelTask after a human approved withdraws the round: the approval is never turned into a reply; an answered task is not cancelable', async () => {
    const r = await ask(nodes.alice, 'agent-bob', 'commitment_request', 'Friday?');
    expect(r.status).toBe('pending');
    const decided = await nodes.bob.resolveApproval({
      exchangeId: r.exchange.exchangeId,
      by: 'bob',
      decision: 'approved',
    });
    // the node's decide makes the reply at once: the round is answered, cancelling is refused
    expect(decided.isOk()).toBe(true);
    const answeredTask = await taskOf('alice', 'bob', r.exchange.exchangeId);
    const answered = await rpc(
      'bob',
      { jsonrpc: '2.0', id: 1, method: 'CancelTask', params: { id: answeredTask } },
      await governed('alice', 'bob', 'CancelTask'),
    );
    expect(answered.body.error).toMatchObject({ code: -32002 });
    expect((await w.stores.bob.get('acme', r.exchange.exchangeId))?.outcome).not.toBe('denied');
    // a decision recorded through the store (the gateway's route) but not yet collected is withdrawn
    const q = await ask(nodes.alice, 'agent-bob', 'commitment_request', 'Monday?');
    await recordHumanDecision(
      { store: w.stores.bob, audit: w.audits.bob, clock: systemClock },
      { tenantId: 'acme', exchangeId: q.exchange.exchangeId, by: 'bob', decision: 'approved' },
    );
    const taskId = await taskOf('alice', 'bob', q.exchange.exchangeId);
    const cancel = await rpc(
      'bob',
      { jsonrpc: '2.0', id: 1, method: 'CancelTask', params: { id: taskId } },
      await governed('alice', 'bob', 'CancelTask'),
    );
    expect(cancel.body.result?.status?.state).toBe('TASK_STATE_CANCELED');
    const collected = await nodes.alice.collect(q.exchange.exchangeId);
    expect(collected._unsafeUnwrapErr().toBody()).toMatchObject({ error: 'policy_denied' });
    const bobSide = (await w.stores.bob.get('acme', q.exchange.exchangeId))!;
    expect(bobSide.outcome).toBe('denied');
    expect(bobSide.transcript.some((t) => t.kind === 'reply')).toBe(false);
  });

  it('SendStreamingMessage is governed like SendMessage: a signed query is answered on the SSE stream with a signed reply; a replay or no envelope is refused', async () => {
    const q = await signedQuery('alice', 'bob', { text: 'stream?', items: itemsAt('internal') });
    q.method = 'SendStreamingMessage';
    const res = await fetch(servers.bob.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...EXT, ...V1 },
      body: JSON.stringify(q),
    });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const events = (await res.text())
      .split('\n\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)));
    expect(events).toHaveLength(1);
    const reply = fromWireMessage(events[0].result.message);
    expect(reply?.metadata.kind).toBe('reply');
    const claims = (
      await verifyEnvelope(reply?.metadata.envelope, w.keys, {
        audience: { tenantId: 'acme', agentId: 'agent-alice' },
        content: reply?.content,
        nowMs: Date.now(),
      })
    )._unsafeUnwrap();
    expect(claims.from.agentId).toBe('agent-bob');
    expect((await rpc('bob', q, { 'a2a-extensions': GOVERNANCE_EXTENSION_URI })).body.error).toMatchObject({
      code: -32042,
      data: { reason: 'replayed' },
    });
    const unsigned = await rpc(
      'bob',
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'SendStreamingMessage',
        params: { message: { messageId: 'm', contextId: 'c', role: 'ROLE_USER', parts: [{ text: 'hi' }] } },
      },
      { 'a2a-extensions': GOVERNANCE_EXTENSION_URI },
    );
    expect(unsigned.body.error).toMatchObject({ code: -32040, data: { reason: 'envelope_missing' } });
  });

  it('the initiator cancels its waiting round through the transport (CancelTask): both records end denied, bob can no longer decide', async () => {
    const r = await ask(nodes.alice, 'agent-bob', 'meeting_scheduling', 'Tue?');
    expect(r.status).toBe('pending');
    const mine = (await nodes.alice.cancel(r.exchange.exchangeId))._unsafeUnwrap();
    expect(mine.outcome).toBe('denied');
    expect(mine.transcript).toContainEqual(
      expect.objectContaining({ kind: 'cancelled', by: 'acme/agent-alice' }),
    );
    expect((await w.stores.bob.get('acme', r.exchange.exchangeId))?.outcome).toBe('denied');
    expect(
      (
        await nodes.bob.resolveApproval({
          exchangeId: r.exchange.exchangeId,
          by: 'bob',
          decision: 'approved',
        })
      )._unsafeUnwrapErr().code,
    ).toBe('NOT_FOUND');
    for (const side of ['alice', 'bob'] as const)
      expect(
        w.audits[side].entries.some(
          (e) => e.actionDetail.exchangeId === r.exchange.exchangeId && e.actionDetail.event === 'cancelled',
        ),
      ).toBe(true);
    // cancelling again changes nothing; an answered exchange cannot be cancelled
    expect((await nodes.alice.cancel(r.exchange.exchangeId))._unsafeUnwrap().outcome).toBe('denied');
    const answered = (
      await nodes.alice.query({ to: 'agent-bob', message: { text: 'status?' }, keepOpen: true })
    )._unsafeUnwrap();
    expect((await nodes.alice.cancel(answered.exchange.exchangeId))._unsafeUnwrapErr().detail).toMatchObject({
      reason: 'already_answered',
    });
    // the in-process network cannot cancel
    const local = await makeWorld({});
    const waiting = await ask(local.nodes.alice, 'agent-bob', 'commitment_request', 'x');
    expect(
      (await local.nodes.alice.cancel(waiting.exchange.exchangeId))._unsafeUnwrapErr().detail,
    ).toMatchObject({
      reason: 'cancel_not_supported',
    });
  });

  it('cross-tenant: alice → dave is blocked before anything is sent; dave → bob is refused by bob', async () => {
    expect(
      (await nodes.alice.query({ to: 'agent-dave', message: { text: 'hi' } }))._unsafeUnwrapErr().code,
    ).toBe('CROSS_ENTERPRISE_BLOCKED');
    const r = await nodes.dave.query({ to: 'agent-bob', message: { text: 'hi' } });
    expect(r._unsafeUnwrapErr().code).toBe('CROSS_ENTERPRISE_BLOCKED');
    const hostile = await rpc(
      'bob',
      await signedQuery('dave', 'bob', { text: 'hi', items: [] }),
      await governed('dave', 'bob', 'SendMessage'),
    );
    expect(hostile.body.error).toMatchObject({
      code: -32042,
      data: { reason: 'CROSS_ENTERPRISE_BLOCKED', error: { error: 'CROSS_ENTERPRISE_BLOCKED' } },
    });
  });

  it('a card not signed by the expected agent is refused before sending; the SDK’s console line goes to our logger', async () => {
    const before = w.audits.carol.entries.length;
    const r = await nodes.alice.query({ to: 'agent-impostor', message: { text: 'hi' } });
    // The card's refusal reaches the caller as a typed error with its reason (it was a 500 before).
    expect(r._unsafeUnwrapErr()).toMatchObject({
      code: 'service_unavailable',
      detail: { reason: 'card_signature_invalid' },
    });
    expect(w.audits.carol.entries.length).toBe(before);
    expect(consoleDebug).not.toHaveBeenCalled();
    expect(sdkLines.some((l) => l.startsWith('a2a-sdk'))).toBe(true);
  });
});

/** A real A2A client (the SDK's, JSON-RPC over HTTP/SSE) that activates the extension and signs a caller token per call. */
const sdkClient = (from: AgentName, to: AgentName) => governedSdkClient(w, servers[to].url, from, to);
const taskOf = (from: AgentName, to: AgentName, exchangeId: string) =>
  listedTaskOf(w, servers[to].url, from, to, exchangeId);

describe('SubscribeToTask with the SDK’s A2A client over SSE', () => {
  it('the owner follows its waiting task: the task, the reply becoming ready, then completed once collected', async () => {
    const r = await ask(nodes.alice, 'agent-bob', 'meeting_scheduling', 'Thu 10:00?');
    expect(r.status).toBe('pending');
    const taskId = await taskOf('alice', 'bob', r.exchange.exchangeId);
    const client = await sdkClient('alice', 'bob');
    const events: StreamResponse[] = [];
    const done = (async () => {
      for await (const e of client.resubscribeTask({ tenant: '', id: taskId })) events.push(e);
    })();
    await vi.waitFor(() => expect(events).toHaveLength(1));
    const first = events[0]?.payload;
    expect(first?.$case === 'task' && first.value.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    await approve(nodes.bob, r.exchange.exchangeId, 'bob');
    await vi.waitFor(() => expect(events).toHaveLength(2));
    const ready = events[1]?.payload;
    expect(ready?.$case).toBe('statusUpdate');
    if (ready?.$case !== 'statusUpdate') return;
    expect(ready.value.taskId).toBe(taskId);
    expect(ready.value.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(ready.value.metadata?.[GOVERNANCE_EXTENSION_URI]).toMatchObject({
      exchangeId: r.exchange.exchangeId,
      state: 'reply_ready',
    });
    const collected = (await nodes.alice.collect(r.exchange.exchangeId))._unsafeUnwrap();
    expect(collected.status).toBe('answered');
    await done;
    const last = events.at(-1)?.payload;
    expect(events).toHaveLength(3);
    expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    // a task in a terminal state cannot be subscribed to
    await expect(
      (async () => {
        for await (const _ of (await sdkClient('alice', 'bob')).resubscribeTask({ tenant: '', id: taskId }))
          break;
      })(),
    ).rejects.toThrow(/terminal/);
  });

  it('another caller cannot subscribe to the task (not found), nor without a caller token', async () => {
    const r = await ask(nodes.alice, 'agent-bob', 'commitment_request', 'sign?');
    const taskId = await taskOf('alice', 'bob', r.exchange.exchangeId);
    const follow = async (client: Awaited<ReturnType<typeof sdkClient>>) => {
      for await (const _ of client.resubscribeTask({ tenant: '', id: taskId })) return 'event';
      return 'ended';
    };
    await expect(follow(await sdkClient('carol', 'bob'))).rejects.toThrow(/not found/i);
    await expect(follow(await sdkClient('dave', 'bob'))).rejects.toThrow(/not found/i);
    const plain = await new ClientFactory().createFromUrl(servers.bob.url);
    await expect(follow(plain)).rejects.toThrow(/extension/i);
    // a cancel ends the owner's subscription with the exchange denied
    const events: StreamResponse[] = [];
    const client = await sdkClient('alice', 'bob');
    const done = (async () => {
      for await (const e of client.resubscribeTask({ tenant: '', id: taskId })) events.push(e);
    })();
    await vi.waitFor(() => expect(events).toHaveLength(1));
    await client.cancelTask({ tenant: '', id: taskId, metadata: undefined });
    await done;
    const last = events.at(-1)?.payload;
    expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(last?.$case === 'statusUpdate' && last.value.metadata?.[GOVERNANCE_EXTENSION_URI]).toMatchObject({
      state: 'denied',
    });
  });
});

describe('hostile client', () => {
  it('a plain A2A client (no extension, no envelope) is refused with a JSON-RPC error naming the reason', async () => {
    const plain = {
      jsonrpc: '2.0',
      id: 7,
      method: 'SendMessage',
      params: {
        message: {
          messageId: 'm',
          contextId: 'c',
          role: 'ROLE_USER',
          parts: [{ text: 'hello, I am a human' }],
        },
      },
    };
    expect((await rpc('bob', plain)).body).toMatchObject({
      id: 7,
      error: { code: -32040, data: { reason: 'extension_not_activated' } },
    });
    const withExt = await rpc('bob', plain, await governed('alice', 'bob', 'SendMessage'));
    expect(withExt.body.error).toMatchObject({ code: -32040, data: { reason: 'envelope_missing' } });
    // SendMessage is authenticated by its envelope: none → refused before anything else
    const noEnvelope = await rpc('bob', plain, { 'a2a-extensions': GOVERNANCE_EXTENSION_URI });
    expect(noEnvelope.body.error).toMatchObject({ code: -32040, data: { reason: 'envelope_missing' } });
    // the read methods need a caller token
    const noCaller = await rpc(
      'bob',
      { jsonrpc: '2.0', id: 8, method: 'ListTasks', params: {} },
      { 'a2a-extensions': GOVERNANCE_EXTENSION_URI },
    );
    expect(noCaller.body.error).toMatchObject({ code: -32041, data: { reason: 'caller_token_missing' } });
  });

  it('forged: an envelope signed by dave claiming alice, and a caller token of another agent', async () => {
    const forged = await signedQuery('alice', 'bob', { text: 'x', items: [] }, { signer: 'dave' });
    const r = await rpc('bob', forged, await governed('alice', 'bob', 'SendMessage'));
    expect(r.body.error).toMatchObject({ code: -32042, data: { reason: 'caller_not_sender' } });
    const asDave = await rpc('bob', forged, await governed('dave', 'bob', 'SendMessage'));
    expect(asDave.body.error.data.reason).toBe('sender_mismatch');
    const wrongAudience = await rpc(
      'bob',
      await signedQuery('alice', 'bob', { text: 'x', items: [] }),
      await governed('alice', 'carol', 'SendMessage'),
    );
    expect(wrongAudience.body.error).toMatchObject({
      code: -32041,
      data: { reason: 'caller_audience_mismatch' },
    });
  });

  it('replayed: the same request, and the same envelope under a fresh caller token', async () => {
    const q = await signedQuery('alice', 'bob', { text: 'once', items: [] });
    const headers = await governed('alice', 'bob', 'SendMessage');
    expect((await rpc('bob', q, headers)).body.result).toBeDefined();
    expect((await rpc('bob', q, headers)).body.error).toMatchObject({
      code: -32041,
      data: { reason: 'caller_token_replayed' },
    });
    expect((await rpc('bob', q, await governed('alice', 'bob', 'SendMessage'))).body.error).toMatchObject({
      code: -32042,
      data: { reason: 'replayed' },
    });
  });

  it('re-addressed: an envelope for bob sent to carol', async () => {
    const q = await signedQuery('alice', 'bob', { text: 'x', items: [] });
    const r = await rpc('carol', q, await governed('alice', 'carol', 'SendMessage'));
    expect(r.body.error).toMatchObject({ code: -32042, data: { reason: 'audience_mismatch' } });
  });

  it('resized: body, metadata and content changes are JSON-RPC errors, never an HTML page', async () => {
    const big = await rpc(
      'bob',
      { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { pad: 'x'.repeat(40_000) } },
      await governed('alice', 'bob', 'SendMessage'),
    );
    expect(big.status).toBe(413);
    expect(big.type).toContain('application/json');
    expect(big.body.error).toMatchObject({ code: -32043, data: { reason: 'body_too_large' } });
    const q = await signedQuery('alice', 'bob', { text: 'x', items: [] });
    const meta = q.params.message.metadata;
    meta.padding = 'y'.repeat(10_000);
    const fat = await rpc('bob', q, await governed('alice', 'bob', 'SendMessage'));
    expect(fat.body.error).toMatchObject({ code: -32043, data: { reason: 'metadata_too_large' } });
    const q2 = await signedQuery('alice', 'bob', { text: 'x', items: [] });
    (q2.params.message.parts[0] as { data: ExchangeMessage }).data.items = itemsAt('restricted');
    expect((await rpc('bob', q2, await governed('alice', 'bob', 'SendMessage'))).body.error.data.reason).toBe(
      'digest_mismatch',
    );
  });

  it('reads other callers’ tasks: GetTask, ListTasks, CancelTask, SubscribeToTask; params.tenant is not trusted', async () => {
    const r = await ask(nodes.alice, 'agent-bob', 'meeting_scheduling', 'meet?');
    expect(r.status).toBe('pending');
    const taskId = await taskOf('alice', 'bob', r.exchange.exchangeId);
    expect(taskId).toBeTruthy();
    expect(
      (
        await rpc(
          'bob',
          { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: taskId } },
          await governed('alice', 'bob', 'GetTask'),
        )
      ).body.result.id,
    ).toBe(taskId);
    for (const method of ['GetTask', 'CancelTask', 'SubscribeToTask']) {
      const other = await rpc(
        'bob',
        { jsonrpc: '2.0', id: 1, method, params: { id: taskId } },
        await governed('carol', 'bob', method),
      );
      expect(other.body.error?.code).toBe(-32001);
    }
    // the owner may cancel its own waiting task
    const cancel = await rpc(
      'bob',
      { jsonrpc: '2.0', id: 1, method: 'CancelTask', params: { id: taskId } },
      await governed('alice', 'bob', 'CancelTask'),
    );
    expect(cancel.body.result?.status?.state ?? cancel.body.error).toBe('TASK_STATE_CANCELED');
    // … which withdraws the round: bob's record ends denied (who cancelled, when), the pending
    // approval can no longer be decided, and alice's collect is refused
    const bobSide = (await w.stores.bob.get('acme', r.exchange.exchangeId))!;
    expect(bobSide.outcome).toBe('denied');
    expect(bobSide.transcript).toContainEqual(
      expect.objectContaining({ kind: 'cancelled', round: 1, by: 'acme/agent-alice' }),
    );
    expect(bobSide.transcript.at(-1)).toMatchObject({
      kind: 'outcome',
      reason: 'cancelled by acme/agent-alice',
    });
    expect(
      w.audits.bob.entries.some(
        (e) => e.actionDetail.exchangeId === r.exchange.exchangeId && e.actionDetail.event === 'cancelled',
      ),
    ).toBe(true);
    const late = await nodes.bob.resolveApproval({
      exchangeId: r.exchange.exchangeId,
      by: 'bob',
      decision: 'approved',
    });
    expect(late._unsafeUnwrapErr().code).toBe('NOT_FOUND');
    const refusedCollect = await nodes.alice.collect(r.exchange.exchangeId);
    expect(refusedCollect._unsafeUnwrapErr().toBody()).toMatchObject({
      error: 'policy_denied',
      detail: { outcome: 'denied' },
    });
    expect((await w.stores.alice.get('acme', r.exchange.exchangeId))?.outcome).toBe('denied');
    expect(
      (await w.stores.bob.get('acme', r.exchange.exchangeId))?.transcript.some((t) => t.kind === 'reply'),
    ).toBe(false);
    const carolList = await rpc(
      'bob',
      { jsonrpc: '2.0', id: 1, method: 'ListTasks', params: {} },
      await governed('carol', 'bob', 'ListTasks'),
    );
    expect(carolList.body.result.tasks ?? []).toEqual([]);
    const daveTenant = await rpc(
      'bob',
      { jsonrpc: '2.0', id: 1, method: 'ListTasks', params: { tenant: 'acme' } },
      await governed('dave', 'bob', 'ListTasks'),
    );
    expect(daveTenant.body.error).toMatchObject({ code: -32042, data: { reason: 'tenant_mismatch' } });
    // a collect on someone else's task is refused before the node is asked
    const stolen = toWireMessage({
      messageId: newId(),
      contextId: 'c',
      taskId,
      role: 'ROLE_USER',
      content: { exchangeId: r.exchange.exchangeId, round: 1 },
      metadata: {
        envelope: (
          (await signedQuery('carol', 'bob', { text: '', items: [] })).params.message.metadata as Record<
            string,
            { envelope: string }
          >
        )[GOVERNANCE_EXTENSION_URI]?.envelope as string,
        kind: 'collect',
      },
    });
    const steal = await rpc(
      'bob',
      { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: stolen } },
      await governed('carol', 'bob', 'SendMessage'),
    );
    expect(steal.body.error).toMatchObject({ code: -32042, data: { reason: 'task_mismatch' } });
  });
});
