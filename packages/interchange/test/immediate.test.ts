/**
 * The gate's direct answer to a query answered at once (../src/a2a/immediate) is the SDK's own
 * answer: for arbitrary replies and JSON-RPC ids, the JSON-RPC response `immediateAnswer` builds
 * equals, byte for byte (the reply's fresh messageId aside), the one the SDK's DefaultRequestHandler
 * and JSON-RPC transport give for the same outcome through the governed executor; what it does not
 * take (not plain JSON, an id the SDK refuses, a configuration, a task, another status or method)
 * goes to the SDK.
 */
import {
  DefaultRequestHandler,
  InMemoryTaskStore,
  JsonRpcTransportHandler,
  ServerCallContext,
} from '@a2a-js/sdk/server';
import { CLASSIFICATION_LEVELS, ManualClock, newId } from '@agentgov/core';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildGovernedCard } from '../src/a2a/card';
import { type GovernedOutcome, governedExecutor, type TaskBinding } from '../src/a2a/executor';
import { immediateAnswer, isPlainJson } from '../src/a2a/immediate';
import { EXCHANGE_MEDIA_TYPE, GOVERNANCE_EXTENSION_URI, type WireMessage } from '../src/a2a/wire';
import { generateAgentKeys } from '../src/index';
import { BOB_PEER } from './harness';

type Transport = JsonRpcTransportHandler;
let transport: Transport;
const outcomes = new WeakMap<ServerCallContext, GovernedOutcome>();

beforeAll(async () => {
  const keys = await generateAgentKeys('acme', 'agent-bob', { userId: 'bob' });
  const card = await buildGovernedCard({
    peer: BOB_PEER,
    url: 'http://127.0.0.1:1/',
    signingKey: keys.signingKey,
  });
  const executor = governedExecutor({
    outcomes,
    tasks: new Map<string, TaskBinding>(),
    clock: new ManualClock('2026-01-05T09:00:00.000Z'),
  });
  transport = new JsonRpcTransportHandler(new DefaultRequestHandler(card, new InMemoryTaskStore(), executor));
});

interface Case {
  id: unknown;
  hasId: boolean;
  contextId: string;
  round: number;
  reply: unknown;
  jws: string;
}

/** The SDK's answer to the same request and outcome, as the gate hands it over (../src/a2a/deliver). */
async function viaSdk(c: Case, wire: WireMessage, outcome: GovernedOutcome): Promise<unknown> {
  const params = {
    message: {
      messageId: wire.messageId,
      contextId: wire.contextId,
      role: 'ROLE_USER',
      parts: [{ data: { text: '', items: [] }, mediaType: EXCHANGE_MEDIA_TYPE }],
      metadata: {
        [GOVERNANCE_EXTENSION_URI]: { kind: 'query', exchangeId: outcome.exchangeId, round: c.round },
      },
      extensions: [GOVERNANCE_EXTENSION_URI],
    },
  };
  const context = new ServerCallContext({
    tenant: 'acme',
    requestedVersion: '1.0',
    requestedExtensions: [GOVERNANCE_EXTENSION_URI],
  });
  context.addActivatedExtension(GOVERNANCE_EXTENSION_URI);
  outcomes.set(context, outcome);
  const body = { jsonrpc: '2.0', ...(c.hasId ? { id: c.id } : {}), method: 'SendMessage', params };
  return transport.handle(body as never, context);
}

function inputs(c: Case) {
  const wire: WireMessage = {
    metadata: { envelope: 'a.b.c', kind: 'query' },
    content: {},
    contextId: c.contextId,
    taskId: '',
    messageId: newId(),
    role: 'ROLE_USER',
  };
  const outcome: GovernedOutcome = {
    result: { status: 'answered', reply: { jws: c.jws, message: c.reply as never } },
    owner: 'acme/agent-alice',
    exchangeId: newId(),
    round: c.round,
  };
  return { wire, outcome };
}

/** The response as JSON, the reply's messageId (fresh on each side) replaced. */
const normalized = (response: unknown): string => {
  const r = JSON.parse(JSON.stringify(response)) as { result?: { message?: { messageId?: unknown } } };
  if (r.result?.message) {
    expect(typeof r.result.message.messageId).toBe('string');
    r.result.message.messageId = 'm';
  }
  return JSON.stringify(r);
};

const text = fc.string({ maxLength: 20 });
/** Whether a JSON value holds an own `__proto__` key anywhere (fast-check's jsonValue can make one). */
const hasProtoKey = (v: unknown): boolean =>
  typeof v === 'object' &&
  v !== null &&
  (Object.hasOwn(v, '__proto__') || Object.values(v).some(hasProtoKey));
