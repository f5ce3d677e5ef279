/**
 * The verifier's Merkle tree on a worker thread (`merkle-worker.ts`): for any tampering — in the
 * first or the second part of the range, at a page seam of the hashes sent to the worker, at a
 * checkpoint, a chain rewritten so only a checkpoint root finds it — the report with the worker is
 * the very report of one thread (same break, checked, derived, checkpoints, root). A worker that
 * fails, crashes or answers wrongly never makes a verify pass; below the threshold no worker runs.
 */
import { Worker } from 'node:worker_threads';
import type { AuditRecord } from '@agentgov/core';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { computeRecordHash, merkleRoot, recordHashInput, verifyTenant } from '../src/index';
import { MerkleOffload, merkleWorkers, stopIdleMerkleWorker } from '../src/merkle-worker';
import type { VerifyOptions } from '../src/verify';
import { entryInput, PagedRowsStore, RowsStore, setup } from './helpers';

/** 240 records in 3 batches, a checkpoint after each (tree sizes 80, 160, 240). */
const SIZE = 240;
const defaults = { ...merkleWorkers };
let base: { rows: RowsStore; secrets: ReturnType<typeof setup>['secrets'] };

beforeAll(async () => {
  const ctx = setup();
  for (let b = 0; b < 3; b++) {
    const inputs = Array.from({ length: SIZE / 3 }, (_, k) =>
      entryInput({ userId: `user-${k % 5}`, requestId: `req-${b}-${k}` }),
    );
    expect((await ctx.log.appendBatch(inputs)).isOk()).toBe(true);
    ctx.clock.advance(1000);
    expect((await ctx.log.checkpoint('t1')).isOk()).toBe(true);
  }
  base = { rows: await RowsStore.from(ctx.store), secrets: ctx.secrets };
});
afterEach(async () => {
  Object.assign(merkleWorkers, defaults);
  vi.restoreAllMocks();
  await stopIdleMerkleWorker();
});
afterAll(stopIdleMerkleWorker);

/**
 * The report with the tree on a worker (pages of 16 hashes: many seams; at most one page waiting
 * for the worker, so the verifier waits for it often) and on one thread.
 */
async function both(rows: AuditRecord[], options: VerifyOptions = {}) {
  const store = () => new PagedRowsStore(rows, base.rows.cps);
  const finish = vi.spyOn(MerkleOffload.prototype, 'finish');
  Object.assign(merkleWorkers, { threshold: 1, page: 16, inflight: 1 });
  const threaded = await verifyTenant(store(), 't1', { secrets: base.secrets, ...options });
  const runs = finish.mock.calls.length;
  merkleWorkers.threshold = Number.POSITIVE_INFINITY;
  const single = await verifyTenant(store(), 't1', { secrets: base.secrets, ...options });
  expect(finish.mock.calls.length).toBe(runs); // one thread: no worker run
  finish.mockRestore();
  return { threaded, single, runs };
}

const flipHex = (hex: string) => (hex[0] === 'a' ? 'b' : 'a') + hex.slice(1);

/** The chain from `from` (0-based) on rewritten to link again: only a checkpoint root finds it. */
function rewrite(rows: AuditRecord[], from: number): void {
  (rows[from] as AuditRecord).entry.outcome = 'denied';
  let prev = from === 0 ? '0'.repeat(64) : (rows[from - 1] as AuditRecord).hash;
  for (const r of rows.slice(from)) {
    r.prevHash = prev;
    r.leaf = recordHashInput(r);
    r.hash = computeRecordHash(r);
    prev = r.hash;
  }
}

type Tamper = 'leaf' | 'hash' | 'prevHash' | 'rewrite' | 'rewrite+leaf' | 'truncate';
function tampered(kind: Tamper, at: number, later: number): AuditRecord[] {
  const rows = structuredClone(base.rows.rows);
  const r = rows[at] as AuditRecord;
  if (kind === 'leaf') r.leaf = (r.leaf as string).replace('"entry":{', '"entry":{"extra":true,');
  else if (kind === 'hash') r.hash = flipHex(r.hash);
  else if (kind === 'prevHash') r.prevHash = flipHex(r.prevHash);
  else if (kind === 'truncate') rows.length = at + 1;
  else {
    rewrite(rows, at);
    // A later chain break: the checkpoint root before it must still be the first break.
    if (kind === 'rewrite+leaf') (rows[Math.max(at, later)] as AuditRecord).hash = '1'.repeat(64);
  }
  return rows;
}

