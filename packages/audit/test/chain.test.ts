import type { AuditRecord } from '@agentgov/core';
import { InMemorySecretStore } from '@agentgov/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computeRecordHash, createAuditLog, recordHashInput, verifyTenant } from '../src/index';
import { merkleWorkers } from '../src/merkle-worker';
import { entryInput, PagedRowsStore, RowsStore, secrets, setup, turnCounter } from './helpers';

const MERKLE_THRESHOLD = merkleWorkers.threshold;

/** Appends n varied entries (some with exchange identifiers) and checkpoints at the end. */
async function chain(n: number, withCheckpoint = true) {
  const ctx = setup();
  const inputs = Array.from({ length: n }, (_, i) =>
    i % 3 === 1
      ? entryInput({
          userId: `user-${i % 4}`,
          actionType: 'agent_exchange',
          actionDetail: {
            exchangeId: `ex-${i}`,
            initiatorUserId: `user-${i % 4}`,
            responderUserId: `user-${(i + 1) % 4}`,
            currentRound: 1,
          },
          dataAccessed: [{ source: 'drive', classification: 'internal', purpose: 'answer' }],
          requestId: `req-${i}`,
        })
      : entryInput({
          userId: `user-${i % 4}`,
          modelUsed: i % 2 ? 'model-x' : null,
          modelTokens: i % 2 ? { input: i, output: 2 * i } : null,
          requestId: `req-${i}`,
        }),
  );
  const appended = await ctx.log.appendBatch(inputs);
  expect(appended.isOk()).toBe(true);
  if (withCheckpoint) expect((await ctx.log.checkpoint('t1')).isOk()).toBe(true);
  return { ...ctx, rows: await RowsStore.from(ctx.store) };
}

const flipHex = (hex: string) => (hex[0] === 'a' ? 'b' : 'a') + hex.slice(1);

type Tamper = (r: AuditRecord) => void;
/** Every kind of field change; each one makes the record differ from what was written. */
const TAMPERS: Record<string, Tamper> = {
  'entry.id': (r) => {
    r.entry.id = r.entry.id.endsWith('Z') ? `${r.entry.id.slice(0, -1)}Y` : `${r.entry.id.slice(0, -1)}Z`;
  },
  'entry.tenantId': (r) => {
    r.entry.tenantId = 't2';
  },
  'entry.userId': (r) => {
    r.entry.userId = `${r.entry.userId}x`;
  },
  'entry.timestamp': (r) => {
    r.entry.timestamp = new Date(Date.parse(r.entry.timestamp) + 1).toISOString();
  },
  'entry.actionType': (r) => {
    r.entry.actionType = r.entry.actionType === 'data_access' ? 'model_call' : 'data_access';
  },
  'entry.actionDetail': (r) => {
    r.entry.actionDetail = { ...r.entry.actionDetail, extra: true };
  },
  'entry.dataAccessed': (r) => {
    r.entry.dataAccessed = [
      ...r.entry.dataAccessed,
      { source: 'mail', classification: 'public', purpose: 'x' },
    ];
  },
  'entry.modelUsed': (r) => {
    r.entry.modelUsed = r.entry.modelUsed === null ? 'other' : null;
  },
  'entry.modelTokens': (r) => {
    r.entry.modelTokens = r.entry.modelTokens === null ? { input: 1, output: 1 } : null;
  },
  'entry.dataClassification': (r) => {
    r.entry.dataClassification = r.entry.dataClassification === 'restricted' ? 'public' : 'restricted';
  },
  'entry.policyApplied': (r) => {
    r.entry.policyApplied += 'x';
  },
  'entry.policyResult': (r) => {
    r.entry.policyResult = r.entry.policyResult === 'deny' ? 'allow' : 'deny';
  },
  'entry.policyReason': (r) => {
    r.entry.policyReason += 'x';
  },
  'entry.outcome': (r) => {
    r.entry.outcome = r.entry.outcome === 'error' ? 'success' : 'error';
  },
  'entry.requestId': (r) => {
    r.entry.requestId += 'x';
  },
  hash: (r) => {
    r.hash = flipHex(r.hash);
  },
  prevHash: (r) => {
    r.prevHash = flipHex(r.prevHash);
  },
  seq: (r) => {
    r.seq += 1;
  },
  'commitments.userId': (r) => {
    r.commitments.userId = flipHex(r.commitments.userId as string);
  },
  'commitments (added path)': (r) => {
    r.commitments['actionDetail.exchangeId'] = 'c'.repeat(64);
  },
  'commitments (removed path)': (r) => {
    const paths = Object.keys(r.commitments);
    delete r.commitments[paths.at(-1) as string];
  },
  leaf: (r) => {
    r.leaf = (r.leaf as string).replace('"entry":{', '"entry":{"extra":true,');
  },
};

