/**
 * `pnpm bench mcp`: one governed `tools/call` through the MCP proxy against the direct call of the
 * same upstream tool, in the same run — the upstream in memory (the proxy's hop dominates a
 * trivial tool) and over stdio (a real child process, as desktop assistants run servers). Three
 * proxied set-ups split the cost: a constant decision and a no-op audit (the proxy itself: one
 * more MCP hop, namespacing, canonical-argument digest), the built-in engine with an in-memory
 * sink (+ the decision), and the built-in engine with the hash-chained AuditLog (+ the append).
 * The decision and the append are also measured alone.
 */
import { createAuditLog, generateAuditKeys } from '@agentgov/audit';
import { InMemoryAuditStore, InMemorySecretStore } from '@agentgov/core';
import { benchWorld, DIRECT } from '../packages/mcp/test/bench-world';
import { type BenchSuite, measure } from './lib';

const TIME = Number(process.env.BENCH_TIME_MS ?? 1500);

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
      const rows = await measure(world.cases, { time: TIME, unit: 'call' });
      if (kind === 'memory') {
        rows.push(
          ...(await measure(
            {
              'actions decide() alone (built-in engine)': world.decide,
              'AuditLog.append alone (hash chain, in memory)': world.append,
            },
            { time: TIME, unit: 'op' },
          )),
        );
      }
      return rows;
    } finally {
      await world.close();
    }
  },
});

export default [suite('memory'), suite('stdio')] satisfies BenchSuite[];
