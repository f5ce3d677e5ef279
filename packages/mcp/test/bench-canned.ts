/**
 * The proxy's own work per `tools/call`, without the SDK at either end: raw JSON-RPC sent on the
 * proxy's server transport (in memory), a canned upstream transport that answers each request in
 * a microtask. What is left is the proxy: serving the call from its transport, the governor, the
 * forwarder and the result check. Steadier under load than the cases with an SDK client and
 * server around it (fewer allocations and less code per call); used by `bench/mcp.bench.ts`.
 */
import type { AuditSink, DecisionEngine } from '@agentgov/core';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { createMcpProxy } from '../src/index';

const RESULTS: Record<string, unknown> = {
  initialize: {
    protocolVersion: '2025-06-18',
    capabilities: { tools: {} },
    serverInfo: { name: 'canned', version: '1' },
  },
  'tools/list': { tools: [{ name: 'search_notes', inputSchema: { type: 'object' } }] },
  'tools/call': {
    content: [{ type: 'text', text: '["plan.md"]' }],
    structuredContent: { hits: ['plan.md'] },
  },
};

/** An upstream that answers every request with its canned result, one microtask later. */
class CannedUpstream implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  async start(): Promise<void> {}
  async close(): Promise<void> {
    this.onclose?.();
  }
  async send(message: JSONRPCMessage): Promise<void> {
    const m = message as { id?: string | number; method?: string };
    if (m.id === undefined || m.method === undefined) return;
    const reply = { jsonrpc: '2.0', id: m.id, result: RESULTS[m.method] ?? {} } as JSONRPCMessage;
    queueMicrotask(() => this.onmessage?.(reply));
  }
}

/** A proxy session driven by raw JSON-RPC: `call()` sends one `tools/call` and awaits its answer. */
export async function cannedProxy(
  engine: DecisionEngine,
  audit: AuditSink,
): Promise<{ call: () => Promise<JSONRPCMessage>; close: () => Promise<void> }> {
  const proxy = createMcpProxy(
    {
      upstreams: [{ namespace: 'notes', transport: 'stdio', command: 'unused' }],
      limits: { callsPerWindow: 1e9 },
    },
    { engine, audit, connect: { notes: () => new CannedUpstream() } },
  );
  const [front, serverSide] = InMemoryTransport.createLinkedPair();
  await proxy.connect(serverSide, { tenantId: 'acme', userId: 'alice' });
  let answer: ((m: JSONRPCMessage) => void) | undefined;
  front.onmessage = (m) => {
    const a = answer;
    answer = undefined;
    a?.(m);
  };
  await front.start();
  let id = 0;
  const request = (method: string, params: Record<string, unknown>) =>
    new Promise<JSONRPCMessage>((resolve) => {
      answer = resolve;
      void front.send({ jsonrpc: '2.0', id: ++id, method, params });
    });
  await request('initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'bench', version: '1' },
  });
  await front.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  await request('tools/list', {});
  const params = { name: 'notes__search_notes', arguments: { query: 'plan' } };
  const first = await request('tools/call', params);
  if (!('result' in first)) throw new Error(`the canned call failed: ${JSON.stringify(first)}`);
  return { call: () => request('tools/call', params), close: () => proxy.close() };
}
