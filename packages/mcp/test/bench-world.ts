/**
 * What `bench/mcp.bench.ts` measures: one tools/call of the same upstream tool, direct (an SDK
 * Client on the upstream), through the governing proxy (an SDK Client on the proxy, linked in
 * memory, the proxy forwarding to the upstream) and in-process (`governTools`, no MCP hop in
 * front), with the governance split in three: a constant decision and a no-op audit (the proxy
 * itself), the built-in engine's decision, then also the hash-chained audit appends (a call that
 * goes upstream makes two: its write-ahead entry before, its outcome after) — plus the decision
 * and the two appends (of the entries a proxied call writes) alone, and the direct call between
 * those appends (the baseline the full cases compare with: the same work without the proxy);
 * in memory also the proxy's own work with no SDK at either end (`bench-canned.ts`). Upstreams over stdio run
 * `examples/mcp/src/upstream.ts` as children (one per case: a stdio server has one client); in
 * memory, the harness's notes server. Over stdio also a realistic tool next to the trivial one:
 * the example's `read_file` and `search_notes` over real note files on disk (`bench-upstream.ts`),
 * direct, through the proxy itself and through the full proxy.
 */
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type AuditEntryInput, type AuditSink, type DecisionEngine, ok } from '@agentgov/core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { createMcpProxy, governTools } from '../src/index';
import { cannedProxy } from './bench-canned';
import { NOTE_BYTES, NOTES, writeNotes } from './bench-upstream';
import { linked, makeProxyWorld, newNotesState, notesServer } from './harness';

export const DIRECT = 'direct tools/call (SDK client → upstream)';
export const DIRECT_APPEND =
  'direct tools/call between the AuditLog.append of its two entries (write-ahead, outcome; no proxy)';
export const PROXIED_NOOP = 'proxied: constant decision, no-op audit (the proxy itself)';
export const PROXIED_DECISION = 'proxied: + built-in decision';
export const PROXIED_FULL = 'proxied: + built-in decision + hash-chained audit appends';
export const INPROCESS_NOOP = 'governTools in-process: constant decision, no-op audit';
export const INPROCESS_FULL = 'governTools in-process: + built-in decision + audit appends';
export const DECIDE = 'actions decide() alone (built-in engine)';
export const PROXY_WORK =
  "the proxy's own work: raw JSON-RPC in, canned upstream (constant decision, no-op audit)";
export const APPEND = "AuditLog.append of a call's two entries alone (hash chain, in memory)";
/** Over stdio only: a realistic tool, the example's tools over real files (`bench-upstream.ts`). */
const REAL_READ_DIRECT = `direct read_file of a ${NOTE_BYTES}-byte note on disk`;
const REAL_READ_NOOP = 'proxied read_file: constant decision, no-op audit (the proxy itself)';
const REAL_READ_FULL = 'proxied read_file: + built-in decision + audit appends';
const REAL_SEARCH_DIRECT = `direct search_notes over ${NOTES} notes on disk`;
const REAL_SEARCH_NOOP = 'proxied search_notes: constant decision, no-op audit (the proxy itself)';
const REAL_SEARCH_FULL = 'proxied search_notes: + built-in decision + audit appends';
/** The realistic cases: [direct, the proxy itself, full] of each tool. */
export const REAL_CASES = [
  [REAL_READ_DIRECT, REAL_READ_NOOP, REAL_READ_FULL],
  [REAL_SEARCH_DIRECT, REAL_SEARCH_NOOP, REAL_SEARCH_FULL],
] as const;

const upstreamFile = fileURLToPath(new URL('../../../examples/mcp/src/upstream.ts', import.meta.url));
const diskUpstreamFile = fileURLToPath(new URL('./bench-upstream.ts', import.meta.url));
const CALL = { name: 'search_notes', arguments: { query: 'plan' } };
const REAL_CALLS = [
  { name: 'read_file', arguments: { path: 'note-03.md' } },
  { name: 'search_notes', arguments: { query: 'plan' } },
];
const IDENTITY = { tenantId: 'acme', userId: 'alice' };

export interface BenchWorld {
  /** One call per case; the decision and the append alone under DECIDE and APPEND. */
  cases: Record<string, () => Promise<unknown>>;
  /** Another proxied case (an SDK Client on a new proxy with this engine and audit). */
  proxied(engine: DecisionEngine, audit: AuditSink): Promise<() => Promise<unknown>>;
  /** The built-in engine, the constant decision and the no-op audit of the cases. */
  engine: DecisionEngine;
  constant: DecisionEngine;
  noop: AuditSink;
  /** The entries the first full proxied call appended: its write-ahead entry and its outcome. */
  entries: readonly [AuditEntryInput, AuditEntryInput];
  close(): Promise<void>;
}

