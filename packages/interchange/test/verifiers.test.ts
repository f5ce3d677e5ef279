/**
 * Issue 28: the interchange verifiers follow the one error convention (docs/architecture.md) —
 * they answer `Result<Verified, VerificationError>` and never throw for anything in their input;
 * each refusal keeps its reason code.
 */
import { VerificationError } from '@agentgov/core';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { CALLER_JWS_TYPE, callerToken, verifyCallerToken, verifyGovernedCard } from '../src/a2a/index';
import { verifyEnvelope } from '../src/index';
import { signCompact } from '../src/jws';
import { keyId } from '../src/keys';
import { audience, makeWorld, type World } from './harness';

let w: World;
beforeAll(async () => {
  w = await makeWorld();
});

const nowMs = () => w.clock.now().getTime();
const bob = audience('bob');
const toBob = (method = 'SendMessage') => ({ audience: bob, method, nowMs: nowMs() });

/** Something a peer could send in place of a token, an envelope or a card. */
const junk = fc.oneof(
  fc.anything(),
  fc.string(),
  fc.base64String().map((s) => `${s}.${s}.${s}`),
  fc.jsonValue().map((v) => `${Buffer.from(JSON.stringify(v)).toString('base64url')}.e30.c2ln`),
);

describe('the interchange verifiers answer a Result', () => {
  it('verifyCallerToken: ok with the caller; each refusal a VerificationError with its reason', async () => {
    const good = await callerToken(w.keyPairs.alice.signingKey, bob, 'SendMessage', nowMs());
    const ok = (await verifyCallerToken(good, w.keys, toBob()))._unsafeUnwrap();
    expect(ok.caller).toEqual({ tenantId: 'acme', agentId: 'agent-alice' });
    const refused = async (token: string | undefined, method = 'SendMessage') => {
      const e = (await verifyCallerToken(token, w.keys, toBob(method)))._unsafeUnwrapErr();
      expect(e).toBeInstanceOf(VerificationError);
      expect(e).toMatchObject({ code: 'invalid_type', detail: { reason: e.reason } });
      return [e.reason, e.message];
    };
    expect(await refused(undefined)).toEqual([
      'caller_token_missing',
      'caller authentication failed: caller_token_missing',
    ]);
    expect((await refused(good, 'GetTask'))[0]).toBe('caller_method_mismatch');
    expect((await refused(`${good.slice(0, -4)}AAAA`))[0]).toBe('caller_signature_invalid');
  });

  it('verifyCallerToken: a signed payload that is not an object is malformed (it threw a TypeError before)', async () => {
    const key = w.keyPairs.alice.signingKey;
    const header = { alg: key.alg, kid: keyId(key.tenantId, key.agentId), typ: CALLER_JWS_TYPE };
    for (const payload of ['null', '7', '"x"']) {
      const token = await signCompact(header, payload, key.privateKey);
      const r = await verifyCallerToken(token, w.keys, toBob());
      expect(r._unsafeUnwrapErr().reason).toBe('caller_token_malformed');
    }
  });

  it('verifyGovernedCard refuses what is not a card with card_malformed', async () => {
    const r = await verifyGovernedCard({ name: 'not a card' }, 'agent-bob', w.keys);
    expect(r._unsafeUnwrapErr()).toMatchObject({
      reason: expect.stringMatching(/^card_/),
      code: 'invalid_type',
    });
  });

  it('property: no input makes a verifier throw; every refusal is a VerificationError', async () => {
    await fc.assert(
      fc.asyncProperty(junk, async (input) => {
        const results = [
          await verifyCallerToken(input, w.keys, toBob()),
          await verifyEnvelope(input, w.keys, { audience: bob, content: input, nowMs: nowMs() }),
          await verifyGovernedCard(input, 'agent-bob', w.keys),
        ];
        for (const r of results) {
          expect(r.isErr()).toBe(true);
          if (r.isErr()) expect(r.error).toBeInstanceOf(VerificationError);
        }
      }),
      { numRuns: 200 },
    );
  });
});
