import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  consistencyProof,
  EMPTY_TREE_ROOT,
  inclusionProof,
  MerkleAccumulator,
  merkleLeafHash,
  merkleRoot,
  VerificationError,
  verifyConsistency as verifyConsistencyResult,
  verifyInclusion as verifyInclusionResult,
} from '../src/index';

// The verifiers answer Result<void, VerificationError>; the properties below read `isOk()`.
const verifyInclusion = (...a: Parameters<typeof verifyInclusionResult>) =>
  verifyInclusionResult(...a).isOk();
const verifyConsistency = (...a: Parameters<typeof verifyConsistencyResult>) =>
  verifyConsistencyResult(...a).isOk();

// ---- an independent reference: RFC 9162 §2.1.1 MTH written naively over Buffers ----
const sha = (...parts: Buffer[]) => createHash('sha256').update(Buffer.concat(parts)).digest();
function refMth(leaves: Buffer[]): Buffer {
  if (leaves.length === 0) return sha();
  if (leaves.length === 1) return sha(Buffer.from([0]), leaves[0] as Buffer);
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return sha(Buffer.from([1]), refMth(leaves.slice(0, k)), refMth(leaves.slice(k)));
}

/** Shape of an RFC 9162 PATH(m, n): the recursion's left/right decisions (independent of hashes). */
function pathShape(m: number, n: number): string {
  if (n <= 1) return '';
  let k = 1;
  while (k * 2 < n) k *= 2;
  return m < k ? `${pathShape(m, k)}L` : `${pathShape(m - k, n - k)}R`;
}
function proofShape(m: number, n: number, b = true): string {
  if (m === n) return b ? '' : 'S';
  let k = 1;
  while (k * 2 < n) k *= 2;
  return m <= k ? `${proofShape(m, k, b)}L` : `${proofShape(m - k, n - k, false)}R`;
}

/** Trees of uniformly random size in [min, max] (fc.array would bias towards ~10 leaves). */
const leavesArb = (min: number, max: number) =>
  fc
    .tuple(fc.integer({ min, max }), fc.nat())
    .map(([n, seed]) =>
      Array.from({ length: n }, (_, i) => createHash('sha256').update(`${seed}:${i}`).digest('hex')),
    );
const flip = (hex: string, at: number) => {
  const i = at % hex.length;
  return hex.slice(0, i) + ((Number.parseInt(hex[i] as string, 16) + 1) % 16).toString(16) + hex.slice(i + 1);
};

