/**
 * `pnpm bench audit-sql`: the SQL audit store (`@agentgov/store-kysely`).
 *
 * - Append throughput on PostgreSQL and PGlite, single and batched (50), through
 *   `@agentgov/audit`'s createAuditLog (validation, identifier commitments, hashing, the tenant
 *   lock) — and through `store.append` with pre-hashed records — against a plain multi-row INSERT
 *   of equivalent rows into the same table without hashing or locking (the baseline: the same
 *   indexes on `audit_entries`, each row with a leaf of the log's size, as every row the log
 *   writes has one since migration 0009; it does not write the request-id lookup rows or move
 *   the head as the store does). The same INSERT without the leaf is a row of its own (what a
 *   row cost before 0009).
 *   The cases run in interleaved rounds (`BENCH_AUDIT_SQL_ROUNDS`, default 9) and each row is the
 *   case's fastest round (median in the note), so a machine whose load moves during the run weighs
 *   on every case alike.
 * Query latency, verify, proofs and memory over 1,000,000 entries: `audit-big.bench.ts`.
 *
 * PostgreSQL: BENCH_DATABASE_URL, else TEST_DATABASE_URL, else the local default (named in the
 * suite titles); every suite works
 * in its own schema and drops it afterwards.
 */
import { randomBytes } from 'node:crypto';
import { createAuditLog, ensureAuditKeysOrThrow } from '@agentgov/audit';
import { type AuditEntryInput, type AuditRecord, InMemorySecretStore } from '@agentgov/core';
import { openStore, type SqlStores, sql } from '@agentgov/store-kysely';
import { type BenchRow, type BenchSuite, benchDatabaseUrl } from './lib';

const database = benchDatabaseUrl();
const DATABASE_URL = database.url;
const BATCH = 50;
const BATCHES = 20; // 1,000 entries per batched round
const SINGLES = 200; // per single round

const schemaName = () => `agentgov_bench_${randomBytes(4).toString('hex')}`;

export const input = (tenantId: string, i: number): AuditEntryInput => ({
  tenantId,
  userId: `user-${i % 100}`,
  actionType: 'tool_invocation',
  actionDetail: { tool: 'tracker_update', ticketId: `T-${i}`, initiatorUserId: `user-${i % 100}` },
  dataAccessed: [{ source: 'tracker', classification: 'internal', purpose: 'update' }],
  modelUsed: 'model-x',
  modelTokens: { input: 120, output: 40 },
  dataClassification: 'internal',
  policyApplied: 'policy-actions',
  policyResult: 'allow',
  policyReason: '',
  outcome: 'success',
  requestId: `req-${i}`,
});

let counter = 0;

/**
 * A leaf like the log's (the canonical JSON the hash covers: the commitments, the entry with its
 * identifiers committed, prevHash and seq; ~0.9 kB): since migration 0009 every row the log
 * writes keeps one, so the rows of the baseline and of the store-only case carry one too.
 */
function leafOf(e: AuditEntryInput, id: string, timestamp: string, seq: number, prevHash: string): string {
  const userId = 'c'.repeat(64);
  const initiator = 'd'.repeat(64);
  return JSON.stringify({
    commitments: { 'actionDetail.initiatorUserId': initiator, userId },
    entry: { ...e, actionDetail: { ...e.actionDetail, initiatorUserId: initiator }, id, timestamp, userId },
    prevHash,
    seq,
  });
}

