/**
 * The A2A gate fails closed (issue 23, items 2–6 and 9), tried from outside as a hostile peer
 * would: raw JSON-RPC and the `@a2a-js/sdk` client against served agents. Task history holds only
 * what bob's node accepted; every field of the message is covered by the signature or the message
 * is refused; the task the SDK acts on is the one the gate checked; only A2A 1.0 is served; an
 * oversized envelope is `envelope_too_large`; a 413 leaves a keep-alive connection usable.
 */
import http from 'node:http';
import { Message, Role, TaskState } from '@a2a-js/sdk';
import type { ExchangeType } from '@agentgov/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GOVERNANCE_EXTENSION_URI, type GovernedA2AServer, startA2AServer } from '../src/a2a/index';
import type { ClassifiedItem, ExchangeMessage, InterchangeNode } from '../src/index';
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

type Name = 'alice' | 'bob' | 'carol';
let w: World;
let served: ServedAgents<Name>;
let servers: Record<Name, GovernedA2AServer>;
let nodes: Record<Name, InterchangeNode>;

beforeAll(async () => {
  w = await makeWorld({ stores: 'separate' });
  // default limits: body 64 KiB, metadata 20 KiB (the envelope's own limit is 16 KiB)
  served = await serveAgents(w, ['alice', 'bob', 'carol'], {
    node: { answer: answerWith(itemsAt('public')) },
    server: { subscription: { pollMs: 20, maxMs: 200 } },
  });
  ({ servers, nodes } = served);
});
afterAll(async () => {
  await served?.close();
});

const rpc = (to: Name, body: unknown, headers: Record<string, string> = { ...EXT, ...V1 }) =>
  postJsonRpc(servers[to].url, body, headers);
const governed = (from: AgentName, to: AgentName, method: string) => governedHeaders(w, from, to, method);

/** A SendMessage as a (possibly hostile) peer signs it: alice's key, a fresh exchange. */
const signedQuery = (
  message: ExchangeMessage,
  over: { exchangeType?: ExchangeType; method?: string; contextId?: string } = {},
) =>
  signedSendMessage({
    signer: w.keyPairs.alice.signingKey,
    from: sender('alice'),
    to: audience('bob'),
    message,
    nowMs: Date.now(),
    ...over,
  });

const SECRET = 'SALARY-L6-SECRET';
const hostileItems: ClassifiedItem[] = [
  { source: 'calendar', field: 'slots', classification: 'internal', value: 'Tue 10:00' },
  { source: 'hr', field: 'salary', classification: 'restricted', value: SECRET },
];

/** The SDK's own A2A client (JSON-RPC, it sends `A2A-Version: 1.0`), alice's caller token per call. */
const sdkClient = () => governedSdkClient(w, servers.bob.url, 'alice', 'bob');
const taskOf = (exchangeId: string) => listedTaskOf(w, servers.bob.url, 'alice', 'bob', exchangeId);

async function bobExchanges(): Promise<number> {
  return (await w.stores.bob.list('acme', {}, { offset: 0, limit: 1000 })).total;
}