describe('verifyTenant with the Merkle tree on a worker', () => {
  it('an intact chain: the same report, the worker ran', async () => {
    for (const deep of [false, true]) {
      const { threaded, single, runs } = await both(base.rows.rows, { deep });
      expect(runs).toBe(1);
      expect(single.ok).toBe(true);
      expect(single.rootHash).toBe(merkleRoot(base.rows.rows.map((r) => r.hash)));
      expect(threaded).toEqual(single);
    }
  });

  it('tampering anywhere (first part, second part, a page seam, a checkpoint): the same report', async () => {
    // Seams: pages of 16 hashes end at seq 16, 32, …; checkpoints at 80, 160, 240.
    const at = fc.oneof(
      fc.nat({ max: SIZE - 1 }),
      fc.constantFrom(0, 15, 16, 17, 78, 79, 80, 159, 160, 238, 239),
    );
    const kind = fc.constantFrom<Tamper>('leaf', 'hash', 'prevHash', 'rewrite', 'rewrite+leaf', 'truncate');
    await fc.assert(
      fc.asyncProperty(kind, at, fc.nat({ max: SIZE - 1 }), fc.boolean(), async (k, i, later, deep) => {
        const rows = tampered(k, i, later);
        const { threaded, single, runs } = await both(rows, { deep });
        expect(runs).toBe(1);
        expect(threaded).toEqual(single);
        if (k !== 'truncate' || i < SIZE - 1) expect(single.ok).toBe(false);
      }),
      { numRuns: 60 },
    );
  });

  it('a rewritten chain is broken at the first checkpoint after the change, before a later break', async () => {
    const { threaded, single } = await both(tampered('rewrite+leaf', 90, 200), { deep: false });
    expect(threaded).toEqual(single);
    expect(threaded.firstBreak).toMatchObject({ reason: 'checkpoint_mismatch', seq: 160 });
    expect(threaded.checked).toBe(160);
    expect(threaded.lastHash).toBe(tampered('rewrite', 90, 0)[159]?.hash);
    expect(threaded.checkpoints.map((c) => c.rootMatches)).toEqual([true, false, undefined]);
  });

  it('a partial range (fromSeq > 1) and a range below the threshold run on one thread', async () => {
    const finish = vi.spyOn(MerkleOffload.prototype, 'finish');
    merkleWorkers.threshold = SIZE + 1;
    const below = await verifyTenant(base.rows, 't1', { secrets: base.secrets, deep: false });
    merkleWorkers.threshold = 1;
    const partial = await verifyTenant(base.rows, 't1', { secrets: base.secrets, fromSeq: 2 });
    expect(below.ok && partial.ok).toBe(true);
    expect(finish).not.toHaveBeenCalled();
    merkleWorkers.threshold = SIZE;
    expect((await verifyTenant(base.rows, 't1', { secrets: base.secrets, deep: false })).ok).toBe(true);
    expect(finish).toHaveBeenCalledTimes(1);
  });
});

