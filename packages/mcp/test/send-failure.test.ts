/**
 * The transport-level answer and forward (`serve.ts`'s `respond`, the forwarder's `#send`): a
 * served call's result or failure is sent as its JSON-RPC answer, a cancelled call is answered
 * with nothing, a failed send is reported to the server's `onerror`; a forwarded call whose send
 * fails (rejected or thrown) is rejected with that failure and leaves nothing pending.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { CallForwarder } from '../src/forward';
import { serveToolCalls } from '../src/serve';

const ticks = async (n = 5) => {
  for (let i = 0; i < n; i++) await Promise.resolve();
};

function served(serve: () => Promise<CallToolResult>, send: (m: JSONRPCMessage) => Promise<void>) {
  const errors: Error[] = [];
  const server = { getClientCapabilities: () => undefined, onerror: (e: Error) => errors.push(e) };
  const transport = { send, start: async () => {}, close: async () => {} } as unknown as Transport;
  serveToolCalls(server as unknown as Server, transport, serve, 1000);
  const call = (id: number) =>
    transport.onmessage?.({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 't', arguments: {} },
    } as JSONRPCMessage);
  return { transport, errors, call };
}

describe('serving a tools/call from the transport', () => {
  it('sends the result, and a failure as a JSON-RPC error', async () => {
    const sent: JSONRPCMessage[] = [];
    const result = { content: [{ type: 'text' as const, text: 'ok' }] };
    const ok = served(
      async () => result,
      async (m) => void sent.push(m),
    );
    ok.call(1);
    await ticks();
    expect(sent).toEqual([{ jsonrpc: '2.0', id: 1, result }]);
    const failures = [
      { code: -32602, message: 'bad', data: { x: 1 } },
      { code: 1.5, message: 'odd code' },
      'a string',
    ];
    for (const failure of failures) {
      const failed = served(
        () => Promise.reject(failure),
        async (m) => void sent.push(m),
      );
      failed.call(2);
    }
    await ticks();
    expect(sent.slice(1)).toEqual([
      { jsonrpc: '2.0', id: 2, error: { code: -32602, message: 'bad', data: { x: 1 } } },
      { jsonrpc: '2.0', id: 2, error: { code: -32603, message: 'odd code' } },
      { jsonrpc: '2.0', id: 2, error: { code: -32603, message: 'Internal error' } },
    ]);
  });

  it('answers a cancelled call with nothing, and reports a failed send to onerror', async () => {
    const sent: JSONRPCMessage[] = [];
    let finish: (r: CallToolResult) => void = () => {};
    const cancelled = served(
      () => new Promise((resolve) => (finish = resolve)),
      async (m) => void sent.push(m),
    );
    cancelled.call(7);
    cancelled.transport.onmessage?.({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 7, reason: 'stop' },
    });
    finish({ content: [] });
    await ticks();
    expect(sent).toEqual([]);

    const failing = served(
      async () => ({ content: [] }),
      () => Promise.reject(new Error('gone')),
    );
    failing.call(3);
    await ticks();
    expect(failing.errors.map((e) => e.message)).toEqual(['Failed to send response: Error: gone']);
  });
});

describe('forwarding a tools/call', () => {
  function forwarder(send: (m: JSONRPCMessage) => Promise<void>) {
    const transport = { send, start: async () => {}, close: async () => {} } as unknown as Transport;
    return new CallForwarder({ transport } as unknown as Client);
  }

  it('rejects the call with the send failure, rejected or thrown, and keeps nothing pending', async () => {
    const failure = new Error('broken pipe');
    for (const send of [
      () => Promise.reject(failure),
      () => {
        throw failure;
      },
    ]) {
      const f = forwarder(send as (m: JSONRPCMessage) => Promise<void>);
      await expect(f.call({ name: 't', arguments: {} }, { timeoutMs: 60_000 })).rejects.toBe(failure);
      // Nothing left to cut: a sweep finds no pending call and arms no timer.
      f.sweep();
    }
  });

  it('sends the call with a string id and resolves with its result', async () => {
    const sent: JSONRPCMessage[] = [];
    const transport = {
      send: async (m: JSONRPCMessage) => void sent.push(m),
    } as unknown as Transport;
    const f = new CallForwarder({ transport } as unknown as Client);
    const call = f.call({ name: 't', arguments: { a: 1 } }, { timeoutMs: 60_000 });
    await ticks();
    expect(sent).toEqual([
      { jsonrpc: '2.0', id: 'agentgov-1', method: 'tools/call', params: { name: 't', arguments: { a: 1 } } },
    ]);
    transport.onmessage?.({ jsonrpc: '2.0', id: 'agentgov-1', result: { content: [] } });
    await expect(call).resolves.toEqual({ content: [] });
  });
});