describe('item 2: task history holds only what bob’s node accepted', () => {
  it('a restricted item withheld by bob appears in none of SendMessage, GetTask, ListTasks, SubscribeToTask', async () => {
    const q = await signedQuery(
      { text: 'Can you sign the offer?', items: hostileItems },
      { exchangeType: 'commitment_request' },
    );
    const sent = await rpc('bob', q.request);
    expect(sent.body.result?.task?.status?.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const taskId: string = sent.body.result.task.id;
    // bob withheld it (its ceiling is confidential) …
    const exchangeId = sent.body.result.task.metadata[GOVERNANCE_EXTENSION_URI].exchangeId;
    const record = await w.stores.bob.get('acme', exchangeId);
    expect(record?.dataWithheld).toHaveLength(1);
    // … and the history shows what bob accepted: the text and the internal item only
    const history = sent.body.result.task.history as { parts: { data: ExchangeMessage }[] }[];
    expect(history).toHaveLength(1);
    expect(history[0]?.parts[0]?.data).toEqual({ text: 'Can you sign the offer?', items: [hostileItems[0]] });
    expect(sent.text).not.toContain(SECRET);

    const got = await rpc(
      'bob',
      { jsonrpc: '2.0', id: 2, method: 'GetTask', params: { id: taskId } },
      await governed('alice', 'bob', 'GetTask'),
    );
    expect(got.body.result.id).toBe(taskId);
    expect(got.body.result.history).toHaveLength(1);
    expect(got.text).not.toContain(SECRET);

    const listed = await rpc(
      'bob',
      { jsonrpc: '2.0', id: 3, method: 'ListTasks', params: { historyLength: 10 } },
      await governed('alice', 'bob', 'ListTasks'),
    );
    expect(listed.body.result.tasks.some((t: { id: string }) => t.id === taskId)).toBe(true);
    expect(listed.text).not.toContain(SECRET);

    const res = await fetch(servers.bob.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(await governed('alice', 'bob', 'SubscribeToTask')) },
      body: JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'SubscribeToTask', params: { id: taskId } }),
    });
    const stream = await res.text();
    expect(stream).toContain(taskId);
    expect(stream).toContain('Tue 10:00');
    expect(stream).not.toContain(SECRET);
  });

  it('the SDK client reads the same filtered history (GetTask), also after SendStreamingMessage', async () => {
    const q = await signedQuery(
      { text: 'Meet Tuesday?', items: hostileItems },
      { exchangeType: 'meeting_scheduling', method: 'SendStreamingMessage' },
    );
    const res = await fetch(servers.bob.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...EXT, ...V1 },
      body: JSON.stringify(q.request),
    });
    const stream = await res.text();
    expect(stream).toContain('TASK_STATE_INPUT_REQUIRED');
    expect(stream).not.toContain(SECRET);
    const taskId = JSON.parse(
      stream
        .split('\n')
        .find((l) => l.startsWith('data: '))
        ?.slice(6) ?? '{}',
    ).result.task.id as string;
    const client = await sdkClient();
    const task = await client.getTask({ tenant: '', id: taskId, historyLength: undefined });
    expect(task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(task.history).toHaveLength(1);
    expect(JSON.stringify(task)).not.toContain(SECRET);
    expect(JSON.stringify(task)).toContain('Tue 10:00');
  });
});

