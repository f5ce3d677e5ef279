/**
 * `pnpm bench --only audit-big`: the audit log at scale on PostgreSQL, over one tenant of
 * BENCH_AUDIT_ROWS (default 1,000,000) valid chained entries spread over the past year.
 *
 * - verify of the first BENCH_AUDIT_VERIFY_ROWS (default 100,000) entries against a plain keyset
 *   scan of the same rows (the least a verifier must do: read them), in BENCH_AUDIT_VERIFY_ROUNDS
 *   (default 3) interleaved rounds: the median round, with this process's CPU per entry;
 * - query latency p50/p99 (tenant + user + time, action type + time, request id, get by id);
 * - inclusion-proof time and size at the full size (the first, which reads every hash, and later
 *   ones, which reuse the cached block roots), against a plain scan of the same hashes;
 * - peak RSS of a JSON export and of a verify, at 100,000 and at the full size, each in its own
 *   child process (this file, re-run with AUDIT_BIG_CHILD set): bounded memory means the two
 *   sizes show about the same RSS.
 *
 * Seeding computes the records in-process (ULID ids timed like their timestamps, HMAC
 * commitments, the canonical hash chain) and loads them with INSERT … SELECT FROM
 * jsonb_to_recordset in chunks. The seeded schema (`agentgov_bench_big_v<SEED_VERSION>_<rows>`)
 * is kept, so reruns do not reseed; drop it (or bump SEED_VERSION) to reseed.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  commitmentOf,
  createAuditLog,
  deriveTenantKey,
  exportStream,
  generateAuditKeys,
  recordHashInput,
  sha256Hex,
  verifyTenant,
} from '@agentgov/audit';
import { type AuditEntry, type AuditRecord, InMemorySecretStore } from '@agentgov/core';
import { openStore, type SqlStores, sql } from '@agentgov/store-kysely';
// The verifier's worker knobs (not exported from the package; the module the package's index loads).
import { merkleWorkers } from '../packages/audit/src/merkle-worker';
import { type BenchRow, type BenchSuite, benchDatabaseUrl, percentile, throughput } from './lib';

/** 2: rows carry their leaf (migration 0009), as the store writes them. */
const SEED_VERSION = 2;
const database = benchDatabaseUrl();
const ROWS = Number(process.env.BENCH_AUDIT_ROWS ?? 1_000_000);
const VERIFY_ROWS = Math.min(ROWS, Number(process.env.BENCH_AUDIT_VERIFY_ROWS ?? 100_000));
const SCHEMA = `agentgov_bench_big_v${SEED_VERSION}_${ROWS}`;
const TENANT = 'bench';
const USERS = 1000;
const YEAR_MS = 365 * 24 * 3600 * 1000;
const GENESIS = '0'.repeat(64);
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

function ulidAt(ms: number): string {
  let time = '';
  for (let i = 9, t = ms; i >= 0; i--, t = Math.floor(t / 32)) time = CROCKFORD[t % 32] + time;
  const random = randomBytes(16);
  let rest = '';
  for (const b of random) rest += CROCKFORD[b % 32];
  return time + rest;
}

const ACTIONS = ['tool_invocation', 'data_access', 'model_call', 'policy_decision'] as const;

interface Seeded {
  stores: SqlStores;
  secrets: InMemorySecretStore;
  /** Time span of the entries (ms since epoch). */
  start: number;
  end: number;
  seededNow: boolean;
  seedMs: number;
}

