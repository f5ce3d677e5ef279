/**
 * `pnpm bench mcp`: one governed `tools/call` against the direct call of the same upstream tool,
 * in the same run — the upstream in memory (the SDK's own cost of a trivial tool, both ends in
 * this process) and over stdio (a real child process, as desktop assistants run servers). The
 * split the issue asks for: through the proxy with a constant decision and a no-op audit (the
 * proxy itself: its MCP hop, namespacing, canonical-argument digest), + the built-in engine's
 * decision, + the hash-chained audit appends (a forwarded call's write-ahead entry and its
 * outcome); the same in-process (`governTools`, no MCP hop in front); the decision and the two
 * appends alone; and the direct call between those appends (the same work without the proxy: the
 * appends then run around an MCP call, as in the proxy, not in a
 * tight loop where its code and data stay in the caches). Every case runs in each of
 * `BENCH_MCP_ROUNDS` (default 101) interleaved rounds of `BENCH_MCP_CALLS` (default 50)
 * sequential calls after a warm-up of 1,000 calls, so load that moves during the run weighs on
 * all alike; a row is the case's fastest round (load only ever adds to a round; short rounds make
 * a round free of GC and of other processes likelier; the median round is in the note, p50 is
 * that median). Notes: each governed row's µs over direct; for the full rows what is left beyond
 * the decision and the direct call + appends, as a % of direct; the proxy's own work with raw
 * JSON-RPC in front and a canned upstream behind (in memory only) as a % of direct (the issue's "≤ 10% plus the
 * decision and the append"), and beyond the decision and the appends alone (the older, tighter
 * split); in brackets the same from this process's CPU time per call (all its threads: V8's GC
 * helper threads included, so CPU can exceed wall time; over stdio it leaves out the upstream
 * child's CPU). Over stdio also a realistic tool next to the trivial one (the example's `read_file`
 * of a 2 KB note and `search_notes` over 10 notes, on disk: `bench-upstream.ts`), each against its
 * own direct call; the notes say which cases meet the issue's ≤ 10 % and which do not.
 */
import { createAuditLog, generateAuditKeys } from '@agentgov/audit';
import { InMemoryAuditStore, InMemorySecretStore } from '@agentgov/core';
import {
  APPEND,
  benchWorld,
  DECIDE,
  DIRECT,
  DIRECT_APPEND,
  INPROCESS_FULL,
  INPROCESS_NOOP,
  PROXIED_DECISION,
  PROXIED_FULL,
  PROXIED_NOOP,
  PROXY_WORK,
  REAL_CASES,
} from '../packages/mcp/test/bench-world';
import type { BenchRow, BenchSuite } from './lib';

const ROUNDS = Number(process.env.BENCH_MCP_ROUNDS ?? 101);
const CALLS = Number(process.env.BENCH_MCP_CALLS ?? 50);
const WARM_UP = 1000;

interface Rounds {
  /** Wall-clock µs per call, one figure per round. */
  wall: number[];
  /** This process's CPU µs per call (user + system), one figure per round. */
  cpu: number[];
}

/** µs per call of each case in each round, the cases interleaved (rotating which goes first). */
async function interleaved(cases: Record<string, () => Promise<unknown>>): Promise<Map<string, Rounds>> {
  const names = Object.keys(cases);
  const rounds = new Map(names.map((n) => [n, { wall: [], cpu: [] } as Rounds]));
  for (const fn of Object.values(cases)) for (let i = 0; i < WARM_UP; i++) await fn();
  for (let r = 0; r < ROUNDS; r++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(k + r) % names.length] as string;
      const fn = cases[name] as () => Promise<unknown>;
      const cpu = process.cpuUsage();
      const start = performance.now();
      for (let i = 0; i < CALLS; i++) await fn();
      const wall = ((performance.now() - start) * 1000) / CALLS;
      const used = process.cpuUsage(cpu);
      rounds.get(name)?.wall.push(wall);
      rounds.get(name)?.cpu.push((used.user + used.system) / CALLS);
    }
  }
  return rounds;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};
const us = (n: number) => `${n.toFixed(1)} µs`;
const pct = (n: number, of: number) => `${((100 * n) / of).toFixed(0)}%`;
const signed = (n: number) => `${n >= 0 ? '+' : ''}${us(n)}`;