/** Rows equivalent to what the log stores (synthetic hashes; a leaf unless `leaf` is false), for the plain-INSERT baseline. */
function plainRows(tenantId: string, n: number, leaf: boolean) {
  return Array.from({ length: n }, () => {
    const i = ++counter;
    const e = input(tenantId, i);
    const id = `01J${String(i).padStart(23, '0')}`;
    const timestamp = new Date().toISOString();
    const prevHash = '0'.repeat(64);
    return sql`(${tenantId}, ${i}, ${id}, ${e.userId}, ${timestamp}::timestamptz,
      ${e.actionType}, ${JSON.stringify(e.actionDetail)}::jsonb, ${JSON.stringify(e.dataAccessed)}::jsonb, ${e.modelUsed},
      ${JSON.stringify(e.modelTokens)}::jsonb, ${e.dataClassification}, ${e.policyApplied}, ${e.policyResult}, ${e.policyReason},
      ${e.outcome}, ${e.requestId}, ${prevHash}, ${'a'.repeat(64)}, ${JSON.stringify({ userId: 'c'.repeat(64), 'actionDetail.initiatorUserId': 'd'.repeat(64) })}::jsonb,
      ${leaf ? leafOf(e, id, timestamp, i, prevHash) : null})`;
  });
}

/** The baseline: one plain multi-row INSERT of `n` equivalent rows (with their leaves unless `leaf` is false). */
export async function plainInsert(s: SqlStores, tenantId: string, n: number, leaf = true): Promise<void> {
  await sql`INSERT INTO audit_entries (tenant_id, seq, id, user_id, "timestamp", action_type, action_detail,
    data_accessed, model_used, model_tokens, data_classification, policy_applied, policy_result, policy_reason,
    outcome, request_id, prev_hash, hash, commitments, leaf) VALUES ${sql.join(plainRows(tenantId, n, leaf))}`.execute(
    s.db,
  );
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * A ULID of the time `ms` (the tail from the counter `i`), as the log makes for every entry at its
 * clock: an id that tells the entry's partition, so the store writes no `audit_id_index` row for it
 * (the synthetic ids of the plain rows do not, and the store-only case listed all of its entries).
 */
function ulidAt(ms: number, i: number): string {
  let time = '';
  for (let k = 0, t = ms; k < 10; k++, t = Math.floor(t / 32)) time = CROCKFORD[t % 32] + time;
  return `${time}${String(i).padStart(16, '0')}`;
}

/** Pre-hashed records with leaves (hashing done outside the measurement) for the store-only case. */
function prebuilt(
  head: { seq: number; hash: string } | undefined,
  tenantId: string,
  n: number,
): AuditRecord[] {
  let seq = head?.seq ?? 0;
  let prev = head?.hash ?? '0'.repeat(64);
  return Array.from({ length: n }, () => {
    const i = ++counter;
    const hash = randomBytes(32).toString('hex');
    const e = input(tenantId, i);
    const now = Date.now();
    const id = ulidAt(now, i);
    const timestamp = new Date(now).toISOString();
    seq++;
    const record: AuditRecord = {
      entry: { ...e, id, timestamp } as AuditRecord['entry'],
      seq,
      prevHash: prev,
      hash,
      commitments: { userId: 'c'.repeat(64) },
      leaf: leafOf(e, id, timestamp, seq, prev),
    };
    prev = hash;
    return record;
  });
}

/** Throughput rounds per case, interleaved (plain, log, store, plain, log, store, …). */
const ROUNDS = Number(process.env.BENCH_AUDIT_SQL_ROUNDS ?? 9);

/**
 * Runs every case once per round, the cases interleaved, after one warm-up round; a case's row is
 * its fastest round (entries per second), the one least disturbed by other work on a shared
 * machine, with the median and the range of its rounds in the note. Every case gets the same
 * number of chances, interleaved, so a load that moves during the run weighs on all alike. The
 * note also gives the median over the rounds of the case's rate divided by the baseline's (the
 * first case) in the same round: a round slowed down by other work slows both.
 */
async function interleaved(
  cases: { name: string; entries: number; run: () => Promise<void> }[],
  rounds: number,
): Promise<BenchRow[]> {
  for (const c of cases) await c.run(); // warm-up: JIT, pools, plan caches
  const rates = new Map<string, number[]>(cases.map((c) => [c.name, []]));
  for (let r = 0; r < rounds; r++) {
    for (const c of cases) {
      const start = performance.now();
      await c.run();
      rates.get(c.name)?.push((c.entries / (performance.now() - start)) * 1000);
    }
  }
  const median = (values: number[]) => [...values].sort((x, y) => x - y)[values.length >> 1] as number;
  const base = rates.get((cases[0] as { name: string }).name) as number[];
  return cases.map((c) => {
    const own = rates.get(c.name) as number[];
    const sorted = [...own].sort((x, y) => x - y);
    const paired = median(own.map((rate, r) => rate / (base[r] as number)));
    return {
      name: c.name,
      opsPerSec: sorted.at(-1) as number,
      unit: 'entry',
      note: `fastest of ${rounds} interleaved rounds of ${c.entries} entries (median ${Math.round(median(own))}/s, slowest ${Math.round(sorted[0] as number)}/s; same-round ratio to the baseline, median ${paired.toFixed(2)}x)`,
    };
  });
}

function appendSuite(kind: 'postgres' | 'pglite', mode: 'batched' | 'single'): BenchSuite {
  const size = mode === 'batched' ? BATCH : 1;
  const calls = mode === 'batched' ? BATCHES : SINGLES; // per round
  const perRound = size * calls;
  const baseline = `plain INSERT ×${size}`;
  return {
    name: `audit-sql append ${mode} (${kind === 'postgres' ? `postgres from ${database.source}` : kind})`,
    baseline,
    async run(): Promise<BenchRow[]> {
      const schema = schemaName();
      const s = await openStore({ database: kind === 'postgres' ? DATABASE_URL : 'memory://', schema });
      try {
        const secrets = new InMemorySecretStore();
        await ensureAuditKeysOrThrow(secrets);
        const log = createAuditLog({ store: s.audit, secrets });
        let logged = 0;
        const cases = [
          {
            name: baseline,
            entries: perRound,
            run: async () => {
              for (let r = 0; r < calls; r++) await plainInsert(s, 'plain', size);
            },
          },
          {
            name: `plain INSERT ×${size} without the leaf (the row before migration 0009)`,
            entries: perRound,
            run: async () => {
              for (let r = 0; r < calls; r++) await plainInsert(s, 'plain-no-leaf', size, false);
            },
          },
          {
            name: `audit log ${mode === 'batched' ? `appendBatch ×${size}` : 'append ×1'}`,
            entries: perRound,
            run: async () => {
              for (let r = 0; r < calls; r++, logged += size) {
                const result =
                  mode === 'batched'
                    ? await log.appendBatch(Array.from({ length: size }, (_, i) => input('log', logged + i)))
                    : await log.append(input('log', logged));
                if (result.isErr()) throw result.error;
              }
            },
          },
          {
            name: `store.append pre-hashed ×${size}`,
            entries: perRound,
            run: async () => {
              for (let r = 0; r < calls; r++)
                await s.audit.append('store', (h) => prebuilt(h, 'store', size));
            },
          },
        ];
        if (mode === 'single') {
          // Group commit: 20 callers appending one entry each at once share round trips.
          const callers = 20;
          let concurrent = 0;
          cases.push({
            name: `audit log append ×1, ${callers} concurrent callers`,
            entries: perRound,
            run: async () => {
              const from = concurrent;
              concurrent += perRound;
              await Promise.all(
                Array.from({ length: callers }, async (_, c) => {
                  for (let i = c; i < perRound; i += callers) {
                    const result = await log.append(input('log-concurrent', from + i));
                    if (result.isErr()) throw result.error;
                  }
                }),
              );
            },
          });
        }
        return await interleaved(cases, ROUNDS);
      } finally {
        await sql`DROP SCHEMA IF EXISTS ${sql.id(schema)} CASCADE`.execute(s.db).catch(() => {});
        await s.close();
      }
    },
  };
}

export default [
  appendSuite('postgres', 'batched'),
  appendSuite('postgres', 'single'),
  appendSuite('pglite', 'batched'),
  appendSuite('pglite', 'single'),
] satisfies BenchSuite[];
