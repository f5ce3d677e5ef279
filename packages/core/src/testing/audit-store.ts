import { expect } from 'vitest';
import type { AuditCheckpoint, AuditFilter, AuditRecord, AuditStore, ChainHead } from '../ports/stores';
import type { AuditEntry } from '../resources';
import { defineConformanceSuite, expectRejects, STRING_255, UNICODE_SAMPLES } from './conformance';
import {
  appendEntries,
  GENESIS_HASH,
  isoAt,
  linkRecords,
  makeAuditEntry,
  makeCheckpoint,
  sha256Hex,
} from './fixtures';

const A = 'tenant-a';
const B = 'tenant-b';

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

/** Checks that records form a gap-free chain 1..n from the genesis hash. */
function expectLinkedChain(records: readonly AuditRecord[]): void {
  let prev = GENESIS_HASH;
  records.forEach((r, i) => {
    expect(r.seq).toBe(i + 1);
    expect(r.prevHash).toBe(prev);
    prev = r.hash;
  });
}

/** A reference implementation of the filter, independent of any store. */
function matches(e: AuditEntry, f: AuditFilter): boolean {
  const t = Date.parse(e.timestamp);
  return (
    (f.userId === undefined || e.userId === f.userId) &&
    (f.userIds === undefined || f.userIds.includes(e.userId)) &&
    (f.actionType === undefined || e.actionType === f.actionType) &&
    (f.policyResult === undefined || e.policyResult === f.policyResult) &&
    (f.requestId === undefined || e.requestId === f.requestId) &&
    (f.from === undefined || t >= Date.parse(f.from)) &&
    (f.to === undefined || t <= Date.parse(f.to))
  );
}

/** 12 entries of tenant A varying every filtered field, at minutes 0..11, plus 3 of tenant B. */
async function seedQueryData(store: AuditStore): Promise<AuditRecord[]> {
  const users = ['alice', 'bob', 'carol'] as const;
  const actions = ['tool_invocation', 'data_access', 'model_call', 'policy_decision'] as const;
  const results = ['allow', 'deny', 'require_approval'] as const;
  const entries = Array.from({ length: 12 }, (_, i) =>
    makeAuditEntry({
      tenantId: A,
      userId: users[i % 3],
      actionType: actions[i % 4],
      policyResult: results[i % 3 === 0 ? 0 : (i % 2) + 1],
      requestId: `req-${i % 5}`,
      timestamp: isoAt(i),
    }),
  );
  const records = await appendEntries(store, A, entries);
  // Tenant B shares users, actions and request ids: none of these may leak into A's results.
  await appendEntries(
    store,
    B,
    [0, 1, 2].map((i) =>
      makeAuditEntry({
        tenantId: B,
        userId: 'alice',
        actionType: 'tool_invocation',
        requestId: `req-${i}`,
        timestamp: isoAt(i),
      }),
    ),
  );
  return records;
}

async function expectQuery(
  store: AuditStore,
  all: readonly AuditRecord[],
  filter: AuditFilter,
): Promise<void> {
  const expected = all.filter((r) => matches(r.entry, filter));
  const { records, total } = await store.query(A, filter, { offset: 0, limit: 1000 });
  expect(records).toEqual(expected);
  expect(total).toBe(expected.length);
  const scanned = await collect(store.scan(A, { filter, batchSize: 2 }));
  expect(scanned).toEqual(expected);
}

