/**
 * The accept-only shortcuts of the A2A gate and the envelope path give exactly what the general
 * code they stand in for gives (fast-check): the envelope's protected header (jose's
 * `decodeProtectedHeader`), the metadata size bound (never below `JSON.stringify`'s byte length),
 * key ids (`encodeURIComponent` / `decodeURIComponent`), the claims read after verification, the
 * compact JWS segments and the `A2A-Extensions` header.
 */
import { generateKeyPairSync } from 'node:crypto';
import fc from 'fast-check';
import { decodeProtectedHeader } from 'jose';
import { describe, expect, it } from 'vitest';
import { activates } from '../src/a2a/http-util';
import { envelopeHeader, jsonSizeBound } from '../src/a2a/send-message';
import { JwsInvalidError, protectedHeader, signCompact, verifyCompact, verifyCompactSync } from '../src/jws';
import { generateAgentKeys, InMemoryReplayGuard, KeyRing, keyId, parseKeyId } from '../src/keys';

/** What `f` returns, or the class and message of what it throws. */
const outcome = (f: () => unknown): unknown => {
  try {
    return { value: f() };
  } catch (error) {
    return { threw: (error as Error).constructor.name, message: (error as Error).message };
  }
};
const b64 = (s: string | Uint8Array) => Buffer.from(s).toString('base64url');

/** Strings around what a segment of a compact JWS may be: base64url of JSON, or anything. */
const segment = fc.oneof(
  fc.jsonValue().map((v) => b64(JSON.stringify(v) ?? '')),
  fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 4 }).map((h) => b64(JSON.stringify(h))),
  fc.string({ unit: 'binary', maxLength: 12 }).map((s) => b64(JSON.stringify({ kid: s }))),
  fc.uint8Array({ maxLength: 24 }).map(b64),
  fc.stringMatching(/^[A-Za-z0-9_=+/ -]{0,12}$/),
  fc.string({ unit: 'binary', maxLength: 12 }),
);
const jwsLike = fc.array(segment, { minLength: 1, maxLength: 6 }).map((parts) => parts.join('.'));

describe('envelopeHeader: jose’s decodeProtectedHeader', () => {
  it('the same header, or the same error, for any string', () => {
    fc.assert(
      fc.property(jwsLike, (jws) => {
        expect(outcome(() => envelopeHeader(jws))).toEqual(outcome(() => decodeProtectedHeader(jws)));
      }),
      { numRuns: 2000 },
    );
    for (const jws of ['', '.', '..', 'e30..', 'e30.x.y', 'W10.x.y', 'bnVsbA.x.y', 'e30=.x.y', 'e.x.y'])
      expect(outcome(() => envelopeHeader(jws))).toEqual(outcome(() => decodeProtectedHeader(jws)));
  });
});

describe('jsonSizeBound: never below the metadata’s JSON size', () => {
  it('for JSON data and for anything JSON.stringify measures', () => {
    const holds = (v: unknown) => {
      let size: number;
      try {
        size = Buffer.byteLength(JSON.stringify(v) ?? '');
      } catch {
        return; // the general path throws (bigint, cycles): the bound is never trusted alone there
      }
      expect(jsonSizeBound(v, 0)).toBeGreaterThanOrEqual(size);
    };
    fc.assert(fc.property(fc.jsonValue(), holds), { numRuns: 1000 });
    fc.assert(fc.property(fc.anything({ withNullPrototype: true, withBoxedValues: true }), holds), {
      numRuns: 1000,
    });
    fc.assert(fc.property(fc.string({ unit: 'binary' }), fc.double(), (s, n) => holds({ [s]: [s, n, -n] })));
    for (const v of [-0.0000012345678901234567, -Number.MAX_VALUE, [undefined, () => 1], { a: undefined }])
      holds(v);
  });
});