let seeded: Promise<Seeded> | undefined;
/** Opens the cached schema, seeding it first when it is missing or incomplete. */
function seed(): Promise<Seeded> {
  seeded ??= (async () => {
    const stores = await openStore({ database: database.url, schema: SCHEMA });
    await sql`CREATE TABLE IF NOT EXISTS bench_seed (version int PRIMARY KEY, rows bigint NOT NULL,
      start_ms bigint NOT NULL, end_ms bigint NOT NULL, keys text NOT NULL, done boolean NOT NULL)`.execute(
      stores.db,
    );
    const { rows } = await sql<{
      rows: string;
      start_ms: string;
      end_ms: string;
      keys: string;
      done: boolean;
    }>`
      SELECT rows::text, start_ms::text, end_ms::text, keys, done FROM bench_seed WHERE version = ${SEED_VERSION}`.execute(
      stores.db,
    );
    const found = rows[0];
    if (found?.done && Number(found.rows) === ROWS) {
      const keys = JSON.parse(found.keys) as Record<string, string>;
      return {
        stores,
        secrets: new InMemorySecretStore(keys),
        start: Number(found.start_ms),
        end: Number(found.end_ms),
        seededNow: false,
        seedMs: 0,
      };
    }
    if (found)
      throw new Error(`schema ${SCHEMA} holds an incomplete seed: DROP SCHEMA ${SCHEMA} CASCADE and rerun`);
    const began = performance.now();
    const generated = await generateAuditKeys();
    const keys = {
      'audit-commitment-key': generated.commitmentKey,
      'audit-signing-key': generated.signingKey,
    };
    const end = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), 1); // stable within a month
    const start = end - YEAR_MS;
    await sql`INSERT INTO bench_seed VALUES (${SEED_VERSION}, ${ROWS}, ${start}, ${end}, ${JSON.stringify(keys)}, false)`.execute(
      stores.db,
    );
    await stores.ensurePartitions(new Date(start));
    const tenantKey = deriveTenantKey(generated.commitmentKey, TENANT);
    const userCommitments = Array.from({ length: USERS }, (_, u) => commitmentOf(tenantKey, `user-${u}`));
    let prevHash = GENESIS;
    const CHUNK = 5000;
    for (let from = 1; from <= ROWS; from += CHUNK) {
      const chunk: Record<string, unknown>[] = [];
      for (let seq = from; seq < Math.min(from + CHUNK, ROWS + 1); seq++) {
        const ms = start + Math.floor(((seq - 1) / ROWS) * YEAR_MS);
        const user = `user-${seq % USERS}`;
        const entry: AuditEntry = {
          id: ulidAt(ms),
          tenantId: TENANT,
          userId: user,
          timestamp: new Date(ms).toISOString(),
          actionType: ACTIONS[seq % 4] as AuditEntry['actionType'],
          actionDetail: { tool: 'tracker_update', ticketId: `T-${seq}`, initiatorUserId: user },
          dataAccessed: [{ source: 'tracker', classification: 'internal', purpose: 'update' }],
          modelUsed: 'model-x',
          modelTokens: { input: 120, output: 40 },
          dataClassification: 'internal',
          policyApplied: 'policy-actions',
          policyResult: 'allow',
          policyReason: '',
          outcome: 'success',
          requestId: `req-${seq}`,
        };
        const c = userCommitments[seq % USERS] as string;
        const record: AuditRecord = {
          entry,
          seq,
          prevHash,
          hash: '',
          commitments: { userId: c, 'actionDetail.initiatorUserId': c },
        };
        const leaf = recordHashInput(record);
        record.hash = sha256Hex(leaf);
        prevHash = record.hash;
        chunk.push({
          tenant_id: TENANT,
          seq,
          id: entry.id,
          user_id: entry.userId,
          timestamp: entry.timestamp,
          action_type: entry.actionType,
          action_detail: entry.actionDetail,
          data_accessed: entry.dataAccessed,
          model_used: entry.modelUsed,
          model_tokens: entry.modelTokens,
          data_classification: entry.dataClassification,
          policy_applied: entry.policyApplied,
          policy_result: entry.policyResult,
          policy_reason: entry.policyReason,
          outcome: entry.outcome,
          request_id: entry.requestId,
          prev_hash: record.prevHash,
          hash: record.hash,
          commitments: record.commitments,
          leaf,
        });
      }
      await sql`INSERT INTO audit_entries (tenant_id, seq, id, user_id, "timestamp", action_type, action_detail,
          data_accessed, model_used, model_tokens, data_classification, policy_applied, policy_result, policy_reason,
          outcome, request_id, prev_hash, hash, commitments, leaf)
        SELECT * FROM jsonb_to_recordset(${JSON.stringify(chunk)}::jsonb) AS r(tenant_id text, seq bigint, id text,
          user_id text, "timestamp" timestamptz, action_type text, action_detail jsonb, data_accessed jsonb,
          model_used text, model_tokens jsonb, data_classification text, policy_applied text, policy_result text,
          policy_reason text, outcome text, request_id text, prev_hash text, hash text, commitments jsonb,
          leaf text)`.execute(stores.db);
    }
    await sql`INSERT INTO audit_chain_heads (tenant_id, seq, hash) VALUES (${TENANT}, ${ROWS}, ${prevHash})`.execute(
      stores.db,
    );
    // The lookup rows of get by id / by request id, which the store writes with each append.
    await sql`SELECT audit_rebuild_lookups()`.execute(stores.db);
    await sql`ANALYZE audit_entries`.execute(stores.db);
    await sql`ANALYZE audit_request_index`.execute(stores.db);
    await sql`ANALYZE audit_id_index`.execute(stores.db);
    await sql`UPDATE bench_seed SET done = true WHERE version = ${SEED_VERSION}`.execute(stores.db);
    return {
      stores,
      secrets: new InMemorySecretStore(keys),
      start,
      end,
      seededNow: true,
      seedMs: performance.now() - began,
    };
  })();
  return seeded;
}