function richEntry(): AuditEntry {
  return makeAuditEntry({
    tenantId: A,
    userId: STRING_255,
    timestamp: '2025-03-04T05:06:07.089Z',
    actionType: 'agent_exchange',
    actionDetail: {
      exchangeId: '6f1c1f6e-0b5a-4d0e-9c39-1f1b7a3c2d11',
      exchangeType: 'information_query',
      initiatorAgentId: 'agent-ünï',
      currentRound: 2,
      maxRounds: 3,
      escalated: false,
      ratio: 0.25,
      nothing: null,
      dataShared: [{ source: 'mail', fields: ['subject', '件名'] }],
      nested: { deep: { list: [1, 'two', { three: true }] } },
      unicode: [...UNICODE_SAMPLES],
    },
    dataAccessed: [
      { source: 'drive:doc-1', classification: 'confidential', purpose: 'answer a query 🚀' },
      { source: 'mail:msg-2', classification: 'public', purpose: '' },
    ],
    modelUsed: 'model-x-2025',
    modelTokens: { input: 1234, output: 0 },
    dataClassification: 'restricted',
    policyApplied: STRING_255,
    policyResult: 'require_approval',
    policyReason: UNICODE_SAMPLES.join(' | '),
    outcome: 'pending_approval',
    requestId: STRING_255,
  });
}

