/**
 * `pnpm bench audit-verify`: audit-chain verification throughput against a raw SHA-256 loop over
 * the very bytes the verifier hashes, and append throughput on the in-memory store (single vs
 * batched). PostgreSQL/PGlite appends are benched by @agentgov/store-kysely.
 */
import { createHash } from 'node:crypto';
import {
  computeRecordHash,
  createAuditLog,
  generateAuditKeys,
  MerkleAccumulator,
  recordHashInput,
  sha256Hex,
  verifyTenant,
} from '@agentgov/audit';
import {
  type AuditEntryInput,
  type AuditRecord,
  InMemoryAuditStore,
  InMemorySecretStore,
} from '@agentgov/core';
// The verifier's worker knobs (not exported from the package): the same module the package's
// index loads from src, so setting the threshold here switches verifyTenant to one thread.
import { merkleWorkers } from '../packages/audit/src/merkle-worker';
import { type BenchRow, type BenchSuite, percentile, throughput } from './lib';

const keys = await generateAuditKeys();
const secrets = () =>
  new InMemorySecretStore({
    'audit-commitment-key': keys.commitmentKey,
    'audit-signing-key': keys.signingKey,
  });

const input = (i: number): AuditEntryInput => ({
  tenantId: 'bench',
  userId: `user-${i % 500}`,
  actionType: i % 4 === 0 ? 'agent_exchange' : 'model_call',
  actionDetail:
    i % 4 === 0
      ? {
          exchangeId: `ex-${i}`,
          initiatorUserId: `user-${i % 500}`,
          responderUserId: `user-${(i + 1) % 500}`,
          currentRound: 1,
        }
      : { prompt: 'summarize', tokens: i % 1000 },
  dataAccessed: [{ source: 'drive', classification: 'internal', purpose: 'answer' }],
  modelUsed: 'model-x',
  modelTokens: { input: 120, output: 40 },
  dataClassification: 'internal',
  policyApplied: 'enterprise-default',
  policyResult: 'allow',
  outcome: 'success',
  requestId: `req-${i}`,
});

async function filledStore(n: number) {
  const store = new InMemoryAuditStore();
  const log = createAuditLog({ store, secrets: secrets() });
  for (let i = 0; i < n; i += 1000) {
    (
      await log.appendBatch(Array.from({ length: Math.min(1000, n - i) }, (_, k) => input(i + k)))
    )._unsafeUnwrap();
  }
  (await log.checkpoint('bench'))._unsafeUnwrap();
  const records: AuditRecord[] = [];
  for await (const r of store.scan('bench')) records.push(r);
  return { store, records };
}

const N = 50_000;
/** Rounds per case after the warm-up round (BENCH_VERIFY_ROUNDS, default 5). */
const ROUNDS = Math.max(1, Number(process.env.BENCH_VERIFY_ROUNDS ?? 5));