const seedNote = (s: Seeded) =>
  s.seededNow
    ? `seeded ${ROWS.toLocaleString('en-US')} entries in ${(s.seedMs / 1000).toFixed(0)} s`
    : `cached seed ${SCHEMA}`;

/**
 * The columns a record is read from (what `store.scan` reads): every entry column and the chain's,
 * not the leaf (which only the verifier reads).
 */
const RECORD_COLUMNS = sql`tenant_id, id, user_id, "timestamp", action_type, action_detail, data_accessed,
  model_used, model_tokens, data_classification, policy_applied, policy_result, policy_reason, outcome,
  request_id, prev_hash, hash, commitments`;

/** Keyset pages of `batch` rows of the same columns the store reads, rows dropped. */
async function plainScan(
  s: SqlStores,
  toSeq: number,
  batch = 1000,
  columns = RECORD_COLUMNS,
): Promise<number> {
  let last = 0;
  let n = 0;
  for (;;) {
    const { rows } = await sql<{
      last_seq: string;
    }>`SELECT seq::text AS last_seq, ${columns} FROM audit_entries
      WHERE tenant_id = ${TENANT} AND seq > ${last} AND seq <= ${toSeq} ORDER BY seq LIMIT ${batch}`.execute(
      s.db,
    );
    n += rows.length;
    const tail = rows.at(-1);
    if (!tail || rows.length < batch) return n;
    last = Number(tail.last_seq);
  }
}

const VERIFY_ROUNDS = Math.max(1, Number(process.env.BENCH_AUDIT_VERIFY_ROUNDS ?? 3));

/**
 * Runs the cases in `rounds` interleaved rounds (so load that moves during the run weighs on every
 * case alike); each row is the case's median round, its note the rounds' Node CPU per entry (this
 * process only: PostgreSQL's share runs in its backend).
 */
async function interleaved(
  count: number,
  cases: readonly (readonly [string, () => Promise<unknown>])[],
  rounds: number,
): Promise<BenchRow[]> {
  const ms = cases.map(() => [] as number[]);
  const cpu = cases.map(() => [] as number[]);
  for (let round = 0; round < rounds; round++) {
    for (const [i, [, work]] of cases.entries()) {
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      await work();
      (ms[i] as number[]).push(performance.now() - t0);
      const used = process.cpuUsage(cpu0);
      (cpu[i] as number[]).push((used.user + used.system) / count);
    }
  }
  return cases.map(([name], i) => {
    const median = percentile(ms[i] as number[], 50);
    return {
      name,
      opsPerSec: (count / median) * 1000,
      unit: 'entry',
      note: `median of ${rounds}: ${count} in ${median.toFixed(0)} ms; Node CPU ${(cpu[i] as number[]).map((c) => c.toFixed(1)).join('/')} µs/entry`,
    };
  });
}