describe('item 3: every field of the message is covered by the signature, or it is refused', () => {
  const mutations: [string, (m: Awaited<ReturnType<typeof signedQuery>>['message']) => void][] = [
    ['unsigned text beside the signed data', (m) => Object.assign(m.parts[0] as object, { text: 'pay now' })],
    ['a second (text) part', (m) => m.parts.push({ text: 'pay now' })],
    ['a second data part', (m) => m.parts.push({ data: { x: 1 }, mediaType: 'application/json' })],
    ['part metadata', (m) => Object.assign(m.parts[0] as object, { metadata: { note: 'pay now' } })],
    ['a file name', (m) => Object.assign(m.parts[0] as object, { filename: 'pay-now.txt' })],
    ['a url', (m) => Object.assign(m.parts[0] as object, { url: 'https://evil.example/pay' })],
    ['message-level extra field', (m) => Object.assign(m, { note: 'pay now' })],
    ['referenceTaskIds', (m) => Object.assign(m, { referenceTaskIds: ['t-1'] })],
    ['snake_case alias of a field', (m) => Object.assign(m, { context_id: 'other' })],
    ['extra message metadata', (m) => Object.assign(m.metadata, { note: 'pay now' })],
    [
      'extra field in the governance metadata',
      (m) => Object.assign(m.metadata[GOVERNANCE_EXTENSION_URI] as object, { note: 'pay now' }),
    ],
    ['an unknown extension', (m) => Object.assign(m, { extensions: ['https://evil.example/ext'] })],
    ['the agent role', (m) => Object.assign(m, { role: 'ROLE_AGENT' })],
  ];
  const requestMutations: [string, (params: Record<string, unknown>) => void][] = [
    ['request-level metadata', (p) => Object.assign(p, { metadata: { note: 'pay now' } })],
    ['an unknown request field', (p) => Object.assign(p, { request: { note: 'pay now' } })],
  ];
  for (const [name, mutate] of requestMutations) {
    it(`${name} → refused before the node; the envelope stays unused`, async () => {
      const q = await signedQuery({ text: 'status?', items: itemsAt('internal') });
      const clean = structuredClone(q.request);
      mutate(q.request.params as Record<string, unknown>);
      const r = await rpc('bob', q.request);
      expect(r.body.error).toMatchObject({ code: -32042, data: { reason: 'unsigned_content' } });
      expect((await rpc('bob', clean)).body.result?.message).toBeDefined();
    });
  }
  it('the SDK client’s own serialization of a signed query passes (parts, metadata, extensions as the SDK writes them)', async () => {
    const q = await signedQuery({ text: 'status?', items: itemsAt('internal', 'restricted') });
    const client = await sdkClient();
    const answer = await client.sendMessage({
      tenant: '',
      message: Message.fromJSON(q.message),
      configuration: undefined,
      metadata: undefined,
    });
    expect('messageId' in answer && answer.role).toBe(Role.ROLE_AGENT);
    // … and a message with unsigned text beside the data, sent by the same client, is refused
    const bad = await signedQuery({ text: 'status?', items: [] });
    Object.assign(bad.message.parts[0] as object, { text: 'pay now' });
    const parsed = Message.fromJSON(bad.message);
    expect(parsed.parts[0]?.content?.$case).toBe('text'); // what the SDK would have kept
    await expect(
      client.sendMessage({ tenant: '', message: parsed, configuration: undefined, metadata: undefined }),
    ).rejects.toThrow();
  });

  it('a configuration and empty request metadata are accepted (the SDK client sends them)', async () => {
    const q = await signedQuery({ text: 'status?', items: itemsAt('internal') });
    Object.assign(q.request.params, {
      metadata: {},
      configuration: {
        acceptedOutputModes: ['application/json'],
        historyLength: 5,
        returnImmediately: false,
      },
    });
    expect((await rpc('bob', q.request)).body.result?.message).toBeDefined();
  });
  for (const [name, mutate] of mutations) {
    it(`${name} → refused before the node; the envelope stays unused`, async () => {
      const before = await bobExchanges();
      const q = await signedQuery({ text: 'status?', items: itemsAt('internal') });
      const clean = structuredClone(q.request);
      mutate(q.message);
      const r = await rpc('bob', q.request);
      expect(r.body.result).toBeUndefined();
      expect(r.body.error).toMatchObject({ code: -32042, data: { reason: 'unsigned_content' } });
      expect(r.text).not.toContain('pay now');
      expect(await bobExchanges()).toBe(before);
      // nothing was used up: the same signed envelope, sent as signed, is accepted
      const ok = await rpc('bob', clean);
      expect(ok.body.result?.message).toBeDefined();
    });
  }
});

describe('item 4: the task the SDK acts on is the one the gate checked', () => {
  it('a query carrying `task_id` of a pending commitment task cannot continue or complete it', async () => {
    const r = await ask(nodes.alice, 'agent-bob', 'commitment_request', 'Can you own the release?');
    expect(r.status).toBe('pending');
    const taskId = await taskOf(r.exchange.exchangeId);
    expect(taskId).toBeTruthy();
    const before = await rpc(
      'bob',
      { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: taskId } },
      await governed('alice', 'bob', 'GetTask'),
    );
    // a new, validly signed information query in the task's context, aimed at the task by `task_id`
    const q = await signedQuery({ text: 'status?', items: [] }, { contextId: before.body.result.contextId });
    (q.message as Record<string, unknown>).task_id = taskId;
    const hostile = await rpc('bob', q.request);
    expect(hostile.body.result).toBeUndefined();
    expect(hostile.body.error?.code).toBe(-32042);
    const task = await rpc(
      'bob',
      { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: taskId } },
      await governed('alice', 'bob', 'GetTask'),
    );
    expect(task.body.result.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(task.body.result.history).toHaveLength(1);
    // the real round goes on as before
    await approve(nodes.bob, r.exchange.exchangeId, 'bob', 'yes');
    const done = (await nodes.alice.collect(r.exchange.exchangeId))._unsafeUnwrap();
    expect(done.status).toBe('answered');
    expect(done.reply?.commitment).toEqual({ action: 'commitment_request', detail: 'yes' });
  });
});

