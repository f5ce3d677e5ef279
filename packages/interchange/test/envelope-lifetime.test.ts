/**
 * Issue 23, item 7: an envelope's lifetime is capped (300 s by default, like caller tokens;
 * configurable per node): `exp - iat` above the cap, or an `exp` beyond now + cap + skew, is
 * refused with `lifetime_too_long`. Time is the world's ManualClock.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type ExchangeMessage,
  InterchangeNode,
  MAX_ENVELOPE_LIFETIME_MS,
  type NodeOptions,
  parseAgentIdentityConfig,
  verifyEnvelope,
} from '../src/index';
import { aliceAsksBob, makeWorld, nodeBase, type World } from './harness';

let w: World;
beforeAll(async () => {
  w = await makeWorld({ stores: 'separate' });
});

const message: ExchangeMessage = { text: 'status?', items: [] };

/** alice's query to bob, signed at the world's now with `ttlMs`. */
const query = (ttlMs: number, nowMs?: number) => aliceAsksBob(w, message, ttlMs, nowMs);

/** bob's node on the world's in-process network, its identity the default one. */
const bobWith = (extra: Partial<NodeOptions>) =>
  new InterchangeNode({
    ...nodeBase(w, 'bob'),
    identityConfig: parseAgentIdentityConfig(undefined),
    transport: w.network,
    ...extra,
  });

const verify = (jws: string, maxLifetimeMs?: number) =>
  verifyEnvelope(jws, w.keys, {
    audience: { tenantId: 'acme', agentId: 'agent-bob' },
    content: message,
    nowMs: w.clock.now().getTime(),
    ...(maxLifetimeMs !== undefined ? { maxLifetimeMs } : {}),
  });
/** The reason verifyEnvelope refuses `jws` with (it answers a Result, never throws). */
const refusal = async (jws: string, maxLifetimeMs?: number) => {
  const r = await verify(jws, maxLifetimeMs);
  return r.isErr() ? r.error.reason : 'verified';
};

describe('item 7: envelope lifetime has a maximum', () => {
  it('a year-long envelope is refused by the node (invalid_token, lifetime_too_long) and uses no round', async () => {
    const { jws, claims } = await query(365 * 86_400_000);
    const r = await w.nodes.bob.receive({ jws, message });
    expect(r).toMatchObject({
      status: 'refused',
      error: { error: 'invalid_token', detail: { reason: 'lifetime_too_long' } },
    });
    expect(await w.stores.bob.get('acme', claims.envelope.exchangeId)).toBeUndefined();
    expect(await refusal(jws)).toBe('lifetime_too_long');
  });

  it('one at the 300 s cap is answered', async () => {
    expect(MAX_ENVELOPE_LIFETIME_MS).toBe(300_000);
    const { jws } = await query(300_000);
    expect((await verify(jws))._unsafeUnwrap()).toMatchObject({ kind: 'query' });
    const r = await w.nodes.bob.receive({ jws, message });
    expect(r.status).toBe('answered');
    // one second over the cap is not
    const over = await query(301_000);
    expect(await refusal(over.jws)).toBe('lifetime_too_long');
  });

  it('an exp far in the future is refused even when the claimed lifetime is short (iat in the future too)', async () => {
    const later = w.clock.now().getTime() + 30 * 86_400_000;
    const { jws } = await query(60_000, later);
    expect(await refusal(jws)).toMatch(/not_yet_valid|lifetime/);
    // a long lifetime that started in the past but still ends beyond now + cap + skew
    const { jws: stale } = await query(10 * 86_400_000, w.clock.now().getTime() - 86_400_000);
    expect(await refusal(stale)).toBe('lifetime_too_long');
  });

  it('the cap is configurable on the node (and verify options); a node cannot sign beyond its own cap', async () => {
    const { jws } = await query(120_000);
    expect(await refusal(jws, 60_000)).toBe('lifetime_too_long');
    const strict = bobWith({ clock: w.clock, maxEnvelopeLifetimeMs: 60_000 });
    expect(await strict.receive({ jws, message })).toMatchObject({
      status: 'refused',
      error: { detail: { reason: 'lifetime_too_long' } },
    });
    expect(() => bobWith({ envelopeTtlMs: 600_000 })).toThrow(/maxEnvelopeLifetimeMs/);
  });
});
