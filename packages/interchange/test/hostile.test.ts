/**
 * The responder enforces everything again: deliveries signed by another key, claiming another
 * identity, a lower classification, a later round or a higher limit, addressed to someone else,
 * replayed, or with changed content are refused and change nothing.
 */
import { newId } from '@agentgov/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  buildEnvelope,
  contentDigest,
  type EnvelopeClaims,
  type ExchangeMessage,
  signEnvelope,
} from '../src/index';
import { itemsAt, makeWorld, type World } from './harness';

type Claims = Omit<EnvelopeClaims, 'jti' | 'iat' | 'exp'>;

function validClaims(_w: World, message: ExchangeMessage, over: Partial<Claims> = {}): Claims {
  const exchangeId = newId();
  return {
    envelope: buildEnvelope({
      messageType: 'agent-generated',
      replyPolicy: 'agent-ok',
      exchangeId,
      currentRound: 1,
      maxRounds: 3,
      classificationLevel: 'internal',
    }),
    kind: 'query',
    final: true,
    exchangeType: 'information_query',
    // One conversation: the context the transport binds is the conversation (as initiators send it).
    conversationId: 'ctx-1',
    from: { tenantId: 'acme', agentId: 'agent-alice', userId: 'alice', orgUnit: 'eng' },
    to: { tenantId: 'acme', agentId: 'agent-bob' },
    contextId: 'ctx-1',
    digest: contentDigest(message),
    accepts: 'confidential',
    ...over,
  };
}

const sign = (w: World, claims: Claims, who: 'alice' | 'dave' | 'carol' = 'alice') =>
  signEnvelope(w.keyPairs[who].signingKey, claims, { nowMs: w.clock.now().getTime(), ttlMs: 60_000 });

const message: ExchangeMessage = { text: 'hello', items: itemsAt('internal') };

async function stored(w: World) {
  return (await w.stores.bob.list('acme', {}, { offset: 0, limit: 100 })).total;
}