/** `log`: the hash-chained audit log (an `@agentgov/audit` AuditLog) of the full cases. */
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
  const connected = async (transport: () => Transport = upstream) => {
    const client = new Client({ name: 'bench', version: '1' });
    await client.connect(transport());
    closers.push(() => client.close());
    return client;
  };

  const direct = await connected();
  // The constant decision and the no-op audit answer one settled promise made once: what they
  // would do per call (a decision object, a stored copy of the entry) is the decision's and the
  // append's cost, which the issue counts apart from "the proxy itself".
  const allowed = Promise.resolve(
    ok({ allow: true, deny: false, reason: 'bench', constraints: { autonomy: 'autonomous' as const } }),
  );
  const constant: DecisionEngine = { name: 'constant', health: async () => true, decide: () => allowed };
  const appended = Promise.resolve(ok({ id: '0'.repeat(26), timestamp: '' }) as never);
  const noop: AuditSink = { append: () => appended };

  const proxied = async (
    engine: DecisionEngine,
    audit: AuditSink,
    transport: () => Transport = upstream,
    call: { name: string; arguments: Record<string, unknown> } = CALL,
  ) => {
    const proxy = createMcpProxy(
      {
        upstreams: [{ namespace: 'notes', transport: 'stdio', command: 'unused' }],
        limits: { callsPerWindow: 1e9 },
      },
      { engine, audit, connect: { notes: transport } },
    );
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await proxy.connect(serverSide, IDENTITY);
    const client = new Client({ name: 'bench', version: '1' });
    await client.connect(clientSide);
    await client.listTools();
    closers.push(async () => {
      await client.close();
      await proxy.close();
    });
    const exposed = { ...call, name: `notes__${call.name}` };
    return () => client.callTool(exposed);
  };

  const inProcess = async (engine: DecisionEngine, audit: AuditSink) => {
    const target = kind === 'stdio' ? await connected() : notesServer(newNotesState({ 'plan.md': 'plan' }));
    const governed = governTools(target, { namespace: 'notes', identity: IDENTITY, engine, audit });
    await governed.listTools();
    closers.push(() => governed.close());
    const name = `notes__${CALL.name}`;
    return () => governed.callTool(name, CALL.arguments);
  };

  // The appends alone write the very entries a proxied call writes (the first call's, captured).
  const captured: AuditEntryInput[] = [];
  const capturing: AuditSink = {
    append: (input) => {
      if (captured.length < 2) captured.push(input);
      return log.append(input);
    },
  };
  const full = await proxied(world.engine, capturing);
  await full();
  const [ahead, outcome] = captured as [AuditEntryInput, AuditEntryInput];
  const cases: Record<string, () => Promise<unknown>> = {
    [DIRECT]: () => direct.callTool(CALL),
    // The appends measured where the proxy makes them: around an MCP call, their code and data
    // no longer in the caches (alone, in a tight loop, an append is 1–2 µs faster).
    [DIRECT_APPEND]: () =>
      log
        .append(ahead)
        .then(() => direct.callTool(CALL))
        .then(() => log.append(outcome)),
    [PROXIED_NOOP]: await proxied(constant, noop),
    [PROXIED_DECISION]: await proxied(world.engine, noop),
    [PROXIED_FULL]: full,
    [INPROCESS_NOOP]: await inProcess(constant, noop),
    [INPROCESS_FULL]: await inProcess(world.engine, log),
    [DECIDE]: () =>
      world.engine.decide({
        domain: 'actions',
        ...IDENTITY,
        input: { tool: 'notes__search_notes', classification_level: 'internal' },
      }),
    [APPEND]: () => log.append(ahead).then(() => log.append(outcome)),
  };
  if (kind === 'memory') {
    const canned = await cannedProxy(constant, noop);
    closers.push(canned.close);
    cases[PROXY_WORK] = canned.call;
  } else {
    // The realistic tools: one notes directory, a child per case (a stdio server has one client).
    const dir = writeNotes();
    closers.push(async () => rmSync(dir, { recursive: true, force: true }));
    const disk = (): Transport =>
      new StdioClientTransport({
        command: process.execPath,
        args: ['--import', 'tsx', diskUpstreamFile, dir],
        stderr: 'ignore',
      });
    for (const [i, [directName, noopName, fullName]] of REAL_CASES.entries()) {
      const call = REAL_CALLS[i] as (typeof REAL_CALLS)[number];
      const client = await connected(disk);
      const first = await client.callTool(call);
      if (first.isError) throw new Error(`the realistic ${call.name} failed: ${JSON.stringify(first)}`);
      cases[directName] = () => client.callTool(call);
      cases[noopName] = await proxied(constant, noop, disk, call);
      cases[fullName] = await proxied(world.engine, log, disk, call);
    }
  }
  return {
    cases,
    proxied,
    engine: world.engine,
    constant,
    noop,
    entries: [ahead, outcome],
    async close() {
      await Promise.all(closers.map((c) => c().catch(() => {})));
      await world.close();
    },
  };
}
