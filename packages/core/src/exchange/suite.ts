import { expect } from 'vitest';
import { newId } from '../ids';
import {
  defineConformanceSuite,
  duplicateKeyCase,
  type RecordAccess,
  roundTripCase,
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

const exchanges: RecordAccess<ExchangeStore, Exchange> = {
  write: (store, x) => store.insert(x),
  read: (store, x) => store.get(x.tenantId, x.exchangeId),
};

const cases = {
  'insert/get: every field round-trips (nullables, nested arrays, unicode, 255 chars)': roundTripCase(
    exchanges,
    () => {
      const plain = makeExchange({ tenantId: A });
      expect(plain.endedAt).toBeNull();
      expect(plain.escalationReason).toBeNull();
      return [richExchange(), plain];
    },
    () => makeExchange({ tenantId: A }),
  ),
  'insert: a duplicate exchangeId throws and keeps the original': duplicateKeyCase(
    exchanges,
    () => makeExchange({ tenantId: A }),
    (x) => ({ ...x, channel: 'other' }),
  ),
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
  'update: with an expected transcript length, only the writer that saw the current transcript wins': async (
    store: ExchangeStore,
  ) => {
    const x = makeExchange({ tenantId: A, currentRound: 1, transcript: [{ kind: 'message' }] });
    await store.insert(x);
    const approve: Exchange = {
      ...x,
      transcript: [...x.transcript, { kind: 'decision', decision: 'approved' }],
    };
    const reject: Exchange = {
      ...x,
      transcript: [...x.transcript, { kind: 'decision', decision: 'rejected' }],
    };
    const results = await Promise.all([store.update(approve, 1, 1), store.update(reject, 1, 1)]);
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await store.get(A, x.exchangeId)).toEqual(results[0] ? approve : reject);
    expect(await store.update({ ...approve, channel: 'late' }, 1, 1)).toBe(false);
    expect(await store.update({ ...approve, channel: 'next' }, 1, 2)).toBe(true);
    expect((await store.get(A, x.exchangeId))?.channel).toBe('next');
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
  'list: newest first, filtered by participant and outcome, paged with a total': async (
    store: ExchangeStore,
  ) => {
    const rows = [
      makeExchange({ tenantId: A, initiatorUserId: 'alice', responderUserId: 'bob', startedAt: isoAt(1) }),
      makeExchange({ tenantId: A, initiatorUserId: 'carol', responderUserId: 'alice', startedAt: isoAt(3) }),
      makeExchange({
        tenantId: A,
        initiatorUserId: 'bob',
        responderUserId: 'carol',
        startedAt: isoAt(2),
        outcome: 'escalated',
      }),
      makeExchange({ tenantId: A, initiatorUserId: 'dave', responderUserId: 'erin', startedAt: isoAt(3) }),
      makeExchange({ tenantId: B, initiatorUserId: 'alice', responderUserId: 'bob', startedAt: isoAt(9) }),
    ];
    for (const x of shuffled(rows)) await store.insert(x);
    const [a1, a3, b2, d3] = rows as [Exchange, Exchange, Exchange, Exchange];
    const newestFirst = [a3, d3].sort((x, y) => (x.exchangeId < y.exchangeId ? 1 : -1));
    const all = await store.list(A, {}, { offset: 0, limit: 10 });
    expect(all).toEqual({ exchanges: [...newestFirst, b2, a1], total: 4 });
    expect(await store.list(A, { userId: 'alice' }, { offset: 0, limit: 10 })).toEqual({
      exchanges: [a3, a1],
      total: 2,
    });
    expect(await store.list(A, { userId: 'bob', outcome: 'escalated' }, { offset: 0, limit: 10 })).toEqual({
      exchanges: [b2],
      total: 1,
    });
    expect(await store.list(A, {}, { offset: 1, limit: 2 })).toEqual({
      exchanges: [newestFirst[1], b2],
      total: 4,
    });
    expect(await store.list(A, { userId: 'nobody' }, { offset: 0, limit: 10 })).toEqual({
      exchanges: [],
      total: 0,
    });
    // a read scope: either human among the users (an org's), with the other filters
    expect(await store.list(A, { userIds: ['bob', 'erin'] }, { offset: 0, limit: 10 })).toEqual({
      exchanges: [d3, b2, a1],
      total: 3,
    });
    expect(
      await store.list(
        A,
        { userIds: ['carol'], userId: 'alice', outcome: 'in_progress' },
        { offset: 0, limit: 10 },
      ),
    ).toEqual({ exchanges: [a3], total: 1 });
    expect(await store.list(A, { userIds: [] }, { offset: 0, limit: 10 })).toEqual({
      exchanges: [],
      total: 0,
    });
    expect((await store.list(B, {}, { offset: 0, limit: 10 })).total).toBe(1);
    expect(await store.list('tenant-none', {}, { offset: 0, limit: 10 })).toEqual({
      exchanges: [],
      total: 0,
    });
  },
  'countTranscriptEntries: entries matching every key, per tenant': async (store: ExchangeStore) => {
    await store.insert(
      makeExchange({
        tenantId: A,
        transcript: [
          { kind: 'reply', automatic: true, round: 1 },
          { kind: 'reply', automatic: false, round: 2 },
          { kind: 'message', automatic: true },
        ],
      }),
    );
    await store.insert(
      makeExchange({ tenantId: A, transcript: [{ kind: 'reply', automatic: true, text: 'x' }] }),
    );
    await store.insert(makeExchange({ tenantId: B, transcript: [{ kind: 'reply', automatic: true }] }));
    expect(await store.countTranscriptEntries(A, { kind: 'reply', automatic: true })).toBe(2);
    expect(await store.countTranscriptEntries(A, { kind: 'reply' })).toBe(3);
    expect(await store.countTranscriptEntries(A, { round: 2 })).toBe(1);
    expect(await store.countTranscriptEntries(A, { automatic: 'true' })).toBe(0);
    expect(await store.countTranscriptEntries(B, { kind: 'reply', automatic: true })).toBe(1);
    expect(await store.countTranscriptEntries('tenant-none', { kind: 'reply' })).toBe(0);
  },
} satisfies Record<string, (store: ExchangeStore) => Promise<void>>;

export type ExchangeStoreCaseName = keyof typeof cases;
export const describeExchangeStoreConformance = defineConformanceSuite<ExchangeStore, ExchangeStoreCaseName>(
  'ExchangeStore',
  cases,
);