describe('hostile deliveries are refused before anything is used', () => {
  it('a valid delivery is accepted once; its replay is refused', async () => {
    const w = await makeWorld();
    const { jws } = await sign(w, validClaims(w, message));
    expect((await w.nodes.bob.receive({ jws, message })).status).toBe('answered');
    const again = await w.nodes.bob.receive({ jws, message });
    expect(again).toMatchObject({
      status: 'refused',
      error: { error: 'invalid_token', detail: { reason: 'replayed' } },
    });
  });

  const cases: {
    name: string;
    make: (w: World) => Promise<{ jws: string; message: unknown }>;
    code: string;
    reason?: string;
  }[] = [
    {
      name: 'no envelope (a plain message is never treated as human)',
      make: async () => ({ jws: '', message }),
      code: 'invalid_token',
      reason: 'envelope_missing',
    },
    {
      name: 'garbage',
      make: async () => ({ jws: 'a.b.c', message }),
      code: 'invalid_token',
      reason: 'envelope_malformed',
    },
    {
      name: "signed by dave's key, claiming to be alice",
      make: async (w) => {
        const c = validClaims(w, message);
        const { jws } = await sign(w, c, 'dave');
        // re-label the header as alice's key id: the signature no longer verifies
        const [, p, s] = jws.split('.');
        const h = Buffer.from(
          JSON.stringify({ alg: 'ES256', kid: 'acme/agent-alice', typ: 'agentgov-envelope+jws' }),
        ).toString('base64url');
        return { jws: `${h}.${p}.${s}`, message };
      },
      code: 'invalid_token',
      reason: 'signature_invalid',
    },
    {
      name: 'signed by carol, claiming to be alice',
      make: async (w) => ({ jws: (await sign(w, validClaims(w, message), 'carol')).jws, message }),
      code: 'invalid_token',
      reason: 'sender_mismatch',
    },
    {
      name: 'addressed to carol (re-addressed)',
      make: async (w) => ({
        jws: (await sign(w, validClaims(w, message, { to: { tenantId: 'acme', agentId: 'agent-carol' } })))
          .jws,
        message,
      }),
      code: 'invalid_token',
      reason: 'audience_mismatch',
    },
    {
      name: 'content changed after signing',
      make: async (w) => ({
        jws: (await sign(w, validClaims(w, message))).jws,
        message: { ...message, items: itemsAt('restricted') },
      }),
      code: 'invalid_token',
      reason: 'digest_mismatch',
    },
    {
      name: 'expired',
      make: async (w) => {
        const { jws } = await sign(w, validClaims(w, message));
        w.clock.advance(120_000);
        return { jws, message };
      },
      code: 'invalid_token',
      reason: 'expired',
    },
    {
      name: 'a later round of an unknown exchange',
      make: async (w) => {
        const c = validClaims(w, message);
        return { jws: (await sign(w, { ...c, envelope: { ...c.envelope, currentRound: 2 } })).jws, message };
      },
      code: 'policy_denied',
    },
    {
      name: 'a reply where a query is expected',
      make: async (w) => ({ jws: (await sign(w, validClaims(w, message, { kind: 'reply' }))).jws, message }),
      code: 'invalid_token',
      reason: 'wrong_kind',
    },
    {
      name: 'from another tenant (dave, validly signed)',
      make: async (w) => ({
        jws: (
          await sign(
            w,
            validClaims(w, message, {
              from: { tenantId: 'globex', agentId: 'agent-dave', userId: 'dave', orgUnit: 'eng' },
            }),
            'dave',
          )
        ).jws,
        message,
      }),
      code: 'CROSS_ENTERPRISE_BLOCKED',
    },
    {
      name: 'an agent-generated commitment',
      make: async (w) => {
        const m = { ...message, commitment: { action: 'pay' } };
        return {
          jws: (await sign(w, validClaims(w, m, { exchangeType: 'commitment_request' }))).jws,
          message: m,
        };
      },
      code: 'COMMITMENT_REQUIRES_HUMAN',
    },
  ];
  for (const c of cases) {
    it(`${c.name} → ${c.code}${c.reason ? ` (${c.reason})` : ''}; nothing stored`, async () => {
      const w = await makeWorld();
      const d = await c.make(w);
      const r = await w.nodes.bob.receive(d as { jws: string; message: ExchangeMessage });
      expect(r.status).toBe('refused');
      if (r.status !== 'refused') return;
      expect(r.error.error).toBe(c.code);
      if (c.reason) expect((r.error.detail as { reason: string }).reason).toBe(c.reason);
      expect(await stored(w)).toBe(0);
      expect(w.audits.bob.entries.at(-1)).toMatchObject({ actionType: 'agent_exchange', outcome: 'denied' });
    });
  }

  it('a sender cannot lower the classification: the responder filters by its own ceiling', async () => {
    const w = await makeWorld({ identity: { bob: '{"maxClassificationShared":"internal"}' } });
    const seen: string[] = [];
    // The envelope claims "public", the items are internal, confidential and restricted.
    const m: ExchangeMessage = { text: 'x', items: itemsAt('internal', 'confidential', 'restricted') };
    const c = validClaims(w, m);
    const { jws } = await sign(w, { ...c, envelope: { ...c.envelope, classificationLevel: 'public' } });
    const r = await w.nodes.bob.receive({ jws, message: m });
    expect(r.status).toBe('answered');
    const x = (await w.stores.bob.list('acme', {}, { offset: 0, limit: 1 })).exchanges[0];
    for (const t of x?.transcript ?? [])
      for (const i of (t.items as { classification: string }[] | undefined) ?? [])
        seen.push(i.classification);
    expect(seen).toEqual(['internal']);
    expect(x?.dataWithheld.map((d) => d.reason)).toEqual([
      'classification_exceeded',
      'classification_exceeded',
    ]);
  });

  it('a sender cannot claim a higher limit or skip rounds mid-exchange', async () => {
    const w = await makeWorld();
    const c1 = validClaims(w, message, { final: false });
    expect((await w.nodes.bob.receive({ jws: (await sign(w, c1)).jws, message })).status).toBe('answered');
    const next = (round: number, maxRounds: number) => ({
      ...c1,
      envelope: { ...c1.envelope, currentRound: round, maxRounds },
    });
    const higher = await w.nodes.bob.receive({ jws: (await sign(w, next(2, 10))).jws, message });
    expect(higher).toMatchObject({
      status: 'refused',
      error: { detail: { reason: 'round_limit_mismatch' } },
    });
    const skipped = await w.nodes.bob.receive({ jws: (await sign(w, next(3, 3))).jws, message });
    expect(skipped).toMatchObject({ status: 'refused', error: { detail: { reason: 'round_out_of_order' } } });
    const beyond = await w.nodes.bob.receive({ jws: (await sign(w, next(4, 3))).jws, message });
    expect(beyond).toMatchObject({ status: 'refused', error: { error: 'EXCHANGE_ROUND_LIMIT' } });
    expect((await w.stores.bob.get('acme', c1.envelope.exchangeId))?.currentRound).toBe(1);
  });

  it('once the last round escalated the exchange, any further message is EXCHANGE_ROUND_LIMIT, that round again too', async () => {
    const w = await makeWorld();
    const c1 = validClaims(w, message, { final: false });
    const round = (n: number) => ({ ...c1, envelope: { ...c1.envelope, currentRound: n, maxRounds: 3 } });
    for (const n of [1, 2, 3])
      expect((await w.nodes.bob.receive({ jws: (await sign(w, round(n))).jws, message })).status).toBe(
        'answered',
      );
    expect((await w.stores.bob.get('acme', c1.envelope.exchangeId))?.outcome).toBe('escalated');
    for (const n of [3, 4]) {
      const again = await w.nodes.bob.receive({ jws: (await sign(w, round(n))).jws, message });
      expect(again).toMatchObject({ status: 'refused', error: { error: 'EXCHANGE_ROUND_LIMIT' } });
    }
  });
});

