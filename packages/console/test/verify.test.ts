/**
 * The console's in-browser Merkle checks (WebCrypto; Node has the same `crypto.subtle`) against
 * the audit package's own proofs: every leaf of every tree up to 40 entries, every pair of tree
 * sizes — and a changed leaf, root or proof is refused.
 */
import { createHash } from 'node:crypto';
import { consistencyProof, inclusionProof, merkleLeafHash, merkleRoot } from '@agentgov/audit';
import { describe, expect, it } from 'vitest';
import { consistent, rootFromInclusion } from '../app/src/verify';

const hashes = Array.from({ length: 40 }, (_, i) => createHash('sha256').update(`record ${i}`).digest('hex'));
const flip = (h: string) => (h[0] === '0' ? '1' : '0') + h.slice(1);

describe('in-browser Merkle verification', () => {
  it('inclusion: every leaf of every tree leads to its root; a changed leaf does not', async () => {
    for (let size = 1; size <= hashes.length; size++) {
      const root = merkleRoot(hashes, size);
      for (let i = 0; i < size; i++) {
        const proof = inclusionProof(hashes, i, size);
        const leaf = merkleLeafHash(hashes[i] as string);
        expect(await rootFromInclusion(leaf, i, size, proof)).toBe(root);
        expect(await rootFromInclusion(flip(leaf), i, size, proof)).not.toBe(root);
      }
      expect(await rootFromInclusion(merkleLeafHash(hashes[0] as string), size, size, [])).toBeUndefined();
    }
  });

  it('consistency: every earlier tree is the start of every later one; a changed root or proof is refused', async () => {
    for (let size2 = 1; size2 <= hashes.length; size2++) {
      const root2 = merkleRoot(hashes, size2);
      for (let size1 = 1; size1 <= size2; size1++) {
        const root1 = merkleRoot(hashes, size1);
        const proof = consistencyProof(hashes, size1, size2);
        expect(await consistent(size1, root1, size2, root2, proof), `${size1} → ${size2}`).toBe(true);
        expect(await consistent(size1, flip(root1), size2, root2, proof)).toBe(false);
        expect(await consistent(size1, root1, size2, flip(root2), proof)).toBe(false);
        if (proof.length > 0)
          expect(
            await consistent(size1, root1, size2, root2, [flip(proof[0] as string), ...proof.slice(1)]),
          ).toBe(false);
      }
    }
  });
});