describe('item 5: only A2A 1.0 is served', () => {
  it('a method the agent does not offer is JSON-RPC "Method not found" (-32601), with the reason', async () => {
    for (const method of ['FooBar', 'CreateTaskPushNotificationConfig']) {
      const r = await rpc('bob', { jsonrpc: '2.0', id: 7, method, params: {} });
      expect([method, r.body.id, r.body.error?.code, r.body.error?.data?.reason]).toEqual([
        method,
        7,
        -32601,
        'method_not_supported',
      ]);
    }
  });

  it('a governed request without A2A-Version (= 0.3) or with 0.3 is -32009; with 1.0 it is answered', async () => {
    const none = await signedQuery({ text: 'v?', items: [] });
    const r1 = await rpc('bob', none.request, { ...EXT });
    expect(r1.body.error).toMatchObject({ code: -32009 });
    const old = await signedQuery({ text: 'v?', items: [] });
    const r2 = await rpc('bob', old.request, { ...EXT, 'a2a-version': '0.3' });
    expect(r2.body.error).toMatchObject({ code: -32009 });
    const reads = await rpc(
      'bob',
      { jsonrpc: '2.0', id: 1, method: 'ListTasks', params: {} },
      { ...(await governed('alice', 'bob', 'ListTasks')), 'a2a-version': '0.3' },
    );
    expect(reads.body.error).toMatchObject({ code: -32009 });
    // refused before the node: the same envelope is accepted under 1.0
    const r3 = await rpc('bob', none.request);
    expect(r3.body.result?.message).toBeDefined();
    // the repo's own transport sends 1.0
    expect(
      (await nodes.alice.query({ to: 'agent-bob', message: { text: 'hi' } }))._unsafeUnwrap().status,
    ).toBe('answered');
  });
});

describe('item 6: an oversized envelope is envelope_too_large', () => {
  it('a 17 KiB JWS → -32043 envelope_too_large (HTTP 413, JSON)', async () => {
    const q = await signedQuery({ text: 'big', items: [] });
    const meta = q.message.metadata[GOVERNANCE_EXTENSION_URI] as { envelope: string };
    const [h, p, s] = meta.envelope.split('.');
    meta.envelope = `${h}.${p}${'A'.repeat(17 * 1024)}.${s}`;
    const r = await rpc('bob', q.request);
    expect(r.status).toBe(413);
    expect(r.body.error).toMatchObject({ code: -32043, data: { reason: 'envelope_too_large' } });
  });
});

describe('item 9: a 413 leaves a keep-alive connection usable', () => {
  /** One request on the agent's (single) keep-alive connection. */
  function post(
    agent: http.Agent,
    body: string | Buffer,
    headers: Record<string, string> = {},
    chunked = false,
    url = servers.bob.url,
  ) {
    return new Promise<{ status: number; text: string; socket: unknown; connection?: string }>(
      (resolve, reject) => {
        const req = http.request(
          url,
          {
            method: 'POST',
            agent,
            headers: {
              'content-type': 'application/json',
              ...(chunked ? {} : { 'content-length': String(body.length) }),
              ...EXT,
              ...V1,
              ...headers,
            },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () =>
              resolve({
                status: res.statusCode ?? 0,
                text: Buffer.concat(chunks).toString(),
                socket: req.socket,
                ...(res.headers.connection ? { connection: res.headers.connection } : {}),
              }),
            );
            res.on('error', reject);
          },
        );
        req.on('error', reject);
        if (!chunked) return req.end(body);
        // Transfer-Encoding: chunked, 16 KiB at a time (no length declared up front)
        const bytes = Buffer.from(body);
        for (let i = 0; i < bytes.length; i += 16 * 1024) req.write(bytes.subarray(i, i + 16 * 1024));
        req.end();
      },
    );
  }
  const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ListTasks', params: {} });

  for (const [name, size, chunked] of [
    ['a modest body (100 KiB): the connection is kept', 100 * 1024, false],
    ['a modest chunked body (200 KiB): the connection is kept', 200 * 1024, true],
    ['a large body (5 MB): the 413 arrives, the next request still succeeds', 5 * 1024 * 1024, false],
    ['a large chunked body (5 MB): the 413 arrives, the next request still succeeds', 5 * 1024 * 1024, true],
  ] as const) {
    it(name, async () => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      try {
        const big = Buffer.alloc(size, 'x');
        const first = await post(agent, Buffer.from(big), {}, chunked);
        expect(first.status).toBe(413);
        expect(JSON.parse(first.text).error).toMatchObject({
          code: -32043,
          data: { reason: 'body_too_large' },
        });
        const second = await post(agent, list, await governed('alice', 'bob', 'ListTasks'));
        expect(second.status).toBe(200);
        expect(JSON.parse(second.text).result.tasks).toBeDefined();
        if (size <= 1024 * 1024) expect(second.socket).toBe(first.socket);
        const third = await post(agent, list, await governed('alice', 'bob', 'ListTasks'));
        expect(third.status).toBe(200);
      } finally {
        agent.destroy();
      }
    });
  }

  it('a body beyond what is drained: 413 with Connection: close, closed cleanly, the next request opens a new connection', async () => {
    const tight = await startA2AServer({
      node: nodes.bob,
      signingKey: w.keyPairs.bob.signingKey,
      keys: w.keys,
      limits: { bodyBytes: 16 * 1024, drainBytes: 64 * 1024 },
    });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      for (const chunked of [false, true, false, true]) {
        const first = await post(agent, Buffer.alloc(2 * 1024 * 1024, 'x'), {}, chunked, tight.url);
        expect(first.status).toBe(413);
        expect(first.connection).toBe('close');
        expect(JSON.parse(first.text).error).toMatchObject({
          code: -32043,
          data: { reason: 'body_too_large' },
        });
        const second = await post(agent, list, await governed('alice', 'bob', 'ListTasks'), false, tight.url);
        expect(second.status).toBe(200);
        expect(second.socket).not.toBe(first.socket);
        // a body within what is drained keeps the connection
        const modest = await post(agent, Buffer.alloc(32 * 1024, 'x'), {}, chunked, tight.url);
        expect(modest.status).toBe(413);
        expect(modest.connection).not.toBe('close');
        const third = await post(agent, list, await governed('alice', 'bob', 'ListTasks'), false, tight.url);
        expect(third.status).toBe(200);
        expect(third.socket).toBe(modest.socket);
      }
    } finally {
      agent.destroy();
      await tight.close();
    }
  });
});

