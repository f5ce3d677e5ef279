/**
 * The leaf check of one record (`checkLeaf`): a leaf passes exactly when it hashes to the record's
 * hash and its canonical JSON ends with the prevHash and seq of the record's place — compared in
 * place, which must agree with the plain reading (`endsWith` of the tail written by
 * `JSON.stringify`) for any leaf and seq, and any prevHash that is 64 hex digits (every verified
 * hash) or of another length (a 64-character prevHash is taken as its own JSON text: see
 * `namesPlace`).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../src/crypto';
import { checkLeaf } from '../src/verify-record';

const hex64 = fc.stringMatching(/^[0-9a-f]{64}$/);
const leafOf = (body: string, prevHash: string, seq: number) =>
  `{"commitments":${body},"entry":{},"prevHash":${JSON.stringify(prevHash)},"seq":${seq}}`;
/** The plain reading of "the leaf names this place". */
const namesPlace = (leaf: string, prevHash: string, seq: number) =>
  leaf.startsWith('{"commitments":') &&
  leaf.endsWith(`,"prevHash":${JSON.stringify(prevHash)},"seq":${seq}}`);
const check = (leaf: string, prevHash: string, seq: number) =>
  checkLeaf({ seq, prevHash, hash: sha256Hex(leaf) }, leaf, seq, prevHash);

describe('checkLeaf', () => {
  it('passes the leaf of its own place, whatever the seq and prevHash', () => {
    fc.assert(
      fc.property(fc.json(), fc.oneof(hex64, fc.string()), fc.nat(), (body, prevHash, seq) => {
        expect(check(leafOf(body, prevHash, seq), prevHash, seq)).toBeUndefined();
      }),
      { numRuns: 500 },
    );
  });

  it('agrees with the plain reading on any leaf text (leaf_mismatch when it does not name the place)', () => {
    const leaf = fc.oneof(
      fc.string(),
      fc.tuple(fc.json(), fc.oneof(hex64, fc.string()), fc.nat()).map(([b, p, s]) => leafOf(b, p, s)),
    );
    fc.assert(
      fc.property(
        leaf,
        fc.oneof(
          hex64,
          fc.string({ maxLength: 70 }).filter((p) => p.length !== 64),
        ),
        fc.nat(),
        (text, prevHash, seq) => {
          const problem = check(text, prevHash, seq);
          if (namesPlace(text, prevHash, seq)) expect(problem).toBeUndefined();
          else expect(problem).toMatchObject({ reason: 'leaf_mismatch', field: 'leaf' });
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('names another place (seq or prevHash off by one character) as leaf_mismatch', () => {
    fc.assert(
      fc.property(fc.json(), hex64, fc.nat({ max: 1e9 }), fc.nat({ max: 63 }), (body, prevHash, seq, at) => {
        const leaf = leafOf(body, prevHash, seq);
        const other = prevHash.slice(0, at) + (prevHash[at] === '0' ? '1' : '0') + prevHash.slice(at + 1);
        expect(check(leaf, prevHash, seq + 1)).toMatchObject({ reason: 'leaf_mismatch' });
        expect(check(leaf, other, seq)).toMatchObject({ reason: 'leaf_mismatch' });
        if (seq > 0) expect(check(leaf, prevHash, seq - 1)).toMatchObject({ reason: 'leaf_mismatch' });
      }),
      { numRuns: 500 },
    );
  });

  it('a leaf that does not hash to the stored hash is hash_mismatch; seq and link come first', () => {
    const prevHash = 'a'.repeat(64);
    const leaf = leafOf('{}', prevHash, 7);
    expect(checkLeaf({ seq: 7, prevHash, hash: 'b'.repeat(64) }, leaf, 7, prevHash)).toMatchObject({
      reason: 'hash_mismatch',
      field: 'hash',
      expected: sha256Hex(leaf),
    });
    expect(checkLeaf({ seq: 8, prevHash, hash: sha256Hex(leaf) }, leaf, 7, prevHash)).toMatchObject({
      reason: 'seq_gap',
    });
    expect(
      checkLeaf({ seq: 7, prevHash: 'c'.repeat(64), hash: sha256Hex(leaf) }, leaf, 7, prevHash),
    ).toMatchObject({ reason: 'prev_hash_mismatch' });
  });
});
