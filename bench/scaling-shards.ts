/**
 * `pnpm tsx bench/scaling-shards.ts`: a simulation of docs/scaling.md's plan past one PostgreSQL —
 * Citus distributing the tenant-keyed tables by `tenant_id` — that answers "how evenly does the
 * per-tenant load split over K worker nodes?" without Citus (not installable here) and without
 * building any sharding layer.
 *
 * Placement as Citus does it for a hash-distributed table: the value's hash is PostgreSQL's own
 * hash function of the column type (`hashtext` for `text`, computed here by the PostgreSQL of
 * BENCH_DATABASE_URL / TEST_DATABASE_URL / the local default), the 2^32 hash range is cut into
 * `citus.shard_count` equal ranges (default 32), and the shards go round-robin to the workers.
 *
 * Tenant load: `TENANTS` (default 5,000) tenants whose audit appends follow a Zipf law (rank r
 * gets weight 1/r^s, s = 1.1 — a few large enterprises, a long tail of small ones), and a
 * uniform law for comparison. Printed per K (2, 4, 8, 16) and shard count (32, 128): the busiest
 * worker's share of the load against the fair 1/K, max/mean, and the largest tenant's share — a
 * single tenant is one chain and never splits, so it bounds the balance from below.
 */
import { openStore, sql } from '@agentgov/store-kysely';
import { benchDatabaseUrl } from './lib';

const TENANTS = Number(process.env.TENANTS ?? 5000);
const ZIPF_S = 1.1;

/** Shard index of a 32-bit signed hash among `shards` equal hash ranges (Citus' uniform split). */
const shardOf = (hash: number, shards: number) => Math.floor(((hash + 2 ** 31) * shards) / 2 ** 32);

/** Like `split`, with the largest tenant (index 0) alone on a worker of its own (Citus tenant isolation). */
function isolated(hashes: number[], weights: number[], shards: number, workers: number): number {
  const rest = split(hashes.slice(1), weights.slice(1), shards, workers - 1);
  const total = weights.reduce((a, b) => a + b, 0);
  const restMax = rest.busiest * (total - (weights[0] as number));
  return Math.max(weights[0] as number, restMax) / (total / workers);
}

function split(hashes: number[], weights: number[], shards: number, workers: number) {
  const load = new Array<number>(workers).fill(0);
  const tenants = new Array<number>(workers).fill(0);
  hashes.forEach((h, i) => {
    const worker = shardOf(h, shards) % workers; // round-robin shard placement
    load[worker] = (load[worker] as number) + (weights[i] as number);
    tenants[worker] = (tenants[worker] as number) + 1;
  });
  const total = load.reduce((a, b) => a + b, 0);
  const max = Math.max(...load);
  return {
    busiest: max / total,
    maxOverMean: max / (total / workers),
    tenantsMin: Math.min(...tenants),
    tenantsMax: Math.max(...tenants),
  };
}

const store = await openStore({ database: benchDatabaseUrl().url, migrate: false });
try {
  const ids = Array.from({ length: TENANTS }, (_, i) => `tenant-${String(i + 1).padStart(5, '0')}`);
  const { rows } = await sql<{
    h: number;
  }>`SELECT hashtext(x) AS h FROM unnest(${ids}::text[]) WITH ORDINALITY AS t(x, n) ORDER BY n`.execute(
    store.db,
  );
  const hashes = rows.map((r) => Number(r.h));
  // Zipf weights by rank; the ranks are shuffled against the ids by the hash itself (ids carry no order).
  const zipf = ids.map((_, i) => 1 / (i + 1) ** ZIPF_S);
  const zipfTotal = zipf.reduce((a, b) => a + b, 0);
  const uniform = ids.map(() => 1);
  console.log(
    `${TENANTS} tenants; Zipf s=${ZIPF_S}: the largest tenant carries ${((100 * (zipf[0] as number)) / zipfTotal).toFixed(1)}% ` +
      `of the load, the top 10 ${((100 * zipf.slice(0, 10).reduce((a, b) => a + b, 0)) / zipfTotal).toFixed(1)}%, ` +
      `the top 1% ${((100 * zipf.slice(0, TENANTS / 100).reduce((a, b) => a + b, 0)) / zipfTotal).toFixed(1)}%`,
  );
  console.log(
    '| workers K | shards | fair share | busiest worker, Zipf | max/mean, Zipf | max/mean, Zipf, largest tenant isolated | max/mean, uniform | tenants per worker (min–max) |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  for (const shards of [32, 128]) {
    for (const workers of [2, 4, 8, 16]) {
      const z = split(hashes, zipf, shards, workers);
      const u = split(hashes, uniform, shards, workers);
      console.log(
        `| ${workers} | ${shards} | ${(100 / workers).toFixed(1)}% | ${(100 * z.busiest).toFixed(1)}% | ` +
          `${z.maxOverMean.toFixed(2)} | ${isolated(hashes, zipf, shards, workers).toFixed(2)} | ${u.maxOverMean.toFixed(2)} | ${z.tenantsMin}–${z.tenantsMax} |`,
      );
    }
  }
} finally {
  await store.close();
}