const item = fc.record({
  source: text,
  field: text,
  classification: fc.constantFrom(...CLASSIFICATION_LEVELS),
  // Plain JSON data: an own `__proto__` key is not (the SDK answers it: the next test).
  value: fc.jsonValue({ maxDepth: 3 }).filter((v) => !hasProtoKey(v)),
});
const plainReply = fc.record(
  {
    text,
    items: fc.array(item, { maxLength: 4 }),
    commitment: fc.record({ action: text, detail: text }, { requiredKeys: ['action'] }),
  },
  { requiredKeys: ['text', 'items'] },
);
const validId = fc.oneof(fc.string({ maxLength: 12 }), fc.integer(), fc.constant(null));
const contextId = fc.string({ minLength: 1, maxLength: 40 });
const caseOf = (reply: fc.Arbitrary<unknown>, id: fc.Arbitrary<unknown>) =>
  fc.record({
    id,
    hasId: fc.boolean(),
    contextId,
    round: fc.integer({ min: 1, max: 5 }),
    reply,
    jws: fc.string({ minLength: 1, maxLength: 30 }),
  });

class WithToJson {
  toJSON() {
    return 'custom';
  }
}

describe('immediateAnswer: the SDK’s answer to a query answered at once', () => {
  it('takes every plain reply with a valid id, and answers exactly what the SDK answers', async () => {
    await fc.assert(
      fc.asyncProperty(caseOf(plainReply, validId), async (c) => {
        const { wire, outcome } = inputs(c);
        const direct = immediateAnswer({
          method: 'SendMessage',
          id: c.hasId ? c.id : undefined,
          rawConfiguration: undefined,
          wire,
          outcome,
        });
        expect(direct).toBeDefined();
        expect(normalized(direct)).toBe(normalized(await viaSdk(c, wire, outcome)));
      }),
      { numRuns: 150 },
    );
  });

  it('leaves to the SDK what is not plain JSON data, and ids the SDK refuses', async () => {
    const odd = fc.constantFrom<unknown>(
      new Date(0),
      undefined,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      new WithToJson(),
      new Map([[1, 2]]),
      10n,
      JSON.parse('{"__proto__": 1}'),
    );
    const oddReply = fc
      .record({
        text,
        items: fc.array(
          item.map((i) => i),
          { maxLength: 2 },
        ),
        value: odd,
      })
      .map(({ text: t, items, value }) => ({
        text: t,
        items: [...items, { source: 's', field: 'f', classification: 'public', value }],
      }));
    await fc.assert(
      fc.asyncProperty(caseOf(oddReply, validId), async (c) => {
        const { wire, outcome } = inputs(c);
        expect(isPlainJson(c.reply)).toBe(false);
        expect(
          immediateAnswer({ method: 'SendMessage', id: c.id, rawConfiguration: undefined, wire, outcome }),
        ).toBeUndefined();
      }),
      { numRuns: 30 },
    );
    const badId = fc.oneof(fc.double({ noInteger: true }), fc.boolean(), fc.constant({}), fc.constant([1]));
    await fc.assert(
      fc.asyncProperty(caseOf(plainReply, badId), async (c) => {
        const { wire, outcome } = inputs(c);
        expect(
          immediateAnswer({ method: 'SendMessage', id: c.id, rawConfiguration: undefined, wire, outcome }),
        ).toBeUndefined();
        // …which the SDK answers with an error, never with the reply.
        const sdk = (await viaSdk({ ...c, hasId: true }, wire, outcome)) as { error?: unknown };
        expect(sdk.error).toBeDefined();
      }),
      { numRuns: 30 },
    );
  });

  it('leaves to the SDK streams, configurations, tasks, other outcomes and a missing context', () => {
    const c: Case = {
      id: 1,
      hasId: true,
      contextId: 'ctx',
      round: 1,
      reply: { text: 'a', items: [] },
      jws: 'x',
    };
    const { wire, outcome } = inputs(c);
    const base = { method: 'SendMessage', id: 1, rawConfiguration: undefined, wire, outcome };
    expect(immediateAnswer(base)).toBeDefined();
    expect(immediateAnswer({ ...base, method: 'SendStreamingMessage' })).toBeUndefined();
    expect(immediateAnswer({ ...base, rawConfiguration: {} })).toBeUndefined();
    expect(immediateAnswer({ ...base, wire: { ...wire, taskId: 't' } })).toBeUndefined();
    expect(immediateAnswer({ ...base, wire: { ...wire, contextId: '' } })).toBeUndefined();
    expect(immediateAnswer({ ...base, outcome: { ...outcome, exchangeId: '' } })).toBeUndefined();
    expect(
      immediateAnswer({ ...base, wire: { ...wire, metadata: { ...wire.metadata, kind: 'collect' } } }),
    ).toBeUndefined();
    for (const result of [
      { status: 'pending', reason: 'waiting for a human' },
      { status: 'declined', reply: outcome.result.status === 'answered' ? outcome.result.reply : undefined },
    ] as GovernedOutcome['result'][])
      expect(immediateAnswer({ ...base, outcome: { ...outcome, result } })).toBeUndefined();
  });
});