const verifySuite: BenchSuite = {
  name: `audit verify (${N.toLocaleString('en-US')} entries, in-memory store)`,
  baseline: 'raw sha256 over the hash inputs',
  async run() {
    const { store, records } = await filledStore(N);
    const inputs = records.map((r) => Buffer.from(recordHashInput(r), 'utf8'));
    // The leaf each record keeps (what the verifier's leaf check hashes) is that very text.
    if (records.some((r) => r.leaf !== recordHashInput(r))) throw new Error('a leaf is not its hash input');
    // The hash inputs as objects whose keys are already in canonical order at every level (no
    // array-index keys here): what the least a verifier that recomputes the hash input from a
    // record object must still do is one JSON.stringify of such an object (the floor rows).
    const canonicalObjects: unknown[] = inputs.map((b) => JSON.parse(b.toString('utf8')));
    canonicalObjects.forEach((o, i) => {
      if (JSON.stringify(o) !== inputs[i]?.toString('utf8'))
        throw new Error(`floor object ${i} is not canonical`);
    });
    const bytes = inputs.reduce((s, b) => s + b.byteLength, 0);
    const cases: [string, () => Promise<void>][] = [
      [
        'raw sha256 over the hash inputs',
        async () => {
          for (const b of inputs) createHash('sha256').update(b).digest('hex');
        },
      ],
      [
        'canonical JSON + sha256 (recompute hash only)',
        async () => {
          for (const rec of records) computeRecordHash(rec);
        },
      ],
      [
        'floor: JSON.stringify of the canonical object',
        async () => {
          for (const o of canonicalObjects) JSON.stringify(o);
        },
      ],
      [
        'floor: JSON.stringify + sha256 of the canonical object',
        async () => {
          for (const o of canonicalObjects) sha256Hex(JSON.stringify(o));
        },
      ],
      [
        'Merkle root (streaming accumulator)',
        async () => {
          const acc = new MerkleAccumulator();
          for (const rec of records) acc.push(rec.hash);
          acc.root();
        },
      ],
      [
        'verifyTenant leaf-only (deep: false), no commitment key',
        async () => {
          const rep = await verifyTenant(store, 'bench', {
            publicJwk: keys.publicJwk,
            allowUnchecked: true,
            deep: false,
          });
          if (!rep.ok || rep.depth !== 'leaf' || rep.derived !== 0) throw new Error('chain broken');
        },
      ],
      [
        'verifyTenant leaf-only, no commitment key, one thread (Merkle worker off)',
        async () => {
          const threshold = merkleWorkers.threshold;
          merkleWorkers.threshold = Number.POSITIVE_INFINITY;
          try {
            const rep = await verifyTenant(store, 'bench', {
              publicJwk: keys.publicJwk,
              allowUnchecked: true,
              deep: false,
            });
            if (!rep.ok || rep.depth !== 'leaf' || rep.derived !== 0) throw new Error('chain broken');
          } finally {
            merkleWorkers.threshold = threshold;
          }
        },
      ],
      [
        'verifyTenant leaf-only (deep: false), with the commitment key',
        async () => {
          const rep = await verifyTenant(store, 'bench', { secrets: secrets(), deep: false });
          if (!rep.ok || rep.depth !== 'leaf' || rep.derived !== 0) throw new Error('chain broken');
        },
      ],
      [
        'verifyTenant default, deep (columns re-derived, identifiers checked by HMAC)',
        async () => {
          const rep = await verifyTenant(store, 'bench', { secrets: secrets() });
          if (!rep.ok || rep.identifiers !== 'checked' || rep.derived !== N) throw new Error('chain broken');
        },
      ],
    ];
    // Every case once per round, rounds interleaved; the first round warms up, then each case's
    // fastest round is kept (a shared machine slows some rounds down, never speeds one up).
    const best = new Map<string, BenchRow>();
    for (let round = 0; round <= ROUNDS; round++) {
      for (const [name, work] of cases) {
        const row = await throughput(name, N, work, 'entry');
        const kept = best.get(name);
        if (round > 0 && (!kept || row.opsPerSec > kept.opsPerSec)) best.set(name, row);
      }
    }
    const rows = cases.map(([name]) => best.get(name) as BenchRow);
    for (const row of rows) row.note = `${row.note} (fastest of ${ROUNDS} interleaved rounds)`;
    const base = rows[0];
    if (base) base.note = `${base.note}; ${(bytes / N).toFixed(0)} B/entry`;
    return rows;
  },
};

const appendSuite: BenchSuite = {
  name: 'audit append (in-memory store)',
  baseline: 'append one at a time',
  async run() {
    const rows = [];
    for (const [name, count, batch] of [
      ['append one at a time', 5000, 1],
      ['append, 20 concurrent callers', 5000, -20],
      ['appendBatch of 100', 20_000, 100],
      ['appendBatch of 1000', 20_000, 1000],
    ] as const) {
      const store = new InMemoryAuditStore();
      const log = createAuditLog({ store, secrets: secrets() });
      (await log.append(input(0)))._unsafeUnwrap(); // key derivation, warm-up
      rows.push(
        await throughput(
          name,
          count,
          async () => {
            if (batch === 1) {
              for (let i = 0; i < count; i++) (await log.append(input(i)))._unsafeUnwrap();
            } else if (batch < 0) {
              const callers = -batch;
              await Promise.all(
                Array.from({ length: callers }, async (_, c) => {
                  for (let i = c; i < count; i += callers) (await log.append(input(i)))._unsafeUnwrap();
                }),
              );
            } else {
              for (let i = 0; i < count; i += batch) {
                (
                  await log.appendBatch(Array.from({ length: batch }, (_, k) => input(i + k)))
                )._unsafeUnwrap();
              }
            }
          },
          'entry',
        ),
      );
      const rep = await verifyTenant(store, 'bench', { secrets: secrets() });
      if (!rep.ok) throw new Error(`${name}: chain broken`);
    }
    return rows;
  },
};

