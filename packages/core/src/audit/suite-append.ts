/** AuditStore conformance, part 1: appends (linkage, serialization per tenant, atomicity, copies). */
import { expect } from 'vitest';
import { expectRejects, STRING_255, UNICODE_SAMPLES } from '../testing/conformance';
import {
  appendEntries,
  GENESIS_HASH,
  isoAt,
  linkRecords,
  makeAuditEntry,
  sha256Hex,
} from '../testing/fixtures';
import type { AuditRecord, AuditStore, ChainHead } from './port';
import type { AuditEntry } from './schema';

const A = 'tenant-a';
const B = 'tenant-b';

/** Checks that records form a gap-free chain 1..n from the genesis hash. */
function expectLinkedChain(records: readonly AuditRecord[]): void {
  let prev = GENESIS_HASH;
  records.forEach((r, i) => {
    expect(r.seq).toBe(i + 1);
    expect(r.prevHash).toBe(prev);
    prev = r.hash;
  });
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

export const auditAppendCases = {
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
    // ULID-shaped ids whose time is past what an entry's timestamp can be (year 9999), or past
    // a ULID's 48 bits: unknown, not a store error.
    for (const far of [
      'XXXXXXXXXXXXXXXXXXXXXXXXXX',
      '7ZZZZZZZZZZZZZZZZZZZZZZZZZ',
      '80000000000000000000000000',
    ])
      expect(await store.get(A, far)).toBeUndefined();
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
  'append: each record keeps its leaf exactly as given (a line feed, empty, unicode, none)': async (
    store: AuditStore,
  ) => {
    // Leaves the log builds (canonical JSON: never a raw line feed) and any other text a caller
    // gives: a store keeps each as given, whichever way it sends them to its database.
    const odd = [
      '{"a":1}',
      'two\nlines',
      '',
      `ünï 🚀 "quoted" \\ ${'x'.repeat(3000)}`,
      undefined,
      '{"b":2}\n',
    ];
    const plain = ['{"c":3}', `{"d":"${'é'.repeat(500)}"}`, '{"e":[1,2]}'];
    const withLeaves = (records: AuditRecord[], leaves: readonly (string | undefined)[]) =>
      records.map((r, i) => (leaves[i] === undefined ? r : { ...r, leaf: leaves[i] }));
    await store.append(A, (head) =>
      withLeaves(
        linkRecords(
          head,
          odd.map(() => makeAuditEntry({ tenantId: A })),
        ),
        odd,
      ),
    );
    await store.append(A, (head) =>
      withLeaves(
        linkRecords(
          head,
          plain.map(() => makeAuditEntry({ tenantId: A })),
        ),
        plain,
      ),
    );
    await store.append(A, (head) =>
      withLeaves(linkRecords(head, [makeAuditEntry({ tenantId: A })]), ['{"f":4}']),
    );
    const expected = [...odd, ...plain, '{"f":4}'];
    if (store.scanPages) {
      const got: (string | undefined)[] = [];
      for await (const page of store.scanPages(A)) for (const r of page) got.push(r.leaf);
      expect(got).toEqual(expected);
    }
    if (store.scanLeaves) {
      const got: (string | undefined)[] = [];
      for await (const page of store.scanLeaves(A)) for (const r of page) got.push(r.leaf);
      expect(got).toEqual(expected);
    }
    expect(await store.count(A)).toBe(expected.length);
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
} satisfies Record<string, (store: AuditStore) => Promise<void>>;
