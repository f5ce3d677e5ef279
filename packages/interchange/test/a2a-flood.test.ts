/**
 * Whoever cannot sign cannot write to the tenant's audit log at will: deliveries whose envelope
 * does not verify are recorded up to `limits.unverifiedPerMinute` per client address and minute,
 * then refused with `rate_limit_exceeded`, unrecorded (the operator's log says so once). Verified
 * deliveries never count.
 */
import type { Logger, RateLimiter } from '@agentgov/core';
import { MemoryRateLimiter } from '@agentgov/core';
import { afterEach, describe, expect, it } from 'vitest';
import { EXT, postJsonRpc, serveAgents, signedSendMessage, V1 } from './a2a-harness';
import { audience, makeWorld, sender, type World } from './harness';

const warnings: { message: string; fields: unknown }[] = [];
const logger: Logger = {
  debug() {},
  info() {},
  warn: (message, fields) => warnings.push({ message, fields }),
  error() {},
};

async function signedQuery(w: World, text: string) {
  return (
    await signedSendMessage({
      signer: w.keyPairs.alice.signingKey,
      from: sender('alice'),
      to: audience('bob'),
      message: { text, items: [] },
      nowMs: Date.now(),
    })
  ).request;
}

const unverifiedEntries = (w: World) =>
  w.audits.bob.entries.filter((e) => e.actionDetail.exchangeId === '(unverified)');

describe('the A2A server: deliveries that do not verify, per client address', () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of closers.splice(0)) await c();
    warnings.length = 0;
  });

  async function bobServed(server: { limits?: { unverifiedPerMinute?: number }; rateLimiter?: RateLimiter }) {
    const w = await makeWorld({ stores: 'separate' });
    const served = await serveAgents(w, ['bob'], { server: { logger, ...server } });
    closers.push(served.close);
    const send = (body: unknown) => postJsonRpc(served.servers.bob.url, body, { ...EXT, ...V1 });
    return { w, send };
  }

  it('recorded up to the limit, then rate_limit_exceeded and unrecorded; a verified delivery still goes', async () => {
    const { w, send } = await bobServed({ limits: { unverifiedPerMinute: 3 } });
    const q = await signedQuery(w, 'once');
    expect((await send(q)).body.result).toBeDefined();
    // The same envelope again: a replay, which does not verify.
    for (let i = 0; i < 3; i++) {
      const r = await send(q);
      expect(r.status).toBe(200);
      expect(r.body.error).toMatchObject({ code: -32042, data: { reason: 'replayed' } });
    }
    expect(unverifiedEntries(w)).toHaveLength(3);
    for (let i = 0; i < 4; i++) {
      const r = await send(q);
      expect(r.body.error).toMatchObject({
        code: -32042,
        data: { reason: 'unverified_rate', error: { error: 'rate_limit_exceeded' } },
      });
    }
    expect(unverifiedEntries(w)).toHaveLength(3);
    expect(warnings.filter((x) => x.message.includes('over the limit'))).toHaveLength(1);
    expect(warnings[0]?.fields).toMatchObject({ perMinute: 3 });
    // A delivery that verifies is neither counted nor refused.
    const fresh = await send(await signedQuery(w, 'again'));
    expect(fresh.body.result).toBeDefined();
  });

  it('a garbage envelope counts like a replay; the default limit is 30 a minute', async () => {
    const { w, send } = await bobServed({});
    const q = (await signedQuery(w, 'forged')) as {
      params: { message: { metadata: Record<string, unknown> } };
    };
    const forged = structuredClone(q);
    const meta = Object.values(forged.params.message.metadata)[0] as { envelope: string };
    meta.envelope = `${meta.envelope.slice(0, -4)}AAAA`;
    const reasons = new Set<string>();
    for (let i = 0; i < 32; i++) reasons.add((await send(forged)).body.error?.data?.reason);
    expect(reasons).toEqual(new Set(['signature_invalid', 'unverified_rate']));
    expect(unverifiedEntries(w)).toHaveLength(30);
  });

  it('a shared limiter counts across servers; one that fails records every refusal', async () => {
    const shared = new MemoryRateLimiter();
    const a = await bobServed({ limits: { unverifiedPerMinute: 2 }, rateLimiter: shared });
    const q = await signedQuery(a.w, 'x');
    await a.send(q);
    await a.send(q);
    expect(unverifiedEntries(a.w)).toHaveLength(1);
    // Another server (another instance, another log) on the same limiter: one more is recorded.
    const c = await bobServed({ limits: { unverifiedPerMinute: 2 }, rateLimiter: shared });
    const q3 = await signedQuery(c.w, 'z');
    await c.send(q3);
    expect((await c.send(q3)).body.error?.data?.reason).toBe('replayed');
    expect((await c.send(q3)).body.error?.data?.reason).toBe('unverified_rate');
    expect((await a.send(q)).body.error?.data?.reason).toBe('unverified_rate');
    expect(unverifiedEntries(c.w)).toHaveLength(1);
    expect(unverifiedEntries(a.w)).toHaveLength(1);
    const broken: RateLimiter = {
      consume: async () => {
        throw new Error('redis down');
      },
    };
    const b = await bobServed({ limits: { unverifiedPerMinute: 1 }, rateLimiter: broken });
    const q2 = await signedQuery(b.w, 'y');
    await b.send(q2);
    for (let i = 0; i < 3; i++) expect((await b.send(q2)).body.error?.data?.reason).toBe('replayed');
    expect(unverifiedEntries(b.w)).toHaveLength(3);
    expect(warnings.some((x) => x.message.includes('flood guard unavailable'))).toBe(true);
  });
});