describe('Merkle tree (RFC 9162)', () => {
  it('roots match the naive reference for every size 0..70 and the accumulator agrees', () => {
    const hashes = Array.from({ length: 70 }, (_, i) =>
      createHash('sha256').update(`leaf ${i}`).digest('hex'),
    );
    const acc = new MerkleAccumulator();
    expect(acc.root()).toBe(EMPTY_TREE_ROOT);
    expect(merkleRoot([])).toBe(EMPTY_TREE_ROOT);
    for (let n = 1; n <= 70; n++) {
      acc.push(hashes[n - 1] as string);
      const ref = refMth(hashes.slice(0, n).map((h) => Buffer.from(h, 'hex'))).toString('hex');
      expect(merkleRoot(hashes, n)).toBe(ref);
      expect(acc.root()).toBe(ref);
    }
    expect(merkleLeafHash(hashes[0] as string)).toBe(
      sha(Buffer.from([0]), Buffer.from(hashes[0] as string, 'hex')).toString('hex'),
    );
  });

  it('inclusion proofs verify for random trees of 1..300 leaves', () => {
    fc.assert(
      fc.property(leavesArb(1, 300), fc.nat(), (leaves, seed) => {
        const n = leaves.length;
        const index = seed % n;
        const root = merkleRoot(leaves);
        const proof = inclusionProof(leaves, index, n);
        expect(verifyInclusion(merkleLeafHash(leaves[index] as string), index, n, proof, root)).toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  it('inclusion proofs fail when the leaf, a proof element, the index, the size or the root is altered', () => {
    fc.assert(
      fc.property(
        leavesArb(1, 300),
        fc.nat(),
        fc.nat(),
        fc.integer({ min: -3, max: 400 }),
        (leaves, s1, s2, otherSize) => {
          const n = leaves.length;
          const index = s1 % n;
          const leaf = merkleLeafHash(leaves[index] as string);
          const root = merkleRoot(leaves);
          const proof = inclusionProof(leaves, index, n);
          expect(verifyInclusion(flip(leaf, s2), index, n, proof, root)).toBe(false);
          expect(verifyInclusion(leaf, index, n, proof, flip(root, s2))).toBe(false);
          if (proof.length > 0) {
            const at = s2 % proof.length;
            const altered = proof.map((p, i) => (i === at ? flip(p, s2) : p));
            expect(verifyInclusion(leaf, index, n, altered, root)).toBe(false);
            expect(verifyInclusion(leaf, index, n, proof.slice(0, -1), root)).toBe(false);
          }
          expect(verifyInclusion(leaf, index, n, [...proof, root], root)).toBe(false);
          if (n > 1)
            expect(verifyInclusion(leaf, (index + 1 + (s2 % (n - 1))) % n, n, proof, root)).toBe(false);
          expect(verifyInclusion(leaf, n, n, proof, root)).toBe(false);
          expect(verifyInclusion(leaf, -1, n, proof, root)).toBe(false);
          // Another size: fails unless the PATH has exactly the same shape (RFC 9162 authenticates
          // the size through the signed tree head, not through the proof).
          if (otherSize !== n) {
            const ok = verifyInclusion(leaf, index, otherSize, proof, root);
            const sameShape =
              otherSize > index && otherSize > 0 && pathShape(index, otherSize) === pathShape(index, n);
            expect(ok).toBe(sameShape);
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('consistency proofs verify between random prefixes of trees of 1..300 leaves', () => {
    fc.assert(
      fc.property(leavesArb(1, 300), fc.nat(), (leaves, seed) => {
        const n = leaves.length;
        const m = 1 + (seed % n);
        const proof = consistencyProof(leaves, m, n);
        expect(verifyConsistency(m, n, proof, merkleRoot(leaves, m), merkleRoot(leaves, n))).toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  it('consistency proofs fail when a proof element, a size or a root is altered', () => {
    fc.assert(
      fc.property(
        leavesArb(2, 300),
        fc.nat(),
        fc.nat(),
        fc.integer({ min: -2, max: 400 }),
        (leaves, seed, s2, otherSize) => {
          const n = leaves.length;
          const m = 1 + (seed % (n - 1)); // m < n: a non-empty proof
          const r1 = merkleRoot(leaves, m);
          const r2 = merkleRoot(leaves, n);
          const proof = consistencyProof(leaves, m, n);
          expect(proof.length).toBeGreaterThan(0);
          const at = s2 % proof.length;
          expect(
            verifyConsistency(
              m,
              n,
              proof.map((p, i) => (i === at ? flip(p, s2) : p)),
              r1,
              r2,
            ),
          ).toBe(false);
          expect(verifyConsistency(m, n, proof.slice(0, -1), r1, r2)).toBe(false);
          expect(verifyConsistency(m, n, [...proof, r2], r1, r2)).toBe(false);
          expect(verifyConsistency(m, n, proof, flip(r1, s2), r2)).toBe(false);
          expect(verifyConsistency(m, n, proof, r1, flip(r2, s2))).toBe(false);
          expect(verifyConsistency(m, n, [], r1, r2)).toBe(false);
          // A different tree that is not an extension of the first must not pass either.
          const forked = [...leaves];
          forked[m - 1] = flip(forked[m - 1] as string, s2);
          expect(verifyConsistency(m, n, consistencyProof(forked, m, n), r1, merkleRoot(forked))).toBe(false);
          // Other sizes: fail unless the proof has exactly the same shape.
          if (otherSize !== m) {
            const ok = verifyConsistency(otherSize, n, proof, r1, r2);
            const same = otherSize >= 1 && otherSize < n && proofShape(otherSize, n) === proofShape(m, n);
            if (ok) expect(same).toBe(true);
          }
          if (otherSize !== n) {
            const ok = verifyConsistency(m, otherSize, proof, r1, r2);
            const same = otherSize > m && proofShape(m, otherSize) === proofShape(m, n);
            if (ok) expect(same).toBe(true);
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('equal sizes need an empty proof and equal roots; malformed input is rejected, not thrown', () => {
    const leaves = Array.from({ length: 5 }, (_, i) => createHash('sha256').update(String(i)).digest('hex'));
    const r = merkleRoot(leaves);
    expect(verifyConsistency(5, 5, [], r, r)).toBe(true);
    expect(verifyConsistency(5, 5, [r], r, r)).toBe(false);
    expect(verifyConsistency(0, 5, [], EMPTY_TREE_ROOT, r)).toBe(false);
    expect(verifyConsistency(6, 5, [], r, r)).toBe(false);
    expect(verifyInclusion('zz', 0, 5, [], r)).toBe(false);
    expect(verifyInclusion(r, 0.5, 5, [], r)).toBe(false);
    expect(verifyInclusion(r, 0, 5, ['nothex'], r)).toBe(false);
    // the reason says which: a malformed proof, or one that does not lead to the root
    const reason = (r: ReturnType<typeof verifyInclusionResult>) =>
      r.match(
        () => 'ok',
        (e) =>
          e instanceof VerificationError && e.code === 'invalid_type' ? e.reason : 'not a VerificationError',
      );
    expect(reason(verifyInclusionResult('zz', 0, 5, [], r))).toBe('malformed_proof');
    expect(reason(verifyInclusionResult(r, 5, 5, [], r))).toBe('malformed_proof');
    expect(reason(verifyConsistencyResult(5, 5, [r], r, r))).toBe('proof_mismatch');
    expect(reason(verifyConsistencyResult(6, 5, [], r, r))).toBe('malformed_proof');
    const proof = inclusionProof(leaves, 2, 5);
    expect(reason(verifyInclusionResult(merkleLeafHash(leaves[2] as string), 2, 5, proof, r))).toBe('ok');
    expect(reason(verifyInclusionResult(merkleLeafHash(leaves[3] as string), 2, 5, proof, r))).toBe(
      'proof_mismatch',
    );
    expect(() => inclusionProof(leaves, 5, 5)).toThrow(RangeError);
    expect(() => consistencyProof(leaves, 0, 5)).toThrow(RangeError);
  });
});
