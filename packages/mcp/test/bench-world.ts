/**
 * What `bench/mcp.bench.ts` measures: one tools/call of the same upstream tool, direct (an SDK
 * Client on the upstream) and through the governing proxy (an SDK Client on the proxy, linked in
 * memory, the proxy's Client on the upstream) with three governance set-ups, plus the decision and
 * the audit append alone. Upstreams over stdio run `examples/mcp/src/upstream.ts` as children
 * (one per case: a stdio server has one client); in memory, the harness's notes server.
 */
import { fileURLToPath } from 'node:url';
import { type AuditSink, type DecisionEngine, InMemoryAuditSink, ok } from '@agentgov/core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { createMcpProxy, type McpProxy } from '../src/index';
import { linked, makeProxyWorld, newNotesState, notesServer } from './harness';

export const DIRECT = 'direct tools/call (SDK client → upstream)';
const PROXIED_NOOP = 'proxied, constant decision, no-op audit (the proxy itself)';
const PROXIED_BUILTIN = 'proxied, built-in engine, in-memory audit sink';
const PROXIED_FULL = 'proxied, built-in engine, hash-chained AuditLog';

const upstreamFile = fileURLToPath(new URL('../../../examples/mcp/src/upstream.ts', import.meta.url));
const CALL = { name: 'search_notes', arguments: { query: 'plan' } };

export interface BenchWorld {
  cases: Record<string, () => Promise<unknown>>;
  /** The decision of one call alone, and one audit append alone (the split). */
  decide: () => Promise<unknown>;
  append: () => Promise<unknown>;
  close(): Promise<void>;
}

/** `log`: the hash-chained audit log (an `@agentgov/audit` AuditLog) of the full case. */
export async function benchWorld(kind: 'memory' | 'stdio', log: AuditSink): Promise<BenchWorld> {
  const world = await makeProxyWorld();
  const upstream = (): Transport =>
    kind === 'stdio'
      ? new StdioClientTransport({
          command: process.execPath,
          args: ['--import', 'tsx', upstreamFile],
          stderr: 'ignore',
        })
      : linked(() => notesServer(newNotesState({ 'plan.md': 'plan' })))();
  const closers: (() => Promise<void>)[] = [];

  const direct = new Client({ name: 'bench', version: '1' });
  await direct.connect(upstream());
  closers.push(() => direct.close());

  const constant: DecisionEngine = {
    name: 'constant',
    health: async () => true,
    decide: async () =>
      ok({ allow: true, deny: false, reason: 'bench', constraints: { autonomy: 'autonomous' } }),
  };
  const noop: AuditSink = {
    append: async (input) => ok({ ...input, id: '0'.repeat(26), timestamp: '' }) as never,
  };

  const proxied = async (engine: DecisionEngine, audit: AuditSink) => {
    const proxy: McpProxy = createMcpProxy(
      {
        upstreams: [{ namespace: 'notes', transport: 'stdio', command: 'unused' }],
        limits: { callsPerWindow: 1e9 },
      },
      { engine, audit, connect: { notes: upstream } },
    );
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await proxy.connect(serverSide, { tenantId: 'acme', userId: 'alice' });
    const client = new Client({ name: 'bench', version: '1' });
    await client.connect(clientSide);
    await client.listTools();
    closers.push(async () => {
      await client.close();
      await proxy.close();
    });
    return () => client.callTool({ ...CALL, name: `notes__${CALL.name}` });
  };

  const memorySink = new InMemoryAuditSink();
  const cases = {
    [DIRECT]: () => direct.callTool(CALL),
    [PROXIED_NOOP]: await proxied(constant, noop),
    [PROXIED_BUILTIN]: await proxied(world.engine, memorySink),
    [PROXIED_FULL]: await proxied(world.engine, log),
  };
  const entry = {
    tenantId: 'acme',
    userId: 'alice',
    actionType: 'tool_invocation' as const,
    actionDetail: {
      tool: 'notes__search_notes',
      argumentsDigest: `sha256:${'0'.repeat(64)}`,
      decision: 'autonomous',
    },
    policyApplied: 'actions',
    policyResult: 'allow' as const,
    outcome: 'success' as const,
    requestId: 'bench',
  };
  return {
    cases,
    decide: () =>
      world.engine.decide({
        domain: 'actions',
        tenantId: 'acme',
        userId: 'alice',
        input: { tool: 'notes__search_notes', classification_level: 'internal' },
      }),
    append: () => log.append(entry),
    async close() {
      memorySink.entries.length = 0;
      await Promise.all(closers.map((c) => c().catch(() => {})));
      await world.close();
    },
  };
}