/** The rows, with the split in the notes (each case's fastest round; this process's CPU in brackets). */
function rowsOf(rounds: Map<string, Rounds>): BenchRow[] {
  const at = (name: string, of: keyof Rounds = 'wall') => Math.min(...(rounds.get(name)?.[of] ?? []));
  const over = (name: string, of: keyof Rounds = 'wall') => at(name, of) - at(DIRECT, of);
  const beyond = (name: string, of: keyof Rounds = 'wall') =>
    over(name, of) - at(DECIDE, of) - at(APPEND, of);
  /** What is left beyond the decision and the direct call between the two appends. */
  const beyondWork = (name: string, of: keyof Rounds = 'wall') =>
    at(name, of) - at(DIRECT_APPEND, of) - at(DECIDE, of);
  const both = (f: (of: keyof Rounds) => number, ofDirect: boolean) =>
    `${signed(f('wall'))}${ofDirect ? ` = ${pct(f('wall'), at(DIRECT))} of direct` : ''} [CPU ${signed(f('cpu'))}${ofDirect ? ` = ${pct(f('cpu'), at(DIRECT, 'cpu'))}` : ''}]`;
  const notes: Record<string, string> = {
    [PROXIED_NOOP]: `over direct ${both((of) => over(PROXIED_NOOP, of), true)}`,
    [PROXIED_DECISION]: `over the proxy itself ${both((of) => at(PROXIED_DECISION, of) - at(PROXIED_NOOP, of), false)}`,
    [PROXIED_FULL]: `over direct ${both((of) => over(PROXIED_FULL, of), true)}; beyond decide + (direct + appends) ${both((of) => beyondWork(PROXIED_FULL, of), true)}; beyond decide + appends alone ${both((of) => beyond(PROXIED_FULL, of), true)}`,
    [INPROCESS_NOOP]: `over direct ${both((of) => over(INPROCESS_NOOP, of), true)}`,
    [INPROCESS_FULL]: `over direct ${both((of) => over(INPROCESS_FULL, of), true)}; beyond decide + (direct + appends) ${both((of) => beyondWork(INPROCESS_FULL, of), true)}; beyond decide + appends alone ${both((of) => beyond(INPROCESS_FULL, of), true)}`,
    [PROXY_WORK]: `= ${pct(at(PROXY_WORK), at(DIRECT))} of direct, the floor of "the proxy itself" (no SDK at either end)`,
    [DIRECT_APPEND]: `over direct ${both((of) => over(DIRECT_APPEND, of), false)} (the two appends around an MCP call; alone ${us(at(APPEND))})`,
  };
  const meets = (n: number, of: number) => (n <= 0.1 * of ? 'meets' : 'misses');
  for (const [direct, noop, full] of REAL_CASES) {
    if (!rounds.has(direct)) continue;
    const d = at(direct);
    const itself = at(noop) - d;
    // The appends alone (their tight-loop figure, the smaller one: what is left is not understated).
    const left = at(full) - d - at(DECIDE) - at(APPEND);
    notes[noop] =
      `over its direct call ${signed(itself)} = ${pct(itself, d)} [CPU ${signed(at(noop, 'cpu') - at(direct, 'cpu'))}]: ${meets(itself, d)} the issue's ≤ 10 %`;
    notes[full] =
      `over its direct call ${signed(at(full) - d)}; beyond decide + appends alone ${signed(left)} = ${pct(left, d)} of its direct call: ${meets(left, d)} the issue's ≤ 10 %`;
  }
  const trivial = over(PROXIED_NOOP);
  if (rounds.has(PROXIED_NOOP))
    notes[PROXIED_NOOP] += ` (the trivial tool: ${meets(trivial, at(DIRECT))} the issue's ≤ 10 %)`;
  // The same from the median rounds: over stdio a round's wall time also holds where the
  // scheduler put the upstream child — on this process's CPU, or on the other one, whose wake-ups
  // cost ~35 µs a call more on this VM for the direct call as for the proxied one (measured with
  // both pinned) — and the load of other processes, which the fastest round leaves out.
  const mid = (name: string) => median(rounds.get(name)?.wall ?? []);
  for (const name of [PROXIED_NOOP, PROXIED_FULL, INPROCESS_NOOP, INPROCESS_FULL])
    if (rounds.has(name))
      notes[name] +=
        `; median rounds: ${us(mid(name))} vs direct ${us(mid(DIRECT))}, ${signed(mid(name) - mid(DIRECT))} = ${pct(mid(name) - mid(DIRECT), mid(DIRECT))}`;
  return [...rounds].map(([name, r]) => ({
    name,
    opsPerSec: 1e6 / Math.min(...r.wall),
    p50Ms: median(r.wall) / 1000,
    unit: name === DECIDE || name === APPEND || name === PROXY_WORK ? 'op' : 'call',
    note: `${us(at(name))} [CPU ${us(at(name, 'cpu'))}]${notes[name] ? `; ${notes[name]}` : ''} (fastest of ${r.wall.length} rounds of ${CALLS}; median ${us(median(r.wall))})`,
  }));
}

const suite = (kind: 'memory' | 'stdio'): BenchSuite => ({
  name: `mcp tools/call, upstream ${kind === 'memory' ? 'in memory' : 'over stdio'}`,
  baseline: DIRECT,
  async run() {
    const keys = await generateAuditKeys();
    const log = createAuditLog({
      store: new InMemoryAuditStore(),
      secrets: new InMemorySecretStore({
        'audit-commitment-key': keys.commitmentKey,
        'audit-signing-key': keys.signingKey,
      }),
    });
    const world = await benchWorld(kind, log);
    try {
      return rowsOf(await interleaved(world.cases));
    } finally {
      await world.close();
    }
  },
});

export default [suite('memory'), suite('stdio')] satisfies BenchSuite[];