const verifySuite: BenchSuite = {
  name: `audit-big verify on postgres, first ${VERIFY_ROWS.toLocaleString('en-US')} of ${ROWS.toLocaleString('en-US')} entries (postgres from ${database.source})`,
  baseline: 'plain keyset scan (pages of 1000)',
  async run(): Promise<BenchRow[]> {
    const s = await seed();
    const { stores, secrets } = s;
    // Warm-up: every path over the first 10,000.
    await plainScan(stores, 10_000);
    await verifyTenant(stores.audit, TENANT, { toSeq: 10_000, allowUnchecked: true });
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
    const rows = await interleaved(
      VERIFY_ROWS,
      [
        ['plain keyset scan (pages of 1000)', () => plainScan(stores, VERIFY_ROWS)],
        [
          'store.scan (records, next page prefetched)',
          async () => {
            for await (const _ of stores.audit.scan(TENANT, { toSeq: VERIFY_ROWS, batchSize: 1000 })) {
              // read only
            }
          },
        ],
        [
          'verifyTenant leaf-only (deep: false), no commitment key',
          async () => {
            const rep = await verifyTenant(stores.audit, TENANT, {
              toSeq: VERIFY_ROWS,
              allowUnchecked: true,
              deep: false,
            });
            if (!rep.ok || rep.checked !== VERIFY_ROWS || rep.derived !== 0)
              throw new Error(`chain broken: ${JSON.stringify(rep.firstBreak)}`);
          },
        ],
        [
          'verifyTenant leaf-only, no commitment key, one thread (Merkle worker off)',
          async () => {
            const threshold = merkleWorkers.threshold;
            merkleWorkers.threshold = Number.POSITIVE_INFINITY;
            try {
              const rep = await verifyTenant(stores.audit, TENANT, {
                toSeq: VERIFY_ROWS,
                allowUnchecked: true,
                deep: false,
              });
              if (!rep.ok || rep.checked !== VERIFY_ROWS) throw new Error('chain broken');
            } finally {
              merkleWorkers.threshold = threshold;
            }
          },
        ],
        [
          'verifyTenant leaf-only (deep: false), with the commitment key',
          async () => {
            const rep = await verifyTenant(stores.audit, TENANT, {
              toSeq: VERIFY_ROWS,
              secrets,
              deep: false,
            });
            if (!rep.ok || rep.derived !== 0) throw new Error('chain broken');
          },
        ],
        [
          'verifyTenant default, deep (columns re-derived, identifiers checked by HMAC)',
          async () => {
            const rep = await verifyTenant(stores.audit, TENANT, { toSeq: VERIFY_ROWS, secrets });
            if (!rep.ok || rep.identifiers !== 'checked' || rep.derived !== VERIFY_ROWS)
              throw new Error('chain broken');
          },
        ],
      ],
      VERIFY_ROUNDS,
    );
    (rows[0] as BenchRow).note += `; load ${load}; ${seedNote(s)}`;
    return rows;
  },
};

async function latency(name: string, samples: number, op: () => Promise<unknown>): Promise<BenchRow> {
  for (let i = 0; i < 20; i++) await op();
  const ms: number[] = [];
  for (let i = 0; i < samples; i++) {
    const t = performance.now();
    await op();
    ms.push(performance.now() - t);
  }
  const mean = ms.reduce((a, b) => a + b, 0) / ms.length;
  return {
    name,
    opsPerSec: 1000 / mean,
    p50Ms: percentile(ms, 50),
    p99Ms: percentile(ms, 99),
    unit: 'query',
    note: `${samples} samples`,
  };
}