const cases = {
  'append: a single record round-trips every field; get returns it': async (store: AuditStore) => {
    const entry = richEntry();
    const minimal = makeAuditEntry({ tenantId: A, modelUsed: null, modelTokens: null, actionDetail: {} });
    const commitments = { userId: sha256Hex('c1'), 'actionDetail.initiatorAgentId': sha256Hex('c2') };
    const [rec1] = linkRecords(undefined, [entry], () => commitments);
    const out = await store.append(A, () => [rec1 as AuditRecord]);
    expect(out).toEqual([rec1]);
    expect(await store.get(A, entry.id)).toEqual(rec1);
    const [rec2] = await appendEntries(store, A, [minimal], () => ({}));
    expect(await store.get(A, minimal.id)).toEqual(rec2);
    expect(rec2?.commitments).toEqual({});
  },
  'append: a batch is stored in order and returned': async (store: AuditStore) => {
    const entries = [0, 1, 2, 3, 4].map((i) => makeAuditEntry({ tenantId: A, timestamp: isoAt(i) }));
    const out = await appendEntries(store, A, entries);
    expect(out.map((r) => r.entry)).toEqual(entries);
    expectLinkedChain(out);
    const more = await appendEntries(store, A, [makeAuditEntry({ tenantId: A })]);
    expect(more[0]?.seq).toBe(6);
    expect(more[0]?.prevHash).toBe(out[4]?.hash);
    const { records } = await store.query(A, {}, { offset: 0, limit: 100 });
    expect(records).toEqual([...out, ...more]);
  },
  'append: build receives the current head (undefined when empty)': async (store: AuditStore) => {
    const seen: (ChainHead | undefined)[] = [];
    const build = (head: ChainHead | undefined) => {
      seen.push(head);
      return linkRecords(head, [makeAuditEntry({ tenantId: A }), makeAuditEntry({ tenantId: A })]);
    };
    const first = await store.append(A, build);
    await store.append(A, build);
    expect(seen[0]).toBeUndefined();
    expect(seen[1]).toEqual({ seq: 2, hash: first[1]?.hash });
  },
  'head: undefined when empty, then the last record': async (store: AuditStore) => {
    expect(await store.head(A)).toBeUndefined();
    const out = await appendEntries(store, A, [
      makeAuditEntry({ tenantId: A }),
      makeAuditEntry({ tenantId: A }),
    ]);
    expect(await store.head(A)).toEqual({ seq: 2, hash: out[1]?.hash });
    expect(await store.head(B)).toBeUndefined();
  },
  'get: unknown id and another tenant’s id are undefined': async (store: AuditStore) => {
    const [rec] = await appendEntries(store, A, [makeAuditEntry({ tenantId: A })]);
    expect(await store.get(A, '01ARZ3NDEKTSV4RRFFQ69G5FAV')).toBeUndefined();
    expect(await store.get(B, rec?.entry.id ?? '')).toBeUndefined();
  },
  'append: 50 concurrent appends to one tenant all resolve with seq 1..50, linked': async (
    store: AuditStore,
  ) => {
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        store.append(A, async (head) => {
          await new Promise((r) => setTimeout(r, i % 3)); // let the others pile up
          return linkRecords(head, [makeAuditEntry({ tenantId: A, requestId: `req-${i}` })]);
        }),
      ),
    );
    expect(results.every((r) => r.length === 1)).toBe(true);
    expect(results.map((r) => r[0]?.seq).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual(
      Array.from({ length: 50 }, (_, i) => i + 1),
    );
    const { records, total } = await store.query(A, {}, { offset: 0, limit: 100 });
    expect(total).toBe(50);
    expectLinkedChain(records);
    expect(await store.head(A)).toEqual({ seq: 50, hash: records[49]?.hash });
  },
  'append: interleaved appends of two tenants keep two independent chains': async (store: AuditStore) => {
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => {
        const t = i % 2 === 0 ? A : B;
        return store.append(t, (head) => linkRecords(head, [makeAuditEntry({ tenantId: t })]));
      }),
    );
    for (const t of [A, B]) {
      const { records, total } = await store.query(t, {}, { offset: 0, limit: 100 });
      expect(total).toBe(10);
      expectLinkedChain(records);
      expect(records.every((r) => r.entry.tenantId === t)).toBe(true);
    }
  },
  'append: appends of different tenants do not wait for each other': async (store: AuditStore) => {
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const slow = store.append(A, async (head) => {
      await gate;
      return linkRecords(head, [makeAuditEntry({ tenantId: A })]);
    });
    try {
      const other = store.append(B, (head) => linkRecords(head, [makeAuditEntry({ tenantId: B })]));
      const winner = await Promise.race([
        other.then(() => 'other tenant appended'),
        new Promise((r) => setTimeout(() => r('blocked by the other tenant'), 5_000)),
      ]);
      expect(winner).toBe('other tenant appended');
    } finally {
      release();
    }
    await slow;
    expect(await store.count(A)).toBe(1);
    expect(await store.count(B)).toBe(1);
  },
  'append: a build that throws writes nothing and the store stays usable': async (store: AuditStore) => {
    await appendEntries(store, A, [makeAuditEntry({ tenantId: A })]);
    await expectRejects(
      store.append(A, () => {
        throw new Error('build failed');
      }),
    );
    await expectRejects(store.append(A, async () => Promise.reject(new Error('async build failed'))));
    expect(await store.count(A)).toBe(1);
    const next = await appendEntries(store, A, [makeAuditEntry({ tenantId: A })]);
    expect(next[0]?.seq).toBe(2);
  },
  'append: a batch that does not link to the head rejects and writes nothing': async (store: AuditStore) => {
    const [first] = await appendEntries(store, A, [makeAuditEntry({ tenantId: A })]);
    const head = { seq: 1, hash: first?.hash ?? '' };
    const bad: Record<string, (h: ChainHead) => AuditRecord[]> = {
      'seq gap': (h) => linkRecords({ seq: h.seq + 1, hash: h.hash }, [makeAuditEntry({ tenantId: A })]),
      'seq repeated': (h) => linkRecords({ seq: h.seq - 1, hash: h.hash }, [makeAuditEntry({ tenantId: A })]),
      'wrong prevHash': (h) =>
        linkRecords({ seq: h.seq, hash: 'f'.repeat(64) }, [makeAuditEntry({ tenantId: A })]),
      'restarts from genesis': () => linkRecords(undefined, [makeAuditEntry({ tenantId: A })]),
      'second record unlinked': (h) => {
        const recs = linkRecords(h, [makeAuditEntry({ tenantId: A }), makeAuditEntry({ tenantId: A })]);
        return [recs[0] as AuditRecord, { ...(recs[1] as AuditRecord), prevHash: 'e'.repeat(64) }];
      },
      'second record out of sequence': (h) => {
        const recs = linkRecords(h, [makeAuditEntry({ tenantId: A }), makeAuditEntry({ tenantId: A })]);
        return [recs[0] as AuditRecord, { ...(recs[1] as AuditRecord), seq: h.seq + 3 }];
      },
    };
    for (const [what, build] of Object.entries(bad)) {
      await expectRejects(store.append(A, (h) => build(h ?? { seq: 0, hash: GENESIS_HASH })));
      expect(await store.count(A), what).toBe(1);
      expect(await store.head(A), what).toEqual(head);
    }
    // A first record of an empty chain must start at seq 1 from the genesis hash.
    await expectRejects(
      store.append(B, () => linkRecords({ seq: 1, hash: GENESIS_HASH }, [makeAuditEntry({ tenantId: B })])),
    );
    await expectRejects(
      store.append(B, () => linkRecords({ seq: 0, hash: 'a'.repeat(64) }, [makeAuditEntry({ tenantId: B })])),
    );
    expect(await store.count(B)).toBe(0);
  },
  'append: an already aborted signal rejects and writes nothing': async (store: AuditStore) => {
    const controller = new AbortController();
    controller.abort(new Error('caller gave up'));
    await expectRejects(
      store.append(A, (head) => linkRecords(head, [makeAuditEntry({ tenantId: A })]), {
        signal: controller.signal,
      }),
    );
    expect(await store.count(A)).toBe(0);
    expect(await store.head(A)).toBeUndefined();
    await appendEntries(store, A, [makeAuditEntry({ tenantId: A })]);
    expect(await store.count(A)).toBe(1);
  },
  'append: returned and stored records are copies': async (store: AuditStore) => {
    const entry = makeAuditEntry({ tenantId: A, actionDetail: { tool: 'tracker_update' } });
    const built = linkRecords(undefined, [entry]);
    const snapshot = structuredClone(built[0]);
    const out = await store.append(A, () => built);
    (built[0] as AuditRecord).entry.userId = 'mallory';
    (built[0] as AuditRecord).entry.actionDetail.tool = 'changed';
    (out[0] as AuditRecord).entry.policyReason = 'changed';
    (out[0] as AuditRecord).commitments.extra = 'x';
    const got = await store.get(A, entry.id);
    expect(got).toEqual(snapshot);
    (got as AuditRecord).entry.userId = 'mallory';
    expect(await store.get(A, entry.id)).toEqual(snapshot);
  },
  'query: no filter returns the tenant’s records in seq order with the total': async (store: AuditStore) => {
    const all = await seedQueryData(store);
    await expectQuery(store, all, {});
    expect((await store.query(B, {}, { offset: 0, limit: 100 })).total).toBe(3);
    expect(await store.query('tenant-none', {}, { offset: 0, limit: 100 })).toEqual({
      records: [],
      total: 0,
    });
  },
  'query: each filter field alone': async (store: AuditStore) => {
    const all = await seedQueryData(store);
    const filters: AuditFilter[] = [
      { userId: 'alice' },
      { userId: 'nobody' },
      { userIds: ['alice', 'carol'] },
      { userIds: ['bob'] },
      { actionType: 'data_access' },
      { actionType: 'policy_change' },
      { policyResult: 'deny' },
      { policyResult: 'require_approval' },
      { requestId: 'req-3' },
      { from: isoAt(7) },
      { to: isoAt(4) },
      { from: isoAt(3, 1) },
      { to: isoAt(3, -1) },
    ];
    for (const f of filters) await expectQuery(store, all, f);
  },
  'query: from/to bounds are inclusive': async (store: AuditStore) => {
    const all = await seedQueryData(store);
    const { records } = await store.query(A, { from: isoAt(2), to: isoAt(5) }, { offset: 0, limit: 100 });
    expect(records.map((r) => r.entry.timestamp)).toEqual([isoAt(2), isoAt(3), isoAt(4), isoAt(5)]);
    const one = await store.query(A, { from: isoAt(6), to: isoAt(6) }, { offset: 0, limit: 100 });
    expect(one.records).toEqual(all.filter((r) => r.entry.timestamp === isoAt(6)));
    expect(one.total).toBe(1);
  },
  'query: from/to compare instants, also when written with an offset': async (store: AuditStore) => {
    await seedQueryData(store);
    // Minute 3 of the fixture day is 00:03Z = 01:03+01:00; minute 5 is 00:05Z = 19:05-05:00 the day before.
    // Compared as strings these bounds would select nothing.
    const { records, total } = await store.query(
      A,
      { from: '2025-01-01T01:03:00.000+01:00', to: '2024-12-31T19:05:00.000-05:00' },
      { offset: 0, limit: 100 },
    );
    expect(records.map((r) => r.entry.timestamp)).toEqual([isoAt(3), isoAt(4), isoAt(5)]);
    expect(total).toBe(3);
  },
  'query: filters combined': async (store: AuditStore) => {
    const all = await seedQueryData(store);
    const filters: AuditFilter[] = [
      { userId: 'alice', actionType: 'tool_invocation' },
      { userIds: ['alice', 'bob'], policyResult: 'deny' },
      { userId: 'bob', userIds: ['alice', 'carol'] },
      { actionType: 'model_call', from: isoAt(3), to: isoAt(10) },
      { requestId: 'req-1', userIds: ['bob', 'carol'], from: isoAt(0) },
      {
        userId: 'alice',
        userIds: ['alice'],
        actionType: 'tool_invocation',
        policyResult: 'allow',
        requestId: 'req-0',
        from: isoAt(0),
        to: isoAt(0),
      },
    ];
    for (const f of filters) await expectQuery(store, all, f);
  },
  'query: an empty userIds list matches nothing': async (store: AuditStore) => {
    await seedQueryData(store);
    expect(await store.query(A, { userIds: [] }, { offset: 0, limit: 100 })).toEqual({
      records: [],
      total: 0,
    });
    expect(await collect(store.scan(A, { filter: { userIds: [] } }))).toEqual([]);
  },
  'query: pagination with offset/limit, total and order asc/desc': async (store: AuditStore) => {
    const all = await seedQueryData(store);
    const pages: AuditRecord[] = [];
    for (let offset = 0; offset < 12; offset += 5) {
      const page = await store.query(A, {}, { offset, limit: 5 });
      expect(page.total).toBe(12);
      pages.push(...page.records);
    }
    expect(pages).toEqual(all);
    const asc = await store.query(A, {}, { offset: 2, limit: 3, order: 'asc' });
    expect(asc.records.map((r) => r.seq)).toEqual([3, 4, 5]);
    const desc = await store.query(A, {}, { offset: 0, limit: 4, order: 'desc' });
    expect(desc.records.map((r) => r.seq)).toEqual([12, 11, 10, 9]);
    const desc2 = await store.query(A, {}, { offset: 4, limit: 4, order: 'desc' });
    expect(desc2.records.map((r) => r.seq)).toEqual([8, 7, 6, 5]);
    const filtered = await store.query(A, { userId: 'bob' }, { offset: 1, limit: 2, order: 'desc' });
    const bobs = all.filter((r) => r.entry.userId === 'bob').reverse();
    expect(filtered.records).toEqual(bobs.slice(1, 3));
    expect(filtered.total).toBe(bobs.length);
    const beyond = await store.query(A, {}, { offset: 50, limit: 10 });
    expect(beyond).toEqual({ records: [], total: 12 });
  },
  'scan: streams the tenant’s records in seq order in batches': async (store: AuditStore) => {
    const all = await seedQueryData(store);
    expect(await collect(store.scan(A))).toEqual(all);
    expect(await collect(store.scan(A, { batchSize: 5 }))).toEqual(all);
    expect(await collect(store.scan(A, { batchSize: 1 }))).toEqual(all);
    expect(await collect(store.scan(A, { batchSize: 12 }))).toEqual(all);
    expect((await collect(store.scan(B, { batchSize: 2 }))).map((r) => r.entry.tenantId)).toEqual([B, B, B]);
    expect(await collect(store.scan('tenant-none', { batchSize: 2 }))).toEqual([]);
  },
  'scan: fromSeq/toSeq are inclusive and combine with a filter': async (store: AuditStore) => {
    const all = await seedQueryData(store);
    expect(await collect(store.scan(A, { fromSeq: 4, batchSize: 3 }))).toEqual(all.slice(3));
    expect(await collect(store.scan(A, { toSeq: 7, batchSize: 3 }))).toEqual(all.slice(0, 7));
    expect(await collect(store.scan(A, { fromSeq: 3, toSeq: 9, batchSize: 2 }))).toEqual(all.slice(2, 9));
    expect(await collect(store.scan(A, { fromSeq: 5, toSeq: 5 }))).toEqual(all.slice(4, 5));
    expect(await collect(store.scan(A, { fromSeq: 13 }))).toEqual([]);
    const filter: AuditFilter = { userIds: ['alice', 'bob'] };
    expect(await collect(store.scan(A, { fromSeq: 2, toSeq: 10, filter, batchSize: 2 }))).toEqual(
      all.slice(1, 10).filter((r) => matches(r.entry, filter)),
    );
  },
  'scan: an aborted signal stops the scan with a rejection': async (store: AuditStore) => {
    await seedQueryData(store);
    const controller = new AbortController();
    controller.abort();
    await expectRejects(collect(store.scan(A, { signal: controller.signal, batchSize: 2 })));
    const late = new AbortController();
    const seen: AuditRecord[] = [];
    await expectRejects(async () => {
      for await (const r of store.scan(A, { signal: late.signal, batchSize: 2 })) {
        seen.push(r);
        if (seen.length === 3) late.abort();
      }
    });
    expect(seen.length).toBeLessThan(12);
  },
  'anonymize: replaces entry.userId and committed actionDetail paths only': async (store: AuditStore) => {
    const commit = (paths: string[]) => () => Object.fromEntries(paths.map((p) => [p, sha256Hex(p)]));
    const e1 = makeAuditEntry({
      tenantId: A,
      userId: 'alice',
      actionType: 'agent_exchange',
      actionDetail: {
        initiatorUserId: 'alice',
        responderUserId: 'bob',
        approver: { userId: 'alice' },
        note: 'alice',
      },
    });
    const e2 = makeAuditEntry({
      tenantId: A,
      userId: 'bob',
      actionDetail: { initiatorUserId: 'bob', responderUserId: 'alice', uncommitted: 'alice' },
    });
    const e3 = makeAuditEntry({ tenantId: A, userId: 'bob', actionDetail: { responderUserId: 'carol' } });
    const e4 = makeAuditEntry({ tenantId: A, userId: 'alice' });
    const [r1] = await appendEntries(
      store,
      A,
      [e1],
      commit([
        'userId',
        'actionDetail.initiatorUserId',
        'actionDetail.responderUserId',
        'actionDetail.approver.userId',
      ]),
    );
    const [r2] = await appendEntries(
      store,
      A,
      [e2],
      commit(['userId', 'actionDetail.initiatorUserId', 'actionDetail.responderUserId']),
    );
    const [r3] = await appendEntries(store, A, [e3], commit(['userId', 'actionDetail.responderUserId']));
    const [r4] = await appendEntries(store, A, [e4], commit([]));
    const [rb] = await appendEntries(
      store,
      B,
      [makeAuditEntry({ tenantId: B, userId: 'alice', actionDetail: { initiatorUserId: 'alice' } })],
      commit(['userId', 'actionDetail.initiatorUserId']),
    );
    const headBefore = await store.head(A);

    const n = await store.anonymize(A, 'alice', 'anon-7f3a');
    expect(n).toBe(3);

    const g1 = (await store.get(A, e1.id)) as AuditRecord;
    const x1 = structuredClone(r1 as AuditRecord);
    x1.entry.userId = 'anon-7f3a';
    x1.entry.actionDetail = {
      initiatorUserId: 'anon-7f3a',
      responderUserId: 'bob',
      approver: { userId: 'anon-7f3a' },
      note: 'alice',
    };
    expect(g1).toEqual(x1);
    const x2 = structuredClone(r2 as AuditRecord);
    x2.entry.actionDetail = { initiatorUserId: 'bob', responderUserId: 'anon-7f3a', uncommitted: 'alice' };
    expect(await store.get(A, e2.id)).toEqual(x2);
    expect(await store.get(A, e3.id)).toEqual(r3);
    const x4 = structuredClone(r4 as AuditRecord);
    x4.entry.userId = 'anon-7f3a';
    expect(await store.get(A, e4.id)).toEqual(x4);
    expect(await store.get(B, rb?.entry.id ?? '')).toEqual(rb);
    expect(await store.head(A)).toEqual(headBefore);
    expect((await store.query(A, { userId: 'alice' }, { offset: 0, limit: 10 })).total).toBe(0);
    expect((await store.query(A, { userId: 'anon-7f3a' }, { offset: 0, limit: 10 })).total).toBe(2);
    expect(await store.anonymize(A, 'alice', 'anon-7f3a')).toBe(0);
    expect(await store.anonymize(A, 'nobody', 'anon')).toBe(0);
  },
  'tenants: tenants with records, ordered by id': async (store: AuditStore) => {
    expect(await store.tenants()).toEqual([]);
    for (const t of ['tenant-c', A, 'tenant-b'])
      await appendEntries(store, t, [makeAuditEntry({ tenantId: t })]);
    await expectRejects(
      store.append('tenant-empty', () => {
        throw new Error('nothing');
      }),
    );
    expect(await store.tenants()).toEqual([A, 'tenant-b', 'tenant-c']);
  },
  'count: per tenant and across tenants': async (store: AuditStore) => {
    expect(await store.count()).toBe(0);
    expect(await store.count(A)).toBe(0);
    await appendEntries(store, A, [makeAuditEntry({ tenantId: A }), makeAuditEntry({ tenantId: A })]);
    await appendEntries(store, B, [makeAuditEntry({ tenantId: B })]);
    expect(await store.count(A)).toBe(2);
    expect(await store.count(B)).toBe(1);
    expect(await store.count('tenant-none')).toBe(0);
    expect(await store.count()).toBe(3);
  },
  'checkpoints: round-trip, ordered by treeSize, tenant-scoped': async (store: AuditStore) => {
    expect(await store.checkpoints(A)).toEqual([]);
    const cps: AuditCheckpoint[] = [8, 2, 32, 16].map((treeSize) =>
      makeCheckpoint({ tenantId: A, treeSize }),
    );
    for (const cp of cps) await store.saveCheckpoint(cp);
    await store.saveCheckpoint(makeCheckpoint({ tenantId: B, treeSize: 4 }));
    expect(await store.checkpoints(A)).toEqual([...cps].sort((a, b) => a.treeSize - b.treeSize));
    expect((await store.checkpoints(B)).map((c) => c.treeSize)).toEqual([4]);
    const got = await store.checkpoints(A);
    (got[0] as AuditCheckpoint).rootHash = 'changed';
    expect((await store.checkpoints(A))[0]?.rootHash).toBe(cps[1]?.rootHash);
  },
  'checkpoints: a duplicate treeSize of one tenant is rejected': async (store: AuditStore) => {
    const cp = makeCheckpoint({ tenantId: A, treeSize: 10 });
    await store.saveCheckpoint(cp);
    await expectRejects(
      store.saveCheckpoint(makeCheckpoint({ tenantId: A, treeSize: 10, rootHash: 'b'.repeat(64) })),
    );
    expect(await store.checkpoints(A)).toEqual([cp]);
    await store.saveCheckpoint(makeCheckpoint({ tenantId: B, treeSize: 10 }));
    expect(await store.checkpoints(B)).toHaveLength(1);
  },
} satisfies Record<string, (store: AuditStore) => Promise<void>>;

export type AuditStoreCaseName = keyof typeof cases;
export const AUDIT_STORE_CASES = Object.keys(cases) as AuditStoreCaseName[];

/** The AuditStore conformance suite (see the port's doc comments for the contract). */
export const describeAuditStoreConformance = defineConformanceSuite<AuditStore, AuditStoreCaseName>(
  'AuditStore',
  cases,
);
