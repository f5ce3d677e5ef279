/** AuditStore conformance, part 2: reads (query filters, pagination, scan, scanHashes, scanPages). */
import { expect } from 'vitest';
import { expectRejects } from '../testing/conformance';
import { appendEntries, isoAt, makeAuditEntry } from '../testing/fixtures';
import type { AuditFilter, AuditHashScanOptions, AuditRecord, AuditStore } from './port';
import type { AuditEntry } from './schema';

const A = 'tenant-a';
const B = 'tenant-b';

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
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

/**
 * A paged reader of tenant A's 12 records (`scanHashes`, `scanPages`): in seq order over any
 * fromSeq..toSeq range, no page empty or larger than `batchSize`; nothing for an unknown tenant;
 * tenant B's own.
 */
async function expectPagedRange<T>(
  read: (tenantId: string, options?: AuditHashScanOptions) => AsyncIterable<readonly T[]>,
  all: readonly T[],
  tenantB: readonly T[],
): Promise<void> {
  const flat = async (options?: AuditHashScanOptions) => {
    const pages = await collect(read(A, options));
    for (const page of pages) {
      expect(page.length).toBeGreaterThan(0);
      if (options?.batchSize !== undefined) expect(page.length).toBeLessThanOrEqual(options.batchSize);
    }
    return pages.flat();
  };
  expect(await flat()).toEqual(all);
  expect(await flat({ batchSize: 5 })).toEqual(all);
  expect(await flat({ batchSize: 1 })).toEqual(all);
  expect(await flat({ fromSeq: 4, batchSize: 3 })).toEqual(all.slice(3));
  expect(await flat({ toSeq: 7, batchSize: 3 })).toEqual(all.slice(0, 7));
  expect(await flat({ fromSeq: 3, toSeq: 9, batchSize: 2 })).toEqual(all.slice(2, 9));
  expect(await flat({ fromSeq: 5, toSeq: 5 })).toEqual(all.slice(4, 5));
  expect(await flat({ fromSeq: 13 })).toEqual([]);
  expect(await collect(read('tenant-none', { batchSize: 2 }))).toEqual([]);
  expect((await collect(read(B, { batchSize: 2 }))).flat()).toEqual(tenantB);
}

export const auditQueryCases = {
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
  'query: toSeq is a snapshot — nothing after it, in pages, totals and scans, whatever is appended since':
    async (store: AuditStore) => {
      const all = await seedQueryData(store);
      const upTo5 = all.filter((r) => r.seq <= 5);
      expect(await store.query(A, { toSeq: 5 }, { offset: 0, limit: 100 })).toEqual({
        records: upTo5,
        total: 5,
      });
      expect(await store.query(A, { toSeq: 0 }, { offset: 0, limit: 100 })).toEqual({
        records: [],
        total: 0,
      });
      const alice = upTo5.filter((r) => r.entry.userId === 'alice');
      expect(await store.query(A, { userId: 'alice', toSeq: 5 }, { offset: 0, limit: 100 })).toEqual({
        records: alice,
        total: alice.length,
      });
      // Pages newest first under one snapshot: later appends neither shift nor repeat them.
      const first = await store.query(A, { toSeq: 12 }, { offset: 0, limit: 5, order: 'desc' });
      await appendEntries(store, A, [makeAuditEntry({ tenantId: A, userId: 'alice', timestamp: isoAt(20) })]);
      const second = await store.query(A, { toSeq: 12 }, { offset: 5, limit: 5, order: 'desc' });
      expect([...first.records, ...second.records].map((r) => r.seq)).toEqual([
        12, 11, 10, 9, 8, 7, 6, 5, 4, 3,
      ]);
      expect(second.total).toBe(12);
      expect(
        (await collect(store.scan(A, { filter: { toSeq: 3 }, batchSize: 2 }))).map((r) => r.seq),
      ).toEqual([1, 2, 3]);
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
  'scanHashes: the record hashes of fromSeq..toSeq in seq order, page by page (when the store has it)':
    async (store: AuditStore) => {
      const all = await seedQueryData(store);
      if (!store.scanHashes) return;
      const scanHashes = store.scanHashes.bind(store);
      const tenantB = (await collect(store.scan(B))).map((r) => r.hash);
      await expectPagedRange(
        scanHashes,
        all.map((r) => r.hash),
        tenantB,
      );
    },
  'scanPages: the records of fromSeq..toSeq in seq order, page by page, as scan gives them (when the store has it)':
    async (store: AuditStore) => {
      const all = await seedQueryData(store);
      if (!store.scanPages) return;
      const scanPages = store.scanPages.bind(store);
      await expectPagedRange(scanPages, all, await collect(store.scan(B)));
      // Pages read after an erasure hold the anonymized records.
      const victim = all.find((r) => r.entry.userId === 'alice');
      expect(victim).toBeDefined();
      await store.anonymize(A, 'alice', 'anon:0123456789abcdef');
      const after = (await collect(scanPages(A, { batchSize: 4 }))).flat();
      expect(after).toEqual(await collect(store.scan(A)));
      expect(after.some((r) => r.entry.userId === 'alice')).toBe(false);
      expect(after.find((r) => r.seq === victim?.seq)?.entry.userId).toBe('anon:0123456789abcdef');
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
} satisfies Record<string, (store: AuditStore) => Promise<void>>;