describe('property: random forged or mutated envelopes are always rejected', () => {
  it('any change to a valid compact JWS or its content is refused and stores nothing', async () => {
    const w = await makeWorld();
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.record({
            kind: fc.constant('jws' as const),
            at: fc.nat(),
            ch: fc.constantFrom(...'ABCDEFabcdef0123456789-_.'.split('')),
          }),
          fc.record({ kind: fc.constant('text' as const), text: fc.string() }),
          fc.record({
            kind: fc.constant('level' as const),
            level: fc.constantFrom('public', 'confidential', 'restricted'),
          }),
          fc.record({
            kind: fc.constant('claims' as const),
            field: fc.constantFrom('to', 'from', 'round', 'max', 'type', 'level'),
          }),
        ),
        async (m) => {
          const c = validClaims(w, message);
          let jws: string;
          let content: unknown = message;
          if (m.kind === 'claims') {
            // re-signed by alice, but claiming something she may not: all bound by verification
            const e = c.envelope;
            const bad: Claims =
              m.field === 'to'
                ? { ...c, to: { tenantId: 'acme', agentId: 'agent-carol' } }
                : m.field === 'from'
                  ? { ...c, from: { ...c.from, agentId: 'agent-carol' } }
                  : m.field === 'round'
                    ? { ...c, envelope: { ...e, currentRound: 2 } }
                    : m.field === 'max'
                      ? { ...c, envelope: { ...e, currentRound: 5, maxRounds: 4 } }
                      : m.field === 'type'
                        ? { ...c, kind: 'reply' }
                        : { ...c, digest: contentDigest({ ...message, items: [] }) };
            jws = (await sign(w, bad)).jws;
          } else {
            jws = (await sign(w, c)).jws;
            if (m.kind === 'jws') {
              const i = m.at % jws.length;
              const mutated = jws.slice(0, i) + m.ch + jws.slice(i + 1);
              // Not a change when every segment still decodes to the same bytes (base64url padding bits).
              const bytes = (t: string) =>
                t.split('.').map((seg) => Buffer.from(seg, 'base64url').toString('hex'));
              if (mutated.split('.').length === 3 && bytes(mutated).join('.') === bytes(jws).join('.'))
                return;
              jws = mutated;
            } else if (m.kind === 'text') {
              if (m.text === message.text) return;
              content = { ...message, text: m.text };
            } else {
              content = {
                ...message,
                items: message.items.map((it) => ({ ...it, classification: m.level })),
              };
            }
          }
          const before = await stored(w);
          const r = await w.nodes.bob.receive({ jws, message: content as ExchangeMessage });
          expect(r.status).toBe('refused');
          expect(await stored(w)).toBe(before);
        },
      ),
      { numRuns: 150 },
    );
  });
});
