import { CompactSign, compactVerify, exportJWK, generateKeyPair } from 'jose';
import { describe, expect, it } from 'vitest';
import { JwsInvalidError, signCompact, verifyCompact } from '../src/jws';

const text = (b: Uint8Array) => new TextDecoder().decode(b);
const b64 = (s: string) => Buffer.from(s).toString('base64url');

describe('compact JWS on node:crypto', () => {
  it('interoperates with jose both ways (ES256, ES384, EdDSA), with CryptoKeys and JWKs', async () => {
    for (const alg of ['ES256', 'ES384', 'EdDSA']) {
      const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
      const ours = await signCompact({ alg, kid: 'acme/a' }, '{"x":1}', privateKey);
      expect(text((await compactVerify(ours, publicKey)).payload)).toBe('{"x":1}');
      const theirs = await new CompactSign(new TextEncoder().encode('{"y":2}'))
        .setProtectedHeader({ alg })
        .sign(privateKey);
      expect(text(await verifyCompact(theirs, publicKey))).toBe('{"y":2}');
      expect(text(await verifyCompact(theirs, await exportJWK(publicKey)))).toBe('{"y":2}');
    }
  });

  it('refuses another key, another algorithm than the key’s, crit, non-canonical encodings and tampering', async () => {
    const a = await generateKeyPair('ES256', { extractable: true });
    const b = await generateKeyPair('ES256', { extractable: true });
    const jws = await signCompact({ alg: 'ES256' }, '{"x":1}', a.privateKey);
    const [h, p, s] = jws.split('.') as [string, string, string];
    const refused = async (candidate: string, key = a.publicKey) =>
      expect(verifyCompact(candidate, key)).rejects.toBeInstanceOf(JwsInvalidError);
    await refused(jws, b.publicKey);
    // the header names ES384 over a P-256 key: the key decides nothing by itself
    await refused(`${b64('{"alg":"ES384"}')}.${p}.${s}`);
    await refused(`${b64('{"alg":"none"}')}.${p}.`);
    await refused(`${b64('{"alg":"ES256","crit":["exp"]}')}.${p}.${s}`);
    await refused(`${h}.${b64('{"x":2}')}.${s}`);
    await refused(`${h}.${p}.${s}=`);
    await refused(`${h}.${p}.${s}A`);
    await refused(`${h}.${p}`);
    await refused('');
    // the last character of an ES256 signature carries 4 unused bits: a string that differs only
    // there decodes to the same bytes, and is still refused (one signature, one string)
    const last = s.at(-1) as string;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const sibling = alphabet[(alphabet.indexOf(last) & ~0b1111) | ((alphabet.indexOf(last) + 1) & 0b1111)];
    expect(Buffer.from(`${s.slice(0, -1)}${sibling}`, 'base64url')).toEqual(Buffer.from(s, 'base64url'));
    await refused(`${h}.${p}.${s.slice(0, -1)}${sibling}`);
    expect(text(await verifyCompact(jws, a.publicKey))).toBe('{"x":1}');
  });
});