describe('concurrent requests with the same messageId', () => {
  it('each request gets its own outcome, even when one is held inside the node while the other runs', async () => {
    // bob's node, with `exchange()` held for one call: alice's pending commitment request reads its
    // exchange after the gate has recorded its outcome; carol's answered query (same messageId,
    // chosen by the client) arrives and completes meanwhile.
    let release: () => void = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    let entered: () => void = () => {};
    const inside = new Promise<void>((r) => {
      entered = r;
    });
    let holdNext = true;
    const node = nodes.bob;
    const wrapped = new Proxy(node, {
      get(target, key) {
        if (key === 'exchange') {
          return async (exchangeId: string) => {
            if (holdNext) {
              holdNext = false;
              entered();
              await held;
            }
            return target.exchange(exchangeId);
          };
        }
        const value = Reflect.get(target, key, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const bob = await startA2AServer({ node: wrapped, signingKey: w.keyPairs.bob.signingKey, keys: w.keys });
    try {
      const fromAlice = await signedQuery(
        { text: 'Can you sign the offer?', items: [] },
        { exchangeType: 'commitment_request' },
      );
      const fromCarol = await signedSendMessage({
        signer: w.keyPairs.carol.signingKey,
        from: sender('carol'),
        to: audience('bob'),
        message: { text: 'When are you free?', items: [] },
        nowMs: Date.now(),
      });
      const messageId = fromAlice.message.messageId;
      const carolRequest = {
        ...fromCarol.request,
        params: { message: { ...fromCarol.message, messageId } },
      };
      const alicePending = postJsonRpc(bob.url, fromAlice.request, { ...EXT, ...V1 });
      await inside;
      const carolAnswered = await postJsonRpc(bob.url, carolRequest, { ...EXT, ...V1 });
      release();
      const aliceAnswered = await alicePending;
      // carol's answered query is a reply message for carol's exchange …
      expect(carolAnswered.body.error).toBeUndefined();
      expect(carolAnswered.body.result.message?.metadata?.[GOVERNANCE_EXTENSION_URI]?.exchangeId).toBe(
        fromCarol.exchangeId,
      );
      // … and alice's commitment request is her own task, waiting for a human
      expect(aliceAnswered.body.error).toBeUndefined();
      expect(aliceAnswered.body.result.task?.status?.state).toBe('TASK_STATE_INPUT_REQUIRED');
      expect(aliceAnswered.body.result.task.metadata[GOVERNANCE_EXTENSION_URI].exchangeId).toBe(
        fromAlice.exchangeId,
      );
    } finally {
      release();
      await bob.close();
    }
  });
});
