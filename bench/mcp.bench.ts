/**
 * `pnpm bench mcp`: one governed `tools/call` against the direct call of the same upstream tool,
 * in the same run — the upstream in memory (the SDK's own cost of a trivial tool, both ends in
 * this process) and over stdio (a real child process, as desktop assistants run servers). The
 * split the issue asks for: through the proxy with a constant decision and a no-op audit (the
 * proxy itself: its MCP hop, namespacing, canonical-argument digest), + the built-in engine's
 * decision, + the hash-chained audit append; the same in-process (`governTools`, no MCP hop in
 * front); and the decision and the append alone. Every case runs in each of `BENCH_MCP_ROUNDS`
 * (default 15) interleaved rounds of `BENCH_MCP_CALLS` (default 300) sequential calls after a
 * warm-up, so load that moves during the run weighs on all alike; a row is the median round.
 * Notes: each governed row's µs over direct, and for the full rows what is left beyond the
 * decision and the append measured alone, as a % of direct (the "≤ 10%").
 */
import { createAuditLog, generateAuditKeys } from '@agentgov/audit';
import { InMemoryAuditStore, InMemorySecretStore } from '@agentgov/core';
import {
  APPEND,
  benchWorld,
  DECIDE,
  DIRECT,
  INPROCESS_FULL,
  INPROCESS_NOOP,
  PROXIED_DECISION,
  PROXIED_FULL,
  PROXIED_NOOP,
} from '../packages/mcp/test/bench-world';
import type { BenchRow, BenchSuite } from './lib';

const ROUNDS = Number(process.env.BENCH_MCP_ROUNDS ?? 15);
const CALLS = Number(process.env.BENCH_MCP_CALLS ?? 300);

/** µs per call of each case in each round, the cases interleaved (rotating which goes first). */
async function interleaved(cases: Record<string, () => Promise<unknown>>): Promise<Map<string, number[]>> {
  const names = Object.keys(cases);
  const rounds = new Map(names.map((n) => [n, [] as number[]]));
  for (const fn of Object.values(cases)) for (let i = 0; i < CALLS; i++) await fn();
  for (let r = 0; r < ROUNDS; r++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(k + r) % names.length] as string;
      const fn = cases[name] as () => Promise<unknown>;
      const start = performance.now();
      for (let i = 0; i < CALLS; i++) await fn();
      rounds.get(name)?.push(((performance.now() - start) * 1000) / CALLS);
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

/** The rows, with the split in the notes. */
function rowsOf(rounds: Map<string, number[]>): BenchRow[] {
  const at = (name: string) => median(rounds.get(name) ?? []);
  const direct = at(DIRECT);
  const decide = at(DECIDE);
  const append = at(APPEND);
  const over = (name: string) => `+${us(at(name) - direct)} over direct (${pct(at(name) - direct, direct)})`;
  const beyond = (name: string) => {
    const left = at(name) - direct - decide - append;
    return `beyond decide ${us(decide)} + append ${us(append)} alone: ${left >= 0 ? '+' : ''}${us(left)} = ${pct(left, direct)} of direct`;
  };
  const notes: Record<string, string> = {
    [DIRECT]: us(direct),
    [PROXIED_NOOP]: over(PROXIED_NOOP),
    [PROXIED_DECISION]: `${over(PROXIED_DECISION)}; decision +${us(at(PROXIED_DECISION) - at(PROXIED_NOOP))} over the proxy itself`,
    [PROXIED_FULL]: `${over(PROXIED_FULL)}; ${beyond(PROXIED_FULL)}`,
    [INPROCESS_NOOP]: over(INPROCESS_NOOP),
    [INPROCESS_FULL]: `${over(INPROCESS_FULL)}; ${beyond(INPROCESS_FULL)}`,
    [DECIDE]: us(decide),
    [APPEND]: us(append),
  };
  return [...rounds].map(([name, xs]) => ({
    name,
    opsPerSec: 1e6 / median(xs),
    p50Ms: median(xs) / 1000,
    unit: name === DECIDE || name === APPEND ? 'op' : 'call',
    note: `${notes[name] ?? ''} (median of ${xs.length} rounds of ${CALLS}; fastest ${us(Math.min(...xs))})`,
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
