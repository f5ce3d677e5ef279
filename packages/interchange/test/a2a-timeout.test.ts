/** A2ATransport's per-call timeout and the caller's signal: a peer that never answers is given up on. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2ATransport } from '../src/a2a/index';
import { makeWorld } from './harness';

let server: http.Server;
let url: string;
beforeAll(async () => {
  // Takes every request and never answers.
  server = http.createServer(() => {});
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

describe('A2ATransport: a peer that never answers', () => {
  it('the per-call timeout aborts the call (TimeoutError)', async () => {
    const w = await makeWorld();
    const t = new A2ATransport({
      signingKey: w.keyPairs.alice.signingKey,
      keys: w.keys,
      resolve: () => url,
      timeoutMs: 50,
    });
    await expect(t.peer('agent-bob')).rejects.toMatchObject({ name: 'TimeoutError' });
  });

  it("the caller's signal aborts the call with its reason", async () => {
    const w = await makeWorld();
    const t = new A2ATransport({ signingKey: w.keyPairs.alice.signingKey, keys: w.keys, resolve: () => url });
    const controller = new AbortController();
    const call = t.peer('agent-bob', { signal: controller.signal });
    controller.abort(new Error('stop'));
    await expect(call).rejects.toThrow('stop');
    const aborted = AbortSignal.abort(new Error('already'));
    await expect(t.peer('agent-bob', { signal: aborted })).rejects.toThrow('already');
  });
});