const querySuite: BenchSuite = {
  name: `audit-big query over ${ROWS.toLocaleString('en-US')} entries (postgres from ${database.source})`,
  baseline: 'get by id',
  async run(): Promise<BenchRow[]> {
    const s = await seed();
    const { stores } = s;
    const { rows: ids } = await sql<{ id: string }>`
      SELECT id FROM audit_entries WHERE tenant_id = ${TENANT} AND seq % ${Math.max(1, Math.floor(ROWS / 2000))} = 0`.execute(
      stores.db,
    );
    const rand = (n: number) => Math.floor(Math.random() * n);
    const DAY = 24 * 3600 * 1000;
    const range = (days: number) => {
      const from = s.start + rand(YEAR_MS - days * DAY);
      return { from: new Date(from).toISOString(), to: new Date(from + days * DAY).toISOString() };
    };
    const rows = [
      await latency('get by id', 300, async () => {
        const id = (ids[rand(ids.length)] as { id: string }).id;
        if (!(await stores.audit.get(TENANT, id))) throw new Error(`entry ${id} not found`);
      }),
      await latency('query user + 7-day range, page 50 + total', 300, () =>
        stores.audit.query(
          TENANT,
          { userId: `user-${rand(USERS)}`, ...range(7) },
          { offset: 0, limit: 50, order: 'desc' },
        ),
      ),
      await latency('query user + 90-day range, page 50 + total', 300, () =>
        stores.audit.query(TENANT, { userId: `user-${rand(USERS)}`, ...range(90) }, { offset: 0, limit: 50 }),
      ),
      await latency('query action type + 1-day range, page 50 + total', 300, () =>
        stores.audit.query(TENANT, { actionType: 'model_call', ...range(1) }, { offset: 0, limit: 50 }),
      ),
      await latency('query request id, page 50 + total', 300, () =>
        stores.audit.query(TENANT, { requestId: `req-${1 + rand(ROWS)}` }, { offset: 0, limit: 50 }),
      ),
    ];
    (rows[0] as BenchRow).note += `; ${seedNote(s)}`;
    return rows;
  },
};

const proofSuite: BenchSuite = {
  name: `audit-big inclusion proof at ${ROWS.toLocaleString('en-US')} entries (postgres from ${database.source})`,
  baseline: 'plain scan of the record hashes',
  async run(): Promise<BenchRow[]> {
    const s = await seed();
    const log = createAuditLog({ store: s.stores.audit, secrets: s.secrets });
    const { rows: some } = await sql<{ id: string }>`
      SELECT id FROM audit_entries WHERE tenant_id = ${TENANT} AND seq IN (1, ${Math.floor(ROWS / 3)}, ${ROWS})`.execute(
      s.stores.db,
    );
    const rows: BenchRow[] = [
      await throughput(
        'plain scan of the record hashes',
        1,
        () => plainScan(s.stores, ROWS, 5000, sql`hash`),
        'proof',
      ),
    ];
    let size = 0;
    let bytes = 0;
    const prove = async (id: string) => {
      const proof = (await log.proveInclusion(TENANT, id, ROWS))._unsafeUnwrap();
      size = proof.proof.length;
      bytes = JSON.stringify(proof).length;
    };
    // The first proof reads every record hash once (and caches the roots of complete blocks);
    // the later ones read the proven leaf's block and the last partial block only.
    const t0 = performance.now();
    await prove((some[0] as { id: string }).id);
    const cold = performance.now() - t0;
    rows.push({
      name: 'proveInclusion at the full size, first (cold block cache)',
      opsPerSec: 1000 / cold,
      unit: 'proof',
      note: `${cold.toFixed(0)} ms; ${size} hashes (${size * 32} B raw), ${bytes} B as JSON`,
    });
    const t1 = performance.now();
    for (const { id } of some) await prove(id);
    const ms = (performance.now() - t1) / some.length;
    rows.push({
      name: 'proveInclusion at the full size, warm block cache',
      opsPerSec: 1000 / ms,
      unit: 'proof',
      note: `${some.length} proofs, ${ms.toFixed(0)} ms each; ${size} hashes, ${bytes} B as JSON`,
    });
    return rows;
  },
};