/**
 * A scheduled checkpoint on a log that keeps serving: the records appended since the last
 * checkpoint are verified (deep) before the tree head is signed. The longest the event loop waits
 * meanwhile (a `setImmediate` ticker: the gaps between its turns) is what requests arriving during
 * the checkpoint wait at least; the row's throughput is the checkpoint's, the baseline the deep
 * verification of the same records on its own.
 */
const CHECKPOINT_N = 100_000;
const checkpointSuite: BenchSuite = {
  name: `audit checkpoint over ${CHECKPOINT_N.toLocaleString('en-US')} new entries (in-memory store), event-loop stall`,
  baseline: 'verifyTenant deep of the same entries',
  async run() {
    const rows: BenchRow[] = [];
    const store = new InMemoryAuditStore();
    const log = createAuditLog({ store, secrets: secrets() });
    for (let i = 0; i < CHECKPOINT_N; i += 1000)
      (await log.appendBatch(Array.from({ length: 1000 }, (_, k) => input(i + k))))._unsafeUnwrap();
    rows.push(
      await throughput(
        'verifyTenant deep of the same entries',
        CHECKPOINT_N,
        async () => {
          const rep = await verifyTenant(store, 'bench', { secrets: secrets() });
          if (!rep.ok) throw new Error('chain broken');
        },
        'entry',
      ),
    );
    let turns = 0;
    let longest = 0;
    let last = performance.now();
    let running = true;
    const tick = () => {
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
      turns++;
      if (running) setImmediate(tick);
    };
    setImmediate(tick);
    const row = await throughput(
      'log.checkpoint (verify, then sign)',
      CHECKPOINT_N,
      async () => (await log.checkpoint('bench'))._unsafeUnwrap(),
      'entry',
    );
    running = false;
    row.note = `${row.note}; longest event-loop stall ${longest.toFixed(1)} ms, ${turns} turns meanwhile`;
    rows.push(row);
    // After a restart: a new log on the same store, 1,000 more entries, its first checkpoint
    // (continues from the stored one once its signature and the stored hashes check out).
    const restarted = createAuditLog({ store, secrets: secrets() });
    (
      await restarted.appendBatch(Array.from({ length: 1000 }, (_, k) => input(CHECKPOINT_N + k)))
    )._unsafeUnwrap();
    const again = await throughput(
      'first checkpoint of a new log (a restart) after 1,000 more',
      CHECKPOINT_N + 1000,
      async () => (await restarted.checkpoint('bench'))._unsafeUnwrap(),
      'entry',
    );
    again.note = `${again.note} (${CHECKPOINT_N.toLocaleString('en-US')} covered by the stored checkpoint)`;
    rows.push(again);
    return rows;
  },
};

/**
 * A checkpoint a minute for days: the cost of one more (1 new entry) as the tenant's stored
 * checkpoints pile up — it should not grow with them (before issue 26 round 8 it re-checked every
 * stored checkpoint's signature: ~150 µs each, 305 ms at 2,000).
 */
const HISTORY = 2000;
const historySuite: BenchSuite = {
  name: `audit checkpoint of 1 new entry as stored checkpoints pile up (in-memory store, ${HISTORY.toLocaleString('en-US')})`,
  baseline: 'checkpoint with 10 stored before',
  async run() {
    const log = createAuditLog({ store: new InMemoryAuditStore(), secrets: secrets() });
    const one = async (i: number) => {
      (await log.append(input(i)))._unsafeUnwrap();
      const start = performance.now();
      (await log.checkpoint('bench'))._unsafeUnwrap();
      return performance.now() - start;
    };
    const rows: BenchRow[] = [];
    let i = 0;
    for (const [name, stored] of [
      ['checkpoint with 10 stored before', 10],
      [`checkpoint with ${HISTORY.toLocaleString('en-US')} stored before`, HISTORY],
    ] as const) {
      while (i < stored) await one(i++);
      const samples: number[] = [];
      for (let k = 0; k < 20; k++) samples.push(await one(i++));
      const p50 = percentile(samples, 50);
      rows.push({ name, opsPerSec: 1000 / p50, p50Ms: p50, unit: 'checkpoint', note: '20 samples' });
    }
    return rows;
  },
};

export default [verifySuite, appendSuite, checkpointSuite, historySuite];
