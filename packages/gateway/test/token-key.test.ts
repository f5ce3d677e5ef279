/**
 * The verified-token cache's key: the memo of the last token (`tokenKeys`) answers, for any
 * sequence of tokens (repeats, near-identical tokens, equal strings built apart), what hashing each
 * token answers (`tokenHash`), which is its SHA-256 in base64url.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { tokenHash, tokenKeys } from '../src/auth/token-key';

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('base64url');

describe('token cache key', () => {
  it('is the SHA-256 of the token, base64url', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (t) => {
        expect(tokenHash(t)).toBe(sha256(t));
      }),
    );
  });

  it('the memo of the last token answers what hashing each token answers', () => {
    const base = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.sig';
    // A small pool, so that tokens repeat, differ by one character, or are equal but built apart.
    const token = fc.oneof(
      fc.constantFrom(base, `${base}x`, base.slice(0, -1), ''),
      fc.string({ maxLength: 3 }).map((s) => `${base.slice(0, 10)}${s}${base.slice(10)}`),
      fc.constant(null).map(() => [...base].join('')),
    );
    fc.assert(
      fc.property(fc.array(token, { maxLength: 30 }), (tokens) => {
        const keyOf = tokenKeys();
        for (const t of tokens) expect(keyOf(t)).toBe(tokenHash(t));
      }),
    );
  });
});
