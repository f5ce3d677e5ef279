/**
 * `InterchangeNode.receive`'s `onVerified`: a transport gets the claims of an envelope the node
 * verified (what the A2A server reads the exchange and round from), and nothing for one it refused.
 * And the other way: the claims a sender attaches to a `Delivery` are its own convenience, never
 * evidence for the receiver — forged ones change nothing it records.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { A2ATransport } from '../src/a2a/index';
import type { EnvelopeClaims, ExchangeMessage } from '../src/index';
import { serveAgents } from './a2a-harness';
import { aliceAsksBob, makeWorld, type World } from './harness';

let w: World;
beforeAll(async () => {
  w = await makeWorld({ stores: 'separate' });
});

const message: ExchangeMessage = { text: 'status?', items: [] };
const query = (ttlMs = 60_000) => aliceAsksBob(w, message, ttlMs);

describe('receive: onVerified', () => {
  it('is called once with the verified claims, before the answer', async () => {
    const { jws, claims } = await query();
    const seen: EnvelopeClaims[] = [];
    const r = await w.nodes.bob.receive({ jws, message }, { onVerified: (c) => seen.push(c) });
    expect(r.status).toBe('answered');
    expect(seen).toEqual([claims]);
  });

  it('is not called for an envelope the node refuses: too long-lived, replayed, or not matching its content', async () => {
    const seen: EnvelopeClaims[] = [];
    const onVerified = (c: EnvelopeClaims) => seen.push(c);
    const long = await query(365 * 86_400_000);
    expect(await w.nodes.bob.receive({ jws: long.jws, message }, { onVerified })).toMatchObject({
      status: 'refused',
      error: { detail: { reason: 'lifetime_too_long' } },
    });
    const once = await query();
    expect((await w.nodes.bob.receive({ jws: once.jws, message })).status).toBe('answered');
    expect(await w.nodes.bob.receive({ jws: once.jws, message }, { onVerified })).toMatchObject({
      status: 'refused',
      error: { detail: { reason: 'replayed' } },
    });
    const other = await query();
    expect(
      await w.nodes.bob.receive({ jws: other.jws, message: { text: 'other', items: [] } }, { onVerified }),
    ).toMatchObject({ status: 'refused', error: { detail: { reason: 'digest_mismatch' } } });
    expect(seen).toEqual([]);
  });
});

describe('a Delivery with forged claims (the sender’s own, never the receiver’s evidence)', () => {
  const forged = {
    contextId: 'context-of-another-exchange',
    envelope: { exchangeId: 'exchange-not-signed' },
  };

  it('in process: the receiver records the exchange the JWS names, and never sees the claims', async () => {
    const { jws, claims } = await query();
    const seen: unknown[] = [];
    const bob = w.nodes.bob;
    const receive = bob.receive.bind(bob);
    bob.receive = (delivery, options) => {
      seen.push(delivery);
      return receive(delivery, options);
    };
    try {
      const peer = await bob.peerInfo();
      const r = await w.network.deliver(peer, { jws, message, claims: forged });
      expect(r.status).toBe('answered');
    } finally {
      bob.receive = receive;
    }
    expect(seen).toEqual([{ jws, message }]);
    expect(await w.stores.bob.get('acme', claims.envelope.exchangeId)).toBeDefined();
    expect(await w.stores.bob.get('acme', forged.envelope.exchangeId)).toBeUndefined();
  });

  it('over A2A: another context is refused (context_mismatch); another exchange id is never taken', async () => {
    const world = await makeWorld({ stores: 'separate' });
    // Served A2A nodes keep the system's time: the envelopes are signed at it too.
    const served = await serveAgents(world, ['bob']);
    const transport = new A2ATransport({
      signingKey: world.keyPairs.alice.signingKey,
      keys: world.keys,
      resolve: (id) => served.urls.get(id),
    });
    try {
      const peer = await transport.peer('agent-bob');
      if (!peer) throw new Error('no peer');
      const mismatched = await aliceAsksBob(world, message, 60_000, Date.now());
      expect(await transport.deliver(peer, { jws: mismatched.jws, message, claims: forged })).toMatchObject({
        status: 'refused',
        error: { detail: { reason: 'context_mismatch' } },
      });
      expect(await world.stores.bob.get('acme', mismatched.claims.envelope.exchangeId)).toBeUndefined();

      const signed = await aliceAsksBob(world, message, 60_000, Date.now());
      const sameContext = { contextId: signed.claims.contextId, envelope: forged.envelope };
      // No automatic answer configured: the round waits for bob, under the exchange the JWS names.
      expect((await transport.deliver(peer, { jws: signed.jws, message, claims: sameContext })).status).toBe(
        'pending',
      );
      expect(await world.stores.bob.get('acme', signed.claims.envelope.exchangeId)).toBeDefined();
      expect(await world.stores.bob.get('acme', forged.envelope.exchangeId)).toBeUndefined();
    } finally {
      await transport.close();
      await served.close();
    }
  });
});
