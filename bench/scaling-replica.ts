/**
 * `pnpm tsx bench/scaling-replica.ts` (BENCH_PRIMARY_URL, BENCH_REPLICA_URL; `bench/scaling-replica.sh`
 * sets up a private primary and streaming standby and runs this): audit reads on a read replica.
 *
 * On the primary, `createAuditLog` + store-kysely append `BENCH_REPLICA_APPENDS` (default 2,000)
 * entries to one tenant in batches of 50; meanwhile the replica is polled for the tenant's entry
 * count, which gives the replication lag as a reader sees it (time from a batch's commit on the
 * primary to its rows being visible on the replica). Then, on the replica only: the audit query
 * the API serves (`store.audit.query`, the GET /audit page), a full `verifyTenant` (deep) — the
 * chain read from the replica verifies, with the same keys — and the proof that the replica is
 * read-only (an append there fails; nothing is written).
 */
import { randomBytes } from 'node:crypto';
import { createAuditLog, ensureAuditKeysOrThrow, verifyTenant } from '@agentgov/audit';
import { InMemorySecretStore } from '@agentgov/core';
import { openStore, sql } from '@agentgov/store-kysely';
import { input } from './audit-sql.bench';
import { percentile } from './lib';

const PRIMARY = process.env.BENCH_PRIMARY_URL as string;
const REPLICA = process.env.BENCH_REPLICA_URL as string;
const APPENDS = Number(process.env.BENCH_REPLICA_APPENDS ?? 2000);
const BATCH = 50;
if (!PRIMARY || !REPLICA) throw new Error('BENCH_PRIMARY_URL and BENCH_REPLICA_URL are required');

const schema = `agentgov_replica_${randomBytes(4).toString('hex')}`;
const tenant = 'replica-tenant';
const primary = await openStore({ database: PRIMARY, schema });
const secrets = new InMemorySecretStore();
await ensureAuditKeysOrThrow(secrets);
const log = createAuditLog({ store: primary.audit, secrets });
// The schema and its tables reach the replica through the WAL like any write.
const replica = await openStore({ database: REPLICA, schema, migrate: false });
const countOn = async (s: typeof replica) =>
  Number(
    (
      await sql<{ n: string }>`SELECT count(*) AS n FROM audit_entries WHERE tenant_id = ${tenant}`.execute(
        s.db,
      )
    ).rows[0]?.n ?? 0,
  );
try {
  const lags: number[] = [];
  for (let done = 0; done < APPENDS; done += BATCH) {
    const result = await log.appendBatch(Array.from({ length: BATCH }, (_, i) => input(tenant, done + i)));
    if (result.isErr()) throw result.error;
    const committed = performance.now();
    for (;;) {
      // waits until the replica shows this batch; schema visibility included on the first
      const seen = await countOn(replica).catch(() => -1);
      if (seen >= done + BATCH) break;
      await new Promise((r) => setTimeout(r, 1));
    }
    lags.push(performance.now() - committed);
  }
  console.log(
    `replication lag seen by a reader, ${lags.length} batches of ${BATCH}: p50 ${percentile(lags, 50).toFixed(1)} ms, ` +
      `p99 ${percentile(lags, 99).toFixed(1)} ms, max ${Math.max(...lags).toFixed(1)} ms`,
  );
  const { rows: recovery } = await sql<{ r: boolean }>`SELECT pg_is_in_recovery() AS r`.execute(replica.db);
  console.log(`replica in recovery (a standby): ${recovery[0]?.r}`);

  const t0 = performance.now();
  const page = await replica.audit.query(tenant, { actionType: 'tool_invocation' }, { offset: 0, limit: 20 });
  console.log(
    `audit query on the replica: ${page.records.length} of ${page.total} entries in ${(performance.now() - t0).toFixed(1)} ms`,
  );
  const t1 = performance.now();
  const report = await verifyTenant(replica.audit, tenant, { secrets });
  console.log(
    `verifyTenant on the replica: ok ${report.ok}, ${report.checked} entries checked, identifiers ${report.identifiers}, ` +
      `${(performance.now() - t1).toFixed(0)} ms`,
  );
  const onReplica = createAuditLog({ store: replica.audit, secrets });
  const refused = await onReplica.append(input(tenant, APPENDS + 1));
  console.log(
    `append on the replica: ${refused.isErr() ? `refused (${String(((refused.error as Error).cause as Error | undefined)?.message ?? (refused.error as Error).message).slice(0, 80)})` : 'ACCEPTED (unexpected)'}; ` +
      `entries on the primary ${await countOn(primary)}, on the replica ${await countOn(replica)}`,
  );
  if (!report.ok || refused.isOk()) process.exitCode = 1;
} finally {
  await replica.close();
  await sql`DROP SCHEMA IF EXISTS ${sql.id(schema)} CASCADE`.execute(primary.db).catch(() => {});
  await primary.close();
}
