import { expect } from 'vitest';
import { newId } from '../ids';
import {
  defineConformanceSuite,
  expectRejects,
  STRING_255,
  shuffled,
  UNICODE_SAMPLES,
} from '../testing/conformance';
import { isoAt, makeExchange } from '../testing/fixtures';
import type { ExchangeStore } from './port';
import type { Exchange } from './schema';

const A = 'tenant-a';
const B = 'tenant-b';

function richExchange(): Exchange {
  return makeExchange({
    tenantId: A,
    initiatorAgentId: STRING_255,
    initiatorUserId: UNICODE_SAMPLES[0],
    responderAgentId: 'agent-東京',
    responderUserId: UNICODE_SAMPLES[2],
    exchangeType: 'meeting_scheduling',
    currentRound: 2,
    maxRounds: 2,
    classificationLevel: 'confidential',
    outcome: 'escalated',
    escalationReason: 'round limit reached 🔒',
    dataShared: [
      { source: 'calendar', fields: ['start', 'end', 'タイトル'] },
      { source: 'mail', fields: [] },
    ],
    dataWithheld: [{ reason: 'classification_exceeded', description: 'restricted doc withheld' }],
    policyApplied: STRING_255,
    transcript: [
      {
        round: 1,
        from: 'initiator',
        text: UNICODE_SAMPLES.join(' '),
        meta: { ok: true, n: 1.5, none: null },
      },
      { round: 2, from: 'responder', text: 'Tuesday?', attachments: [] },
    ],
    channel: 'email',
    startedAt: '2025-05-06T07:08:09.010Z',
    endedAt: '2025-05-06T07:18:09.010Z',
  });
}

const cases = {
  'insert/get: every field round-trips (nullables, nested arrays, unicode, 255 chars)': async (
    store: ExchangeStore,
  ) => {
    const rich = richExchange();
    const plain = makeExchange({ tenantId: A });
    expect(plain.endedAt).toBeNull();
    expect(plain.escalationReason).toBeNull();
    await store.insert(rich);
    await store.insert(plain);
    expect(await store.get(A, rich.exchangeId)).toEqual(rich);
    expect(await store.get(A, plain.exchangeId)).toEqual(plain);
    expect(await store.get(A, newId())).toBeUndefined();
  },
  'insert: a duplicate exchangeId throws and keeps the original': async (store: ExchangeStore) => {
    const x = makeExchange({ tenantId: A });
    await store.insert(x);
    await expectRejects(store.insert({ ...x, channel: 'other' }));
    expect(await store.get(A, x.exchangeId)).toEqual(x);
  },
  'update: compare-and-set on currentRound': async (store: ExchangeStore) => {
    const x = makeExchange({ tenantId: A, currentRound: 0 });
    await store.insert(x);
    const r1: Exchange = { ...x, currentRound: 1, transcript: [{ round: 1 }] };
    expect(await store.update(r1, 0)).toBe(true);
    expect(await store.get(A, x.exchangeId)).toEqual(r1);
    // A stale writer that still expects round 0 loses.
    expect(await store.update({ ...x, currentRound: 1, channel: 'stale' }, 0)).toBe(false);
    expect(await store.update({ ...x, currentRound: 5 }, 2)).toBe(false);
    expect(await store.get(A, x.exchangeId)).toEqual(r1);
    const r2: Exchange = { ...r1, currentRound: 2, outcome: 'resolved', endedAt: isoAt(5) };
    expect(await store.update(r2, 1)).toBe(true);
    expect(await store.get(A, x.exchangeId)).toEqual(r2);
  },
  'update: the same round may be written again when it is expected (no round change)': async (
    store: ExchangeStore,
  ) => {
    const x = makeExchange({ tenantId: A, currentRound: 1 });
    await store.insert(x);
    const escalated: Exchange = { ...x, outcome: 'escalated', escalationReason: 'limit' };
    expect(await store.update(escalated, 1)).toBe(true);
    expect(await store.get(A, x.exchangeId)).toEqual(escalated);
  },
  'update: false when absent; nothing is inserted': async (store: ExchangeStore) => {
    const x = makeExchange({ tenantId: A });
    expect(await store.update(x, 0)).toBe(false);
    expect(await store.get(A, x.exchangeId)).toBeUndefined();
  },
  'update: 10 concurrent writers expecting the same round — exactly one wins': async (
    store: ExchangeStore,
  ) => {
    const x = makeExchange({ tenantId: A, currentRound: 0 });
    await store.insert(x);
    const attempts = Array.from(
      { length: 10 },
      (_, i): Exchange => ({
        ...x,
        currentRound: 1,
        escalationReason: `writer-${i}`,
      }),
    );
    const results = await Promise.all(attempts.map((a) => store.update(a, 0)));
    expect(results.filter(Boolean)).toHaveLength(1);
    const winner = attempts[results.indexOf(true)];
    expect(await store.get(A, x.exchangeId)).toEqual(winner);
  },
  'tenant isolation: get, listByConversation and update': async (store: ExchangeStore) => {
    const x = makeExchange({ tenantId: A });
    await store.insert(x);
    expect(await store.get(B, x.exchangeId)).toBeUndefined();
    expect(await store.listByConversation(B, x.conversationId)).toEqual([]);
    expect(await store.update({ ...x, tenantId: B, currentRound: 1 }, 0)).toBe(false);
    expect(await store.get(A, x.exchangeId)).toEqual(x);
  },
  'listByConversation: only that conversation, ordered by startedAt then id': async (
    store: ExchangeStore,
  ) => {
    const conversationId = newId();
    const mine = [0, 1, 1, 1, 2, 3].map((m) =>
      makeExchange({ tenantId: A, conversationId, startedAt: isoAt(m) }),
    );
    for (const x of shuffled(mine)) await store.insert(x);
    await store.insert(makeExchange({ tenantId: A }));
    await store.insert(makeExchange({ tenantId: B, conversationId }));
    const expected = [...mine].sort((a, b) =>
      a.startedAt !== b.startedAt
        ? a.startedAt < b.startedAt
          ? -1
          : 1
        : a.exchangeId < b.exchangeId
          ? -1
          : 1,
    );
    expect(await store.listByConversation(A, conversationId)).toEqual(expected);
    expect(await store.listByConversation(A, newId())).toEqual([]);
  },
  'copy: mutating inputs or returned exchanges does not change the store': async (store: ExchangeStore) => {
    const x = richExchange();
    const snapshot = structuredClone(x);
    await store.insert(x);
    x.transcript.push({ injected: true });
    (x.dataShared[0] as { fields: string[] }).fields.push('injected');
    const got = (await store.get(A, x.exchangeId)) as Exchange;
    expect(got).toEqual(snapshot);
    got.transcript.length = 0;
    const listed = await store.listByConversation(A, x.conversationId);
    expect(listed).toEqual([snapshot]);
    (listed[0] as Exchange).currentRound = 99;
    expect(await store.get(A, x.exchangeId)).toEqual(snapshot);
  },
} satisfies Record<string, (store: ExchangeStore) => Promise<void>>;

export type ExchangeStoreCaseName = keyof typeof cases;
export const describeExchangeStoreConformance = defineConformanceSuite<ExchangeStore, ExchangeStoreCaseName>(
  'ExchangeStore',
  cases,
);
