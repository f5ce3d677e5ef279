/**
 * `InterchangeNode.receive`'s `onVerified`: a transport gets the claims of an envelope the node
 * verified (what the A2A server reads the exchange and round from), and nothing for one it refused.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { EnvelopeClaims, ExchangeMessage } from '../src/index';
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