/** The tampers the leaf check finds (the others change columns only the deep check re-derives). */
const LEAF_TAMPERS = new Set(['hash', 'prevHash', 'seq', 'leaf']);

describe('hash chain', () => {
  it('a chain of N entries verifies, identifiers and checkpoint included', async () => {
    const { store, secrets: s } = await chain(40);
    const report = await verifyTenant(store, 't1', { secrets: s });
    expect(report).toMatchObject({ ok: true, checked: 40, identifiers: 'checked' });
    expect(report.firstBreak).toBeUndefined();
    expect(report.checkpoints).toEqual([{ treeSize: 40, ok: true, signature: 'valid', rootMatches: true }]);
  });

  it('stored records carry every spec field with defaults, a ULID, normalized timestamps', async () => {
    const { log, store } = setup();
    const r = await log.append(entryInput({ timestamp: '2026-03-01T12:00:00+02:00' }));
    const entry = r._unsafeUnwrap();
    expect(entry).toEqual({
      id: expect.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/),
      tenantId: 't1',
      userId: 'alice',
      timestamp: '2026-03-01T10:00:00.000Z',
      actionType: 'tool_invocation',
      actionDetail: { tool: 'tracker_update', ticketId: 'ABC-1' },
      dataAccessed: [],
      modelUsed: null,
      modelTokens: null,
      dataClassification: 'public',
      policyApplied: 'default',
      policyResult: 'allow',
      policyReason: '',
      outcome: 'success',
      requestId: 'req-1',
    });
    const [record] = (await store.query('t1', {}, { offset: 0, limit: 10 })).records;
    expect(record?.seq).toBe(1);
    expect(record?.prevHash).toBe('0'.repeat(64));
    expect(Object.keys(record?.commitments ?? {})).toEqual(['userId']);
    expect(record && computeRecordHash(record)).toBe(record?.hash);
  });

  it.each([
    ['scan', RowsStore],
    ['scanPages', PagedRowsStore],
  ])(
    'flipping any field of any record names that record as the first break (read by %s)',
    async (_, Store) => {
      const n = 24;
      const base = await chain(n);
      const original = base.rows.rows;
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 0, max: n - 1 }),
          fc.constantFrom(...Object.keys(TAMPERS)),
          async (pos, kind) => {
            const rows = structuredClone(original);
            const target = rows[pos] as AuditRecord;
            (TAMPERS[kind] as Tamper)(target);
            // The default is the deep check: every tampered column is found.
            const report = await verifyTenant(new Store(rows, base.rows.cps), 't1', {
              secrets: base.secrets,
            });
            expect(report.ok).toBe(false);
            expect(report.depth).toBe('deep');
            expect(report.firstBreak?.entryId).toBe(target.entry.id);
            expect(report.firstBreak?.seq).toBe(target.seq);
            expect(report.checked).toBe(pos + 1); // nothing after the break is read

            // Over the leaves alone (deep: false, the explicit fast check): a changed leaf, hash,
            // link or seq is found at that record; a changed column is not looked at (the report
            // says so: depth leaf, nothing derived).
            const leafOnly = await verifyTenant(new Store(rows, base.rows.cps), 't1', {
              secrets: base.secrets,
              deep: false,
            });
            expect(leafOnly).toMatchObject({ depth: 'leaf', derived: 0 });
            if (LEAF_TAMPERS.has(kind)) {
              expect(leafOnly.ok).toBe(false);
              expect(leafOnly.firstBreak).toMatchObject({ entryId: target.entry.id, seq: target.seq });
              expect(leafOnly.checked).toBe(pos + 1);
            } else {
              expect(leafOnly.ok).toBe(true);
              expect(leafOnly.checked).toBe(n);
            }
          },
        ),
        { numRuns: 300 },
      );
    },
  );

  it('reordering two records or deleting one is detected at the first affected position', async () => {
    const n = 24;
    const base = await chain(n);
    const original = base.rows.rows;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: n - 1 }),
        fc.integer({ min: 0, max: n - 1 }),
        async (a, b) => {
          fc.pre(a !== b);
          const [i, j] = a < b ? [a, b] : [b, a];
          const swapped = structuredClone(original);
          [swapped[i], swapped[j]] = [swapped[j] as AuditRecord, swapped[i] as AuditRecord];
          const r1 = await verifyTenant(new RowsStore(swapped, base.rows.cps), 't1', {
            secrets: base.secrets,
          });
          expect(r1.ok).toBe(false);
          expect(r1.firstBreak?.entryId).toBe(swapped[i]?.entry.id);
          expect(r1.firstBreak?.reason).toBe('seq_gap');

          const deleted = structuredClone(original);
          deleted.splice(i, 1);
          const r2 = await verifyTenant(new RowsStore(deleted, base.rows.cps), 't1', {
            secrets: base.secrets,
          });
          expect(r2.ok).toBe(false);
          expect(r2.firstBreak?.entryId).toBe(deleted[i]?.entry.id);
          expect(r2.firstBreak?.reason).toBe('seq_gap');
        },
      ),
      { numRuns: 150 },
    );
  });

  it('deleting the last record is caught by the checkpoint (truncated), not by the links', async () => {
    const base = await chain(10);
    const rows = structuredClone(base.rows.rows).slice(0, -1);
    const report = await verifyTenant(new RowsStore(rows, base.rows.cps), 't1', { secrets: base.secrets });
    expect(report.ok).toBe(false);
    expect(report.firstBreak).toMatchObject({ reason: 'truncated', entryId: rows.at(-1)?.entry.id, seq: 10 });
    // Without a checkpoint a truncated tail is a valid shorter chain: checkpoints are what seal it.
    const bare = await verifyTenant(new RowsStore(rows, []), 't1', { secrets: base.secrets });
    expect(bare.ok).toBe(true);
  });

  it('a rewritten chain (hashes recomputed after a change) fails on the signed checkpoint root', async () => {
    const base = await chain(12);
    const rows = structuredClone(base.rows.rows);
    (rows[3] as AuditRecord).entry.outcome = 'denied';
    let prev = '0'.repeat(64);
    for (const r of rows) {
      r.prevHash = prev;
      r.leaf = recordHashInput(r);
      r.hash = computeRecordHash(r);
      prev = r.hash;
    }
    for (const deep of [false, true]) {
      const report = await verifyTenant(new RowsStore(rows, base.rows.cps), 't1', {
        secrets: base.secrets,
        deep,
      });
      expect(report.ok).toBe(false);
      expect(report.firstBreak).toMatchObject({ reason: 'checkpoint_mismatch', seq: 12 });
      expect(report.checkpoints[0]).toMatchObject({ ok: false, rootMatches: false, signature: 'valid' });
    }
  });

  it("a leaf and hash moved from another record do not name this record's place (leaf_mismatch)", async () => {
    const base = await chain(12);
    const rows = structuredClone(base.rows.rows);
    const [target, other] = [rows[5] as AuditRecord, rows[8] as AuditRecord];
    target.leaf = other.leaf;
    target.hash = other.hash;
    const report = await verifyTenant(new RowsStore(rows, base.rows.cps), 't1', { secrets: base.secrets });
    expect(report.firstBreak).toMatchObject({ reason: 'leaf_mismatch', field: 'leaf', seq: 6 });
  });

  it('the default check finds a column edited behind the store (outcome denied → success); deep: false says it did not look', async () => {
    const base = await chain(12);
    const rows = structuredClone(base.rows.rows);
    const target = rows[6] as AuditRecord;
    target.entry.outcome = target.entry.outcome === 'success' ? 'denied' : 'success'; // leaf and hash kept
    const report = await verifyTenant(new PagedRowsStore(rows, base.rows.cps), 't1', {
      secrets: base.secrets,
    });
    expect(report).toMatchObject({ ok: false, depth: 'deep', checked: 7 });
    expect(report.firstBreak).toMatchObject({ entryId: target.entry.id, seq: 7 });
    const fast = await verifyTenant(new PagedRowsStore(rows, base.rows.cps), 't1', {
      secrets: base.secrets,
      deep: false,
    });
    expect(fast).toMatchObject({ ok: true, depth: 'leaf', derived: 0, checked: 12 });
  });

  it('records stored without a leaf are re-derived from their columns, a changed column found', async () => {
    const base = await chain(12);
    const rows = structuredClone(base.rows.rows);
    for (const r of rows.slice(4)) delete r.leaf; // as rows stored before the leaf was kept
    const report = await verifyTenant(new PagedRowsStore(rows, base.rows.cps), 't1', {
      secrets: base.secrets,
      deep: false,
    });
    expect(report).toMatchObject({
      ok: true,
      checked: 12,
      depth: 'leaf',
      derived: 8,
      identifiers: 'checked',
    });
    expect(report.checkpoints[0]).toMatchObject({ ok: true, rootMatches: true });
    (rows[7] as AuditRecord).entry.outcome = 'denied';
    const broken = await verifyTenant(new RowsStore(rows, base.rows.cps), 't1', {
      secrets: base.secrets,
      deep: false,
    });
    expect(broken.firstBreak).toMatchObject({ reason: 'hash_mismatch', seq: 8 });
  });

  it('a forged checkpoint (root replaced, JWS kept) or a JWS from another key fails', async () => {
    const base = await chain(6);
    const cps = structuredClone(base.rows.cps);
    (cps[0] as { rootHash: string }).rootHash = flipHex(cps[0]?.rootHash as string);
    const r1 = await verifyTenant(new RowsStore(base.rows.rows, cps), 't1', { secrets: base.secrets });
    expect(r1.ok).toBe(false);
    expect(r1.checkpoints[0]).toMatchObject({ ok: false, signature: 'valid' });

    const other = await chain(6);
    const r2 = await verifyTenant(new RowsStore(base.rows.rows, other.rows.cps), 't1', {
      publicJwk: (await base.log.loadPublicJwk())._unsafeUnwrap(),
    });
    expect(r2.ok).toBe(false);
  });

  it('without the commitment key, links are checked but identifiers are reported unchecked', async () => {
    const base = await chain(8);
    const rows = structuredClone(base.rows.rows);
    (rows[2] as AuditRecord).entry.userId = 'mallory';
    // Clear identifiers are columns: the deep check re-derives them.
    const deep = true;
    const store = new RowsStore(rows, base.rows.cps);
    const noKey = await verifyTenant(store, 't1', {
      secrets: new InMemorySecretStore(),
      allowUnchecked: true,
      deep,
    });
    expect(noKey).toMatchObject({ ok: true, identifiers: 'unchecked', allowUnchecked: true });
    expect(noKey.checkpoints[0]?.signature).toBe('unchecked');
    const withKey = await verifyTenant(store, 't1', { secrets: base.secrets, deep });
    expect(withKey.firstBreak).toMatchObject({ reason: 'commitment_mismatch', entryId: rows[2]?.entry.id });
  });

  it('verifies a range and links its first record to the one before', async () => {
    const base = await chain(20);
    const part = await verifyTenant(base.store, 't1', { secrets: base.secrets, fromSeq: 5, toSeq: 15 });
    expect(part).toMatchObject({ ok: true, checked: 11 });
    const rows = structuredClone(base.rows.rows);
    (rows[4] as AuditRecord).prevHash = flipHex((rows[4] as AuditRecord).prevHash);
    const broken = await verifyTenant(new RowsStore(rows, []), 't1', { secrets: base.secrets, fromSeq: 5 });
    expect(broken.firstBreak).toMatchObject({ reason: 'prev_hash_mismatch', seq: 5 });
  });

  it('a column changed under an intact leaf: the deep check reports the hash re-derived from the columns', async () => {
    const base = await chain(6, false);
    const rows = structuredClone(base.rows.rows);
    const target = rows[3] as AuditRecord;
    target.entry.outcome = 'denied'; // leaf and hash untouched
    const report = await verifyTenant(new RowsStore(rows, []), 't1', { secrets: base.secrets });
    expect(report.firstBreak).toMatchObject({
      reason: 'hash_mismatch',
      seq: 4,
      expected: computeRecordHash(target),
      actual: target.hash,
    });
    expect(computeRecordHash(target)).not.toBe(target.hash);
  });

  it('gives the event loop a turn after every page, on a store whose pages need no I/O', async () => {
    // The tree on this thread: a Merkle worker's messages would give turns of their own.
    merkleWorkers.threshold = Number.POSITIVE_INFINITY;
    try {
      const base = await chain(2500, false);
      const counter = turnCounter();
      const seen: number[] = [];
      const report = await verifyTenant(base.store, 't1', {
        secrets: base.secrets,
        onProgress: () => seen.push(counter.turns()),
      });
      counter.stop();
      expect(report.ok).toBe(true);
      // Pages of 1,000 in memory: progress at 1,000, 2,000 and 2,500, each after one more turn.
      expect(seen).toHaveLength(3);
      expect(seen[1]).toBeGreaterThan(seen[0] as number);
      expect(seen[2]).toBeGreaterThan(seen[1] as number);
    } finally {
      merkleWorkers.threshold = MERKLE_THRESHOLD;
    }
  });

  it('reports progress', async () => {
    const base = await chain(2500, false);
    const calls: [number, number][] = [];
    const report = await verifyTenant(base.store, 't1', {
      secrets: base.secrets,
      onProgress: (c, t) => calls.push([c, t]),
    });
    expect(report.ok).toBe(true);
    expect(calls).toEqual([
      [1000, 2500],
      [2000, 2500],
      [2500, 2500],
    ]);
  });

  it('a second log on the same store with another commitment key is caught', async () => {
    const base = await chain(3, false);
    const foreign = createAuditLog({
      store: base.store,
      secrets: new InMemorySecretStore({ 'audit-commitment-key': 'x'.repeat(40) }),
    });
    expect((await foreign.append(entryInput())).isOk()).toBe(true);
    const report = await verifyTenant(base.store, 't1', { secrets: secrets(), deep: true });
    expect(report.firstBreak).toMatchObject({ reason: 'commitment_mismatch', seq: 4 });
  });
});
