/**
 * The benchmark harness behind `pnpm bench`. A bench file (`bench/*.bench.ts`) default-exports
 * one or more suites; each suite measures its cases and names one of them as the baseline, and
 * the runner prints one table per suite with every case's ratio to that baseline — so each
 * figure is compared against a reference measured in the same run, on the same machine.
 */
import { Bench } from 'tinybench';

export interface BenchRow {
  /** Case name, unique within its suite. */
  name: string;
  /** Operations (or items, see `unit`) per second. */
  opsPerSec: number;
  /** Latency percentiles of one operation, in milliseconds, when measured per operation. */
  p50Ms?: number;
  p99Ms?: number;
  /** What one operation is ("op" by default; e.g. "entry", "request"). */
  unit?: string;
  /** Free-form notes (sample count, peak RSS…). */
  note?: string;
}

export interface BenchSuite {
  name: string;
  /** Name of the row every other row is compared against. */
  baseline: string;
  run(): Promise<BenchRow[]>;
}

/** Measures synchronous or async functions with tinybench; one row per case. */
export async function measure(
  cases: Record<string, () => unknown>,
  options: { time?: number; warmupTime?: number; unit?: string } = {},
): Promise<BenchRow[]> {
  const bench = new Bench({ time: options.time ?? 1000, warmupTime: options.warmupTime ?? 200 });
  for (const [name, fn] of Object.entries(cases)) bench.add(name, fn);
  await bench.run();
  return bench.tasks.map((task) => {
    const r = task.result;
    if (!('latency' in r) || !('throughput' in r)) {
      const error = 'error' in r ? r.error : undefined;
      throw new Error(`bench case ${task.name} did not complete: ${String(error ?? r.state)}`);
    }
    return {
      name: task.name,
      opsPerSec: r.throughput.mean,
      p50Ms: r.latency.p50,
      p99Ms: r.latency.p99,
      unit: options.unit ?? 'op',
      note: `${r.latency.samplesCount} samples`,
    };
  });
}

/** Times `count` items processed by `work` once: a throughput row (items per second). */
/** `entry` → `entries`, `request` → `requests`. */
const plural = (unit: string): string => (unit.endsWith('y') ? `${unit.slice(0, -1)}ies` : `${unit}s`);

export async function throughput(
  name: string,
  count: number,
  work: () => Promise<unknown>,
  unit = 'item',
): Promise<BenchRow> {
  const start = performance.now();
  await work();
  const ms = performance.now() - start;
  return {
    name,
    opsPerSec: (count / ms) * 1000,
    unit,
    note: `${count} ${plural(unit)} in ${ms.toFixed(0)} ms`,
  };
}

/** Percentile (0–100) of unsorted samples. */
export function percentile(samples: number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i] as number;
}

const fmt = (n: number | undefined, digits = 2): string =>
  n === undefined || Number.isNaN(n)
    ? '-'
    : n >= 1000
      ? Math.round(n).toLocaleString('en-US')
      : n.toFixed(digits);

/** Renders one suite's rows as a table with a ratio-to-baseline column. */
export function formatTable(suite: Pick<BenchSuite, 'name' | 'baseline'>, rows: BenchRow[]): string {
  const base = rows.find((r) => r.name === suite.baseline);
  const header = ['case', 'ops/s', 'unit', 'p50 ms', 'p99 ms', `vs ${suite.baseline}`, 'note'];
  const body = rows.map((r) => [
    r.name,
    fmt(r.opsPerSec),
    r.unit ?? 'op',
    fmt(r.p50Ms, 4),
    fmt(r.p99Ms, 4),
    base ? `${(r.opsPerSec / base.opsPerSec).toFixed(2)}x` : 'n/a',
    r.note ?? '',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [
    `## ${suite.name}`,
    line(header),
    `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
    ...body.map(line),
  ].join('\n');
}

/**
 * The PostgreSQL URL of the database suites: `BENCH_DATABASE_URL`, else `TEST_DATABASE_URL`, else
 * the local default — and which of them it was, for the suite to print.
 */
export function benchDatabaseUrl(): { url: string; source: string } {
  if (process.env.BENCH_DATABASE_URL)
    return { url: process.env.BENCH_DATABASE_URL, source: 'BENCH_DATABASE_URL' };
  if (process.env.TEST_DATABASE_URL)
    return { url: process.env.TEST_DATABASE_URL, source: 'TEST_DATABASE_URL' };
  return { url: 'postgres://postgres@127.0.0.1:5432/test', source: 'the local default' };
}

/** Runs one statement (CREATE / DROP DATABASE…) on the PostgreSQL at `url`, on a connection of its own. */
export async function adminSql(url: string, text: string): Promise<void> {
  const { openStore, sql } = await import('@agentgov/store-kysely');
  const admin = await openStore({ database: url, migrate: false });
  try {
    await sql.raw(text).execute(admin.db);
  } finally {
    await admin.close();
  }
}
