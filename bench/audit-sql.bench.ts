/**
 * `pnpm bench audit-sql`: the SQL audit store (`@agentgov/store-kysely`).
 *
 * - Append throughput on PostgreSQL and PGlite, single and batched (50), through
 *   `@agentgov/audit`'s createAuditLog (validation, identifier commitments, hashing, the tenant
 *   lock) — and through `store.append` with pre-hashed records — against a plain multi-row INSERT
 *   of equivalent rows into the same table without hashing or locking (the baseline).
 * Query latency, verify, proofs and memory over 1,000,000 entries: `audit-big.bench.ts`.
 *
 * PostgreSQL: BENCH_DATABASE_URL, else TEST_DATABASE_URL, else the local default (named in the
 * suite titles); every suite works
 * in its own schema and drops it afterwards.
 */
import { randomBytes } from 'node:crypto';
import { createAuditLog, ensureAuditKeys } from '@agentgov/audit';
import { type AuditEntryInput, type AuditRecord, InMemorySecretStore } from '@agentgov/core';
import { openStore, type SqlStores, sql } from '@agentgov/store-kysely';
import { type BenchRow, type BenchSuite, benchDatabaseUrl, throughput } from './lib';

const database = benchDatabaseUrl();
const DATABASE_URL = database.url;
const BATCH = 50;
const BATCHES = 60; // 3,000 entries per batched case
const SINGLES = 600;

const schemaName = () => `agentgov_bench_${randomBytes(4).toString('hex')}`;

const input = (tenantId: string, i: number): AuditEntryInput => ({
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
/** Rows equivalent to what the log stores (synthetic hashes), for the plain-INSERT baseline. */
function plainRows(tenantId: string, n: number) {
  return Array.from({ length: n }, () => {
    const i = ++counter;
    const e = input(tenantId, i);
    return sql`(${tenantId}, ${i}, ${`01J${String(i).padStart(23, '0')}`}, ${e.userId}, ${new Date().toISOString()}::timestamptz,
      ${e.actionType}, ${JSON.stringify(e.actionDetail)}::jsonb, ${JSON.stringify(e.dataAccessed)}::jsonb, ${e.modelUsed},
      ${JSON.stringify(e.modelTokens)}::jsonb, ${e.dataClassification}, ${e.policyApplied}, ${e.policyResult}, ${e.policyReason},
      ${e.outcome}, ${e.requestId}, ${'0'.repeat(64)}, ${'a'.repeat(64)}, ${JSON.stringify({ userId: 'c'.repeat(64), 'actionDetail.initiatorUserId': 'd'.repeat(64) })}::jsonb)`;
  });
}

async function plainInsert(s: SqlStores, tenantId: string, n: number): Promise<void> {
  await sql`INSERT INTO audit_entries (tenant_id, seq, id, user_id, "timestamp", action_type, action_detail,
    data_accessed, model_used, model_tokens, data_classification, policy_applied, policy_result, policy_reason,
    outcome, request_id, prev_hash, hash, commitments) VALUES ${sql.join(plainRows(tenantId, n))}`.execute(
    s.db,
  );
}

/** Pre-hashed records (hashing done outside the measurement) for the store-only case. */
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
    const record: AuditRecord = {
      entry: {
        ...input(tenantId, i),
        id: `01J${String(i).padStart(23, '0')}`,
        timestamp: new Date().toISOString(),
      } as AuditRecord['entry'],
      seq: ++seq,
      prevHash: prev,
      hash,
      commitments: { userId: 'c'.repeat(64) },
    };
    prev = hash;
    return record;
  });
}

function appendSuite(kind: 'postgres' | 'pglite', mode: 'batched' | 'single'): BenchSuite {
  const size = mode === 'batched' ? BATCH : 1;
  const rounds = mode === 'batched' ? BATCHES : SINGLES;
  const total = size * rounds;
  const baseline = `plain INSERT ×${size}`;
  return {
    name: `audit-sql append ${mode} (${kind === 'postgres' ? `postgres from ${database.source}` : kind})`,
    baseline,
    async run(): Promise<BenchRow[]> {
      const schema = schemaName();
      const s = await openStore({ database: kind === 'postgres' ? DATABASE_URL : 'memory://', schema });
      try {
        const secrets = new InMemorySecretStore();
        await ensureAuditKeys(secrets);
        const log = createAuditLog({ store: s.audit, secrets });
        // Warm-up: every path once.
        await plainInsert(s, 'warm-plain', size);
        await log.appendBatch(Array.from({ length: size }, (_, i) => input('warm-log', i)));
        await s.audit.append('warm-store', (h) => prebuilt(h, 'warm-store', size));

        const rows: BenchRow[] = [];
        const plainRun = (name: string) =>
          throughput(
            name,
            total,
            async () => {
              for (let r = 0; r < rounds; r++) await plainInsert(s, 'plain', size);
            },
            'entry',
          );
        const logName = `audit log ${mode === 'batched' ? `appendBatch ×${size}` : 'append ×1'}`;
        let logged = 0;
        const logRun = (name: string) =>
          throughput(
            name,
            total,
            async () => {
              for (let r = 0; r < rounds; r++, logged += size) {
                const result =
                  mode === 'batched'
                    ? await log.appendBatch(Array.from({ length: size }, (_, i) => input('log', logged + i)))
                    : await log.append(input('log', logged));
                if (result.isErr()) throw result.error;
              }
            },
            'entry',
          );
        rows.push(await plainRun(baseline));
        rows.push(await logRun(logName));
        rows.push(
          await throughput(
            `store.append pre-hashed ×${size}`,
            total,
            async () => {
              for (let r = 0; r < rounds; r++)
                await s.audit.append('store', (h) => prebuilt(h, 'store', size));
            },
            'entry',
          ),
        );
        // Second pass, once every path has run `total` times (JIT-compiled, pools and caches warm):
        // the steady state of a long-running process. Compare these two rows with each other.
        rows.push(await plainRun(`${baseline}, 2nd pass`));
        rows.push(await logRun(`${logName}, 2nd pass`));
        if (mode === 'single') {
          // Group commit: 20 callers appending one entry each at once share round trips.
          const callers = 20;
          rows.push(
            await throughput(
              `audit log append ×1, ${callers} concurrent callers`,
              total,
              async () => {
                await Promise.all(
                  Array.from({ length: callers }, async (_, c) => {
                    for (let i = c; i < total; i += callers) {
                      const result = await log.append(input('log-concurrent', i));
                      if (result.isErr()) throw result.error;
                    }
                  }),
                );
              },
              'entry',
            ),
          );
        }
        return rows;
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