/**
 * This process's peak RSS in KiB: VmHWM of /proc/self/status on Linux (the high-water mark of this
 * process image; `resourceUsage().maxRSS` would report the parent's, which Linux carries across
 * fork + exec), else the largest RSS sampled every 20 ms.
 */
function peakRssKb(sampledBytes: number): number {
  try {
    const m = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (m) return Number(m[1]);
  } catch {
    // not Linux
  }
  return Math.round(Math.max(sampledBytes, process.memoryUsage().rss) / 1024);
}

/** In a child process: the work, then its wall time and peak RSS on stdout. */
async function child(mode: string, n: number): Promise<void> {
  const stores = await openStore({ database: database.url, schema: SCHEMA, migrate: false } as Parameters<
    typeof openStore
  >[0]);
  let sampledPeak = 0;
  const sampler = setInterval(() => {
    sampledPeak = Math.max(sampledPeak, process.memoryUsage().rss);
  }, 20);
  const started = performance.now();
  let count = 0;
  if (mode === 'scan') count = await plainScan(stores, n);
  else if (mode === 'export') {
    const body = exportStream(stores.audit.scan(TENANT, { toSeq: n, batchSize: 1000 }), 'json');
    const reader = body.getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) count += r.value.byteLength;
  } else if (mode === 'verify') {
    // The leaf-only check (deep: false): the memory figures in bench/README.md are of it.
    const rep = await verifyTenant(stores.audit, TENANT, { toSeq: n, allowUnchecked: true, deep: false });
    if (!rep.ok) throw new Error('chain broken');
    count = rep.checked;
  }
  const ms = performance.now() - started;
  clearInterval(sampler);
  await stores.close();
  process.stdout.write(`${JSON.stringify({ ms, count, maxRssKb: peakRssKb(sampledPeak) })}\n`);
}

function runChild(mode: string, n: number): Promise<{ ms: number; count: number; maxRssKb: number }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url)], {
      env: { ...process.env, AUDIT_BIG_CHILD: `${mode}:${n}` },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    proc.stdout.on('data', (d) => {
      out += d;
    });
    proc.on('error', reject);
    proc.on('exit', (code) => {
      if (code !== 0) reject(new Error(`child ${mode} ${n} exited with ${code}`));
      else resolve(JSON.parse(out.trim().split('\n').at(-1) as string));
    });
  });
}

const rssSuite: BenchSuite = {
  name: `audit-big peak RSS of export and verify, child processes (postgres from ${database.source})`,
  baseline: `plain keyset scan of ${VERIFY_ROWS.toLocaleString('en-US')}`,
  async run(): Promise<BenchRow[]> {
    await seed();
    const rows: BenchRow[] = [];
    const cases: [string, string, number][] = [
      [`plain keyset scan of ${VERIFY_ROWS.toLocaleString('en-US')}`, 'scan', VERIFY_ROWS],
      [`JSON export of ${VERIFY_ROWS.toLocaleString('en-US')}`, 'export', VERIFY_ROWS],
      [`verify of ${VERIFY_ROWS.toLocaleString('en-US')}`, 'verify', VERIFY_ROWS],
    ];
    if (ROWS > VERIFY_ROWS) {
      cases.push(
        [`JSON export of ${ROWS.toLocaleString('en-US')}`, 'export', ROWS],
        [`verify of ${ROWS.toLocaleString('en-US')}`, 'verify', ROWS],
      );
    }
    for (const [name, mode, n] of cases) {
      const r = await runChild(mode, n);
      rows.push({
        name,
        opsPerSec: (n / r.ms) * 1000,
        unit: 'entry',
        note: `peak RSS ${(r.maxRssKb / 1024).toFixed(0)} MB; ${(r.ms / 1000).toFixed(1)} s`,
      });
    }
    return rows;
  },
};

const childTask = process.env.AUDIT_BIG_CHILD;
if (childTask) {
  const [mode, n] = childTask.split(':');
  await child(mode as string, Number(n));
  process.exit(0);
}

export default [verifySuite, querySuite, proofSuite, rssSuite] satisfies BenchSuite[];