describe('key ids: encodeURIComponent and decodeURIComponent', () => {
  const original = {
    keyId: (t: string, a: string) => `${encodeURIComponent(t)}/${encodeURIComponent(a)}`,
    parseKeyId(kid: string) {
      const parts = kid.split('/');
      if (parts.length !== 2 || !parts[0] || !parts[1]) return undefined;
      try {
        return { tenantId: decodeURIComponent(parts[0]), agentId: decodeURIComponent(parts[1]) };
      } catch {
        return undefined;
      }
    },
  };
  const part = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 10 }),
    fc.stringMatching(/^[A-Za-z0-9\-_.!~*'()%/ ]{0,10}$/),
  );
  it('the same key id (or the same URIError) and the same parse, for any strings', () => {
    fc.assert(
      fc.property(part, part, (t, a) => {
        expect(outcome(() => keyId(t, a))).toEqual(outcome(() => original.keyId(t, a)));
        expect(parseKeyId(`${t}/${a}`)).toEqual(original.parseKeyId(`${t}/${a}`));
        expect(parseKeyId(t)).toEqual(original.parseKeyId(t));
        const kid = outcome(() => original.keyId(t, a)) as { value?: string };
        if (kid.value !== undefined) expect(parseKeyId(kid.value)).toEqual(original.parseKeyId(kid.value));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('compact JWS segments without split', () => {
  it('verifyCompact refuses as "not a compact JWS" exactly what does not split in three', async () => {
    const header = { alg: 'ES256' };
    const key = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).publicKey;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom('.', 'e30', 'x', ''), { maxLength: 8 }), async (bits) => {
        const jws = bits.join('');
        const error = await verifyCompact(jws, key, header).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(JwsInvalidError);
        expect((error as Error).message === 'not a compact JWS').toBe(jws.split('.').length !== 3);
      }),
      { numRuns: 300 },
    );
  });
});

describe('activates: the A2A-Extensions header', () => {
  it('activates the URI exactly when the comma-separated, trimmed list names it', () => {
    const uri = 'https://agentgov.dev/a2a/extensions/interchange/v1';
    const original = (h: unknown) =>
      String(h ?? '')
        .split(',')
        .map((s) => s.trim())
        .includes(uri);
    const header = fc.oneof(
      fc.constant(uri),
      fc
        .array(fc.oneof(fc.constant(uri), fc.constant(` ${uri} `), fc.string()), { maxLength: 3 })
        .map((a) => a.join(',')),
      fc.anything(),
    );
    fc.assert(
      fc.property(header, (h) => {
        expect(outcome(() => activates(h, uri))).toEqual(outcome(() => original(h)));
      }),
      { numRuns: 1000 },
    );
  });
});

describe('signing and verifying at once', () => {
  it('the header segment is the header’s JSON (remembered or not), and the JWS verifies', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({ kid: fc.string({ unit: 'binary', maxLength: 8 }), typ: fc.constantFrom('a', 'b') }),
          {
            minLength: 1,
            maxLength: 80,
          },
        ),
        fc.string({ maxLength: 20 }),
        async (hs, payload) => {
          for (const h of hs) {
            const header = { alg: 'ES256', ...h };
            const jws = await signCompact(header, payload, privateKey);
            expect(jws.split('.')[0]).toBe(b64(JSON.stringify(header)));
            expect(
              Buffer.from(verifyCompactSync(jws, publicKey, protectedHeader(jws)) as Uint8Array).toString(),
            ).toBe(Buffer.from(payload).toString());
          }
        },
      ),
      { numRuns: 30 },
    );
  });

  it('KeyRing answers the key of the JWK added last, the same object until the next add', async () => {
    const [a, b] = await Promise.all([
      generateAgentKeys('acme', 'x', { userId: 'u1' }),
      generateAgentKeys('acme', 'x', { userId: 'u2' }),
    ]);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom('a', 'b', 'get', 'both'), { maxLength: 12 }), async (ops) => {
        const ring = new KeyRing();
        let current: typeof a | undefined;
        let last: { key: unknown; of: unknown } | undefined;
        for (const op of ops) {
          if (op === 'a' || op === 'b') {
            current = op === 'a' ? a : b;
            ring.add(current.publicJwk);
            last = undefined; // each add imports anew
            continue;
          }
          // 'both': a lookup in flight while the key is replaced answers the key it started with
          const first = ring.publicKey('acme', 'x');
          if (op === 'both') {
            const before = current;
            current = current === a ? b : a;
            ring.add(current.publicJwk);
            last = undefined;
            const r = await first;
            if (!before) expect(r).toBeUndefined();
            else expect(r?.userId).toBe(before.signingKey.userId);
          } else await first;
          const r = await ring.publicKey('acme', 'x');
          if (!current) {
            expect(r).toBeUndefined();
            continue;
          }
          expect(r?.userId).toBe(current.signingKey.userId);
          const jws = await signCompact({ alg: 'ES256' }, '{}', current.signingKey.privateKey);
          await expect(verifyCompact(jws, r?.key as CryptoKey)).resolves.toBeDefined();
          if (last?.of === current) expect(r?.key).toBe(last.key);
          last = { key: r?.key, of: current };
        }
      }),
      { numRuns: 60 },
    );
  });
});
describe('InMemoryReplayGuard: a full guard drops what expired from a heap, not by a scan', () => {
  /** The guard as it was: every consume on a full guard scans it. */
  class Scanning {
    readonly seen = new Map<string, number>();
    constructor(readonly max: number) {}
    consume(jti: string, expiresAtMs: number, nowMs: number): boolean {
      if (this.seen.size >= this.max)
        for (const [id, exp] of this.seen) if (exp <= nowMs) this.seen.delete(id);
      const known = this.seen.get(jti);
      if (known !== undefined && known > nowMs) return false;
      if (this.seen.size >= this.max) return false;
      this.seen.set(jti, expiresAtMs);
      return true;
    }
  }
  it('answers as the scanning guard, call by call (any times, clocks going back, NaN)', async () => {
    const time = fc.oneof(
      fc.integer({ min: 0, max: 60 }),
      fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY),
    );
    // few ids or many, against a small bound: ids set again (records left behind) and full guards
    const calls = fc.integer({ min: 1, max: 10 }).chain((ids) =>
      fc.array(fc.record({ jti: fc.constantFrom(...'abcdefghij'.slice(0, ids)), exp: time, now: time }), {
        maxLength: 200,
      }),
    );
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 8 }), calls, async (max, calls) => {
        const guard = new InMemoryReplayGuard(max);
        const reference = new Scanning(max);
        for (const c of calls)
          expect(await guard.consume(c.jti, c.exp, c.now)).toBe(reference.consume(c.jti, c.exp, c.now));
      }),
      { numRuns: 2000 },
    );
    // one id set again and again (its records requeued at every alignment), then a full guard
    // that must drop it
    for (let n = 1; n <= 40; n++) {
      const guard = new InMemoryReplayGuard(2);
      const reference = new Scanning(2);
      const script: [string, number, number][] = [];
      for (let t = 0; t < n; t++) script.push(['a', t, t]);
      script.push(['b', 1_000, n], ['c', 1_000, n + 1], ['a', 1_000, n + 2], ['d', 1_000, n + 3]);
      for (const [jti, exp, now] of script)
        expect(await guard.consume(jti, exp, now)).toBe(reference.consume(jti, exp, now));
    }
  });
});
