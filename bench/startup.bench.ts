/**
 * The reference server's start-up on the embedded default (PGlite), as a user runs it (`pnpm
 * start` is `node examples/server/start.mjs`: the built server when the build is current, else
 * the sources through tsx — the note says so): from spawning the process to the ready banner (the
 * service answers from then on; checked with `GET /api/v1/readyz`), on a data directory of an
 * earlier start (the usual case) and once on an empty one (the first start: the database comes
 * from the PGlite template `pnpm install`'s build made, and the migrations find nothing to do).
 * The note gives each start-up step's median time, from the server's own progress lines.
 *
 * Baseline: a Node process that opens the same PGlite directory, answers `SELECT 1` and exits —
 * the least an embedded-database server must do before it can answer. Rounds alternate the
 * baseline and the server, so machine load falls on both alike. `BENCH_STARTUP_ROUNDS` (default 5).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BenchRow, type BenchSuite, percentile } from './lib';

const ROUNDS = Number(process.env.BENCH_STARTUP_ROUNDS ?? 5);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SERVER = fileURLToPath(new URL('../examples/server/', import.meta.url));

/** The floor: open PGlite on `dir` in a new Node process, one query, exit (ms to the answer). */
const OPEN_ONLY = `
const t0 = performance.now();
const { PGlite } = await import('@electric-sql/pglite');
const db = await PGlite.create(process.argv[1]);
await db.query('SELECT 1');
console.log(JSON.stringify({ ms: performance.now() - t0 }));
await db.close();
`;

interface Start {
  /** Spawn to the ready banner, ms. */
  ms: number;
  /** The process's CPU time at the banner, ms. */
  cpuMs: number;
  /** Each progress step's duration (to the next line), ms. */
  steps: Map<string, number>;
  /** The launcher ran the sources through tsx (the build was stale), not the build. */
  fromSources: boolean;
}

/**
 * A process's CPU time so far (user + system, every thread), ms, from /proc (Linux; NaN
 * elsewhere): less sensitive than wall time to other work on the machine.
 */
function cpuMsOf(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    // utime and stime are fields 14 and 15 of stat (11 and 12 after the command), in clock ticks.
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return Number.NaN;
  }
}
const CLOCK_TICKS = 100;

/** Spawns a process and resolves with its stdout lines as they come, until `done` says stop. */
function run(
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv },
  done: (line: string, ms: number) => boolean,
): Promise<{ ms: number; cpuMs: number; stop(): void }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let buffered = '';
    let errors = '';
    let finished = false;
    child.stderr.on('data', (d: Buffer) => {
      errors += d.toString();
    });
    child.stdout.on('data', (d: Buffer) => {
      buffered += d.toString();
      for (let i = buffered.indexOf('\n'); i >= 0; i = buffered.indexOf('\n')) {
        const line = buffered.slice(0, i);
        buffered = buffered.slice(i + 1);
        if (!finished && done(line, performance.now() - t0)) {
          finished = true;
          resolve({
            ms: performance.now() - t0,
            cpuMs: cpuMsOf(child.pid),
            stop: () => child.kill('SIGTERM'),
          });
        }
      }
    });
    child.on('exit', (code) => {
      if (!finished) reject(new Error(`exited ${code} before it was ready: ${errors.slice(-2000)}`));
    });
  });
}

async function openOnly(dir: string): Promise<{ ms: number; cpuMs: number }> {
  let inside = 0;
  const opened = await run(['--input-type=module', '-e', OPEN_ONLY, dir], { cwd: SERVER }, (line) => {
    if (!line.startsWith('{')) return false;
    inside = (JSON.parse(line) as { ms: number }).ms;
    return true;
  });
  opened.stop();
  return { ms: Math.max(opened.ms, inside), cpuMs: opened.cpuMs };
}

async function startServer(dir: string): Promise<Start> {
  const steps = new Map<string, number>();
  let last: { step: string; at: number } | undefined;
  let port = 0;
  let fromSources = false;
  const started = await run(
    ['examples/server/start.mjs'],
    {
      cwd: ROOT,
      env: {
        PORT: '0',
        AGENTGOV_DATA_DIR: dir,
        AGENTGOV_REQUEST_LOG: 'off',
        AGENTGOV_CHECKPOINT_INTERVAL: '0',
      },
    },
    (line, at) => {
      if (line.startsWith('agentgov: running the sources through tsx')) {
        fromSources = true;
        return false;
      }
      const step =
        /^agentgov: (\D+?)(?: in |\s*\d|…|$)/.exec(line)?.[1] ??
        (line.startsWith('agentgov reference server listening') ? 'ready' : undefined);
      if (step === undefined) return false;
      if (last) steps.set(last.step, at - last.at);
      else steps.set('loading the modules', at);
      last = { step, at };
      port = Number(/listening on https?:\/\/[^:]+:(\d+)/.exec(line)?.[1] ?? port);
      return step === 'ready';
    },
  );
  // Ready means serving: the kernel answers readyz once the banner is out.
  const ready = await fetch(`http://127.0.0.1:${port}/api/v1/readyz`).catch(() => undefined);
  started.stop();
  if (ready?.status !== 200) throw new Error(`the banner came but readyz answered ${ready?.status}`);
  return { ms: started.ms, cpuMs: started.cpuMs, steps, fromSources };
}

const median = (xs: number[]) => percentile(xs, 50);

function startRow(name: string, starts: Start[]): BenchRow {
  const times = starts.map((s) => s.ms);
  const names = [...new Set(starts.flatMap((s) => [...s.steps.keys()]))];
  const steps = names
    .map((n) => `${n} ${(median(starts.map((s) => s.steps.get(n) ?? 0)) / 1000).toFixed(2)} s`)
    .join(', ');
  return {
    name,
    opsPerSec: 1000 / median(times),
    p50Ms: median(times),
    p99Ms: Math.max(...times),
    unit: 'start',
    note: `${starts.some((s) => s.fromSources) ? 'RAN THE SOURCES (the build is stale: pnpm build); ' : ''}median of ${times.length}: ${(median(times) / 1000).toFixed(2)} s, CPU ${(median(starts.map((s) => s.cpuMs)) / 1000).toFixed(2)} s; steps (median): ${steps}`,
  };
}

const suites: BenchSuite[] = [
  {
    name: 'reference server start-up to ready on embedded PGlite (examples/server/start.mjs, as pnpm start)',
    baseline: 'open the same PGlite directory in a new process',
    async run() {
      const dir = await mkdtemp(join(tmpdir(), 'agentgov-bench-start-'));
      try {
        // The first start: an empty directory (initdb, every migration).
        const first = await startServer(dir);
        const opens: { ms: number; cpuMs: number }[] = [];
        const starts: Start[] = [];
        for (let i = 0; i < ROUNDS; i++) {
          opens.push(await openOnly(dir));
          starts.push(await startServer(dir));
        }
        const open = median(opens.map((o) => o.ms));
        return [
          {
            name: 'open the same PGlite directory in a new process',
            opsPerSec: 1000 / open,
            p50Ms: open,
            p99Ms: Math.max(...opens.map((o) => o.ms)),
            unit: 'start',
            note: `median of ${opens.length}: ${(open / 1000).toFixed(2)} s, CPU ${(median(opens.map((o) => o.cpuMs)) / 1000).toFixed(2)} s`,
          },
          startRow('server start-up, data directory of an earlier start', starts),
          startRow('server start-up, empty data directory (first start)', [first]),
        ];
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  },
];
export default suites;
