/**
 * `pnpm bench chain-ceiling`: the per-tenant audit chain is the one serialization point of the
 * service (every append of a tenant links to that tenant's head). On PostgreSQL, appends per
 * second for ONE tenant with N concurrent appenders (1, 4, 16, 64 — `BENCH_CHAIN_APPENDERS`), and
 * for MANY tenants (16 tenants × 4 appenders), through the real `createAuditLog` + store-kysely.
 *
 * An appender is what a server instance is: its own `createAuditLog`, its own audit store (so its
 * own group committer) and its own connection (pool of 1), appending one entry at a time in a
 * loop for `BENCH_CHAIN_SECONDS` (default 5). Appenders of one tenant therefore meet only at the
 * tenant's head row in PostgreSQL (compare-and-set, then the locking protocol when it lost) —
 * the cross-instance case. A second row per concurrency runs the same N callers on ONE instance
 * (the in-process group commit shares round trips).
 *
 * Baseline: plain single-row INSERTs of equivalent rows into the same table (same indexes, no
 * hashing, no lock) by the same number of connections for the same time. After each case the
 * rows are counted (every acknowledged append stored, nothing else) and every chain verified
 * (`verifyTenant`); a mismatch fails the suite. Rows: appends/s, p50/p99 of one append.
 */
import { randomBytes } from 'node:crypto';
import { createAuditLog, ensureAuditKeysOrThrow, verifyTenant } from '@agentgov/audit';
import { InMemorySecretStore } from '@agentgov/core';
import { openStore, type SqlStores, sql } from '@agentgov/store-kysely';
import { input, plainInsert } from './audit-sql.bench';
import { type BenchRow, type BenchSuite, benchDatabaseUrl, percentile } from './lib';

const database = benchDatabaseUrl();
const SECONDS = Number(process.env.BENCH_CHAIN_SECONDS ?? 5);
const APPENDERS = (process.env.BENCH_CHAIN_APPENDERS ?? '1,4,16,64').split(',').map(Number);

interface Outcome {
  done: number;
  errors: number;
  latencies: number[];
  ms: number;
}

/** Runs `workers` loops of `op` for SECONDS; counts what was acknowledged and what failed. */
async function drive(workers: number, op: (worker: number, i: number) => Promise<void>): Promise<Outcome> {
  const latencies: number[] = [];
  let errors = 0;
  let next = 0; // a unique number per operation (request ids, row ids)
  const start = performance.now();
  const end = start + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: workers }, async (_, w) => {
      while (performance.now() < end) {
        const t = performance.now();
        try {
          await op(w, next++);
          latencies.push(performance.now() - t);
        } catch {
          errors++;
        }
      }
    }),
  );
  return { done: latencies.length, errors, latencies, ms: performance.now() - start };
}

const row = (name: string, o: Outcome, note: string): BenchRow => ({
  name,
  opsPerSec: (o.done / o.ms) * 1000,
  p50Ms: percentile(o.latencies, 50),
  p99Ms: percentile(o.latencies, 99),
  unit: 'append',
  note: `${o.done} in ${(o.ms / 1000).toFixed(1)} s, ${o.errors} errors${note ? `; ${note}` : ''}`,
});

/** Rows stored per tenant of `tenants`, and whether every chain verifies. */
async function check(
  admin: SqlStores,
  secrets: InMemorySecretStore,
  tenants: string[],
): Promise<{ stored: number; verified: boolean }> {
  let stored = 0;
  let verified = true;
  for (const tenant of tenants) {
    const { rows } = await sql<{
      n: string;
    }>`SELECT count(*) AS n FROM audit_entries WHERE tenant_id = ${tenant}`.execute(admin.db);
    stored += Number(rows[0]?.n ?? 0);
    const report = await verifyTenant(admin.audit, tenant, { secrets });
    verified &&= report.ok && report.firstBreak === undefined;
  }
  return { stored, verified };
}

/** One suite: `tenants` tenants × `perTenant` appenders (the baseline uses as many connections). */
function ceilingSuite(tenants: number, perTenant: number): BenchSuite {
  const n = tenants * perTenant;
  const baseline = `plain INSERT ×1, ${n} connections`;
  const what =
    tenants === 1
      ? `1 tenant, ${perTenant} appender${perTenant === 1 ? '' : 's'}`
      : `${tenants} tenants × ${perTenant} appenders`;
  return {
    name: `chain ceiling: ${what} (postgres from ${database.source}, ${SECONDS} s per case)`,
    baseline,
    async run(): Promise<BenchRow[]> {
      const schema = `agentgov_bench_${randomBytes(4).toString('hex')}`;
      const admin = await openStore({ database: database.url, schema, pool: { max: 2 } });
      const secrets = new InMemorySecretStore();
      await ensureAuditKeysOrThrow(secrets);
      const run = randomBytes(3).toString('hex');
      const rows: BenchRow[] = [];
      try {
        // Baseline: n connections, single-row plain INSERTs.
        const plain = await openStore({ database: database.url, schema, migrate: false, pool: { max: n } });
        try {
          const o = await drive(n, (w) => plainInsert(plain, `plain-${run}-${w % tenants}`, 1));
          rows.push(row(baseline, o, ''));
        } finally {
          await plain.close();
        }

        // n instances: each its own store, connection and audit log.
        const names = Array.from({ length: tenants }, (_, t) => `inst-${run}-${t}`);
        const instances = await Promise.all(
          Array.from({ length: n }, () =>
            openStore({ database: database.url, schema, migrate: false, pool: { max: 1 } }),
          ),
        );
        try {
          const logs = instances.map((s) => createAuditLog({ store: s.audit, secrets }));
          const o = await drive(n, async (w, i) => {
            const result = await (logs[w] as (typeof logs)[number]).append(
              input(names[w % tenants] as string, i),
            );
            if (result.isErr()) throw result.error;
          });
          const seen = await check(admin, secrets, names);
          if (seen.stored !== o.done || !seen.verified)
            throw new Error(
              `${what}: ${o.done} acknowledged, ${seen.stored} stored, verified ${seen.verified}`,
            );
          rows.push(
            row(
              `audit append ×1, ${n} instance${n === 1 ? '' : 's'}`,
              o,
              `${seen.stored} rows stored, every chain verifies`,
            ),
          );
        } finally {
          await Promise.all(instances.map((s) => s.close()));
        }

        // One instance, n concurrent callers (in-process group commit), pool of `tenants` × 1.
        const one = await openStore({
          database: database.url,
          schema,
          migrate: false,
          pool: { max: tenants },
        });
        try {
          const log = createAuditLog({ store: one.audit, secrets });
          const grouped = names.map((name) => name.replace('inst-', 'one-'));
          const o = await drive(n, async (w, i) => {
            const result = await log.append(input(grouped[w % tenants] as string, i));
            if (result.isErr()) throw result.error;
          });
          const seen = await check(admin, secrets, grouped);
          if (seen.stored !== o.done || !seen.verified)
            throw new Error(
              `${what}: ${o.done} acknowledged, ${seen.stored} stored, verified ${seen.verified}`,
            );
          rows.push(
            row(
              `audit append ×1, 1 instance, ${n} callers`,
              o,
              `${seen.stored} rows stored, every chain verifies`,
            ),
          );
        } finally {
          await one.close();
        }
        return rows;
      } finally {
        await sql`DROP SCHEMA IF EXISTS ${sql.id(schema)} CASCADE`.execute(admin.db).catch(() => {});
        await admin.close();
      }
    },
  };
}

export default [...APPENDERS.map((n) => ceilingSuite(1, n)), ceilingSuite(16, 4)] satisfies BenchSuite[];