describe('a failing Merkle worker fails closed', () => {
  const ZERO = '0'.repeat(64);
  /** A worker that counts the pages it is sent as hashed (the verifier's progress counter). */
  const acking = `const { parentPort } = require('node:worker_threads'); let n = 0; let progress;
    const ack = (m) => { if (m.progress) progress = new Int32Array(m.progress);
      if (m.bytes) { n += m.count; Atomics.add(progress, 0, 1); Atomics.notify(progress, 0); } };`;
  const bad: Record<string, string> = {
    throws: "throw new Error('boom')",
    exits: 'process.exit(3)',
    'hangs (never hashes a page, never answers)': `require('node:worker_threads').parentPort.on('message', () => {})`,
    'hashes every page but never answers': `${acking} parentPort.on('message', ack);`,
    'answers an error': `${acking} parentPort.on('message', (m) => {
      ack(m); if (m.end) parentPort.postMessage({ error: 'broken' }); });`,
    'answers for fewer hashes': `${acking} parentPort.on('message', (m) => {
      ack(m); if (m.end) parentPort.postMessage({ roots: [], root: '${ZERO}', size: n - 1 }); });`,
    'answers without the checkpoint roots': `${acking} parentPort.on('message', (m) => {
      ack(m); if (m.end) parentPort.postMessage({ roots: [], root: '${ZERO}', size: n }); });`,
  };
  for (const [name, source] of Object.entries(bad)) {
    it(`a worker that ${name}: verified again on one thread (a rewritten chain still fails)`, async () => {
      await stopIdleMerkleWorker();
      const spawn = vi.fn(() => new Worker(source, { eval: true }));
      // A hung worker is given up after `stall` ms without progress (whatever the machine's speed,
      // one that never hashes a page is always given up).
      Object.assign(merkleWorkers, { spawn, stall: 100 });
      for (const rows of [base.rows.rows, tampered('rewrite', 100, 0)]) {
        const { threaded, single } = await both(rows, { deep: false });
        expect(threaded).toEqual(single);
      }
      expect(spawn).toHaveBeenCalled();
      expect((await both(tampered('rewrite', 100, 0))).threaded.firstBreak).toMatchObject({
        reason: 'checkpoint_mismatch',
        seq: 160,
      });
    });
  }

  it('no worker can be started: one thread', async () => {
    await stopIdleMerkleWorker();
    merkleWorkers.spawn = () => {
      throw new Error('no threads here');
    };
    for (const rows of [base.rows.rows, tampered('rewrite', 100, 0)]) {
      const { threaded, single } = await both(rows, { deep: false });
      expect(threaded).toEqual(single);
    }
  });

  it('a worker answering wrong roots makes the verify fail, never pass', async () => {
    await stopIdleMerkleWorker();
    merkleWorkers.spawn = () =>
      new Worker(
        `${acking} parentPort.on('message', (m) => {
          ack(m); if (m.end) parentPort.postMessage({ roots: [[80, '${ZERO}']], root: '${ZERO}', size: n }); });`,
        { eval: true },
      );
    Object.assign(merkleWorkers, { threshold: 1 });
    const rows = base.rows.rows.slice(0, 100);
    const report = await verifyTenant(new RowsStore(rows, base.rows.cps.slice(0, 1)), 't1', {
      secrets: base.secrets,
    });
    expect(report.ok).toBe(false);
    expect(report.firstBreak).toMatchObject({ reason: 'checkpoint_mismatch', seq: 80 });
  });
});

describe('the worker tree', () => {
  it('keeps at most `inflight` pages waiting for the worker: the verifier waits until it hashes them', async () => {
    await stopIdleMerkleWorker();
    let worker: Worker | undefined;
    // Counts a page as hashed only when the test says so.
    const source = `const { parentPort } = require('node:worker_threads'); let progress;
      parentPort.on('message', (m) => {
        if (m.progress) progress = new Int32Array(m.progress);
        if (m.ack) { Atomics.add(progress, 0, 1); Atomics.notify(progress, 0); }
      });`;
    Object.assign(merkleWorkers, {
      page: 2,
      inflight: 1,
      spawn: () => {
        worker = new Worker(source, { eval: true });
        return worker;
      },
    });
    const run = new MerkleOffload([]);
    const push = (n: number) => {
      for (let i = 0; i < n; i++) run.push('ab'.repeat(32));
    };
    push(2);
    expect(run.backlog()).toBeUndefined(); // one page waiting: within the limit
    push(2);
    const waiting = run.backlog(); // two pages waiting: the verifier waits
    expect(waiting).toBeInstanceOf(Promise);
    let resolved = false;
    void waiting?.then(() => {
      resolved = true;
    });
    await new Promise((r) => setImmediate(r));
    expect(resolved).toBe(false);
    worker?.postMessage({ ack: true });
    await waiting;
    expect(run.backlog()).toBeUndefined();
    run.abort();
  });

  it('answers the roots of merkleRoot at any tree sizes, over any number of pages', async () => {
    const hex64 = fc.stringMatching(/^[0-9a-f]{64}$/);
    await fc.assert(
      fc.asyncProperty(
        fc.array(hex64, { maxLength: 70 }),
        fc.array(fc.nat({ max: 80 })),
        fc.integer({ min: 1, max: 9 }),
        async (hashes, sizes, page) => {
          merkleWorkers.page = page;
          const run = new MerkleOffload(sizes);
          for (const h of hashes) run.push(h);
          const result = await run.finish();
          expect(result.size).toBe(hashes.length);
          expect(result.root).toBe(merkleRoot(hashes));
          const reached = [...new Set(sizes)]
            .filter((s) => s >= 1 && s <= hashes.length)
            .sort((a, b) => a - b);
          expect([...result.roots.keys()].sort((a, b) => a - b)).toEqual(reached);
          for (const s of reached) expect(result.roots.get(s)).toBe(merkleRoot(hashes, s));
        },
      ),
      { numRuns: 100 },
    );
  });
});
