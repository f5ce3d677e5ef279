/**
 * Inclusion and consistency proofs read from a store (`proofs.ts`): the hashes-only scan, the
 * cached roots of complete blocks (16,384 leaves) and the lazily read leaves give exactly the
 * proofs and roots of `merkle.ts`'s in-memory functions, across block boundaries, with and
 * without `scanHashes`, and the cache follows a rewritten prefix.
 */
import { createHash } from 'node:crypto';
import type { AuditRecord, AuditStore } from '@agentgov/core';
import { describe, expect, it } from 'vitest';
import {
  consistencyProof,
  inclusionProof,
  merkleRoot,
  verifyConsistency,
  verifyInclusion,
} from '../src/index';
import { proveConsistency, proveInclusion } from '../src/proofs';
import { turnCounter } from './helpers';

const BLOCK = 16_384;
const TENANT = 't';
const hashOf = (label: string) => createHash('sha256').update(label).digest('hex');

/**
 * Only what proofs read: synthetic record hashes (seq i + 1 → hashes[i]), records for `get`,
 * counting how many hashes each read returned.
 */
class HashStore {
  hashes: string[];
  read = 0;
  constructor(n: number, salt = '') {
    this.hashes = Array.from({ length: n }, (_, i) => hashOf(`${salt}${i}`));
  }
  #record(seq: number): AuditRecord {
    return {
      seq,
      hash: this.hashes[seq - 1] as string,
      prevHash: seq === 1 ? '0'.repeat(64) : (this.hashes[seq - 2] as string),
      commitments: {},
      entry: { id: `e${seq}` } as AuditRecord['entry'],
    };
  }
  async get(_tenantId: string, id: string) {
    const seq = Number(id.slice(1));
    return seq >= 1 && seq <= this.hashes.length ? this.#record(seq) : undefined;
  }
  async head() {
    const n = this.hashes.length;
    return n === 0 ? undefined : { seq: n, hash: this.hashes[n - 1] as string };
  }
  async checkpoints() {
    return [];
  }
  async *scan(_tenantId: string, options: { fromSeq?: number; toSeq?: number } = {}) {
    const to = Math.min(options.toSeq ?? this.hashes.length, this.hashes.length);
    for (let seq = options.fromSeq ?? 1; seq <= to; seq++) {
      this.read++;
      yield this.#record(seq);
    }
  }
  async *scanHashes(
    _tenantId: string,
    options: { fromSeq?: number; toSeq?: number; batchSize?: number } = {},
  ): AsyncIterable<string[]> {
    const to = Math.min(options.toSeq ?? this.hashes.length, this.hashes.length);
    const batch = options.batchSize ?? 1000;
    for (let i = (options.fromSeq ?? 1) - 1; i < to; i += batch) {
      const page = this.hashes.slice(i, Math.min(to, i + batch));
      this.read += page.length;
      yield page;
    }
  }
  /** The same store without `scanHashes` (proofs fall back to `scan`). */
  withoutHashScan(): AuditStore {
    return {
      get: (t: string, id: string) => this.get(t, id),
      head: () => this.head(),
      checkpoints: () => this.checkpoints(),
      scan: (t: string, o?: { fromSeq?: number; toSeq?: number }) => this.scan(t, o),
    } as unknown as AuditStore;
  }
}

const asStore = (s: HashStore) => s as unknown as AuditStore;

async function checkInclusion(store: AuditStore, all: string[], seq: number, size: number) {
  const p = (await proveInclusion(store, TENANT, `e${seq}`, size))._unsafeUnwrap();
  const hashes = all.slice(0, size);
  expect(p.rootHash).toBe(merkleRoot(hashes, size));
  expect(p.proof).toEqual(inclusionProof(hashes, seq - 1, size));
  expect(verifyInclusion(p.leafHash, p.leafIndex, p.treeSize, p.proof, p.rootHash).isOk()).toBe(true);
}

describe('proofs read from the store', () => {
  const N = 2 * BLOCK + 1234;
  const store = new HashStore(N);

  it('inclusion proofs equal the in-memory ones at and around block boundaries', async () => {
    const cases: [number, number][] = [
      [1, 1],
      [1, BLOCK - 1],
      [BLOCK - 1, BLOCK],
      [BLOCK, BLOCK],
      [1, BLOCK + 1],
      [BLOCK + 1, BLOCK + 1],
      [BLOCK, 2 * BLOCK],
      [2 * BLOCK, N],
      [2 * BLOCK + 1, N],
      [7, N],
      [N, N],
      [BLOCK + 17, 2 * BLOCK - 3],
    ];
    for (const [seq, size] of cases) await checkInclusion(asStore(store), store.hashes, seq, size);
  });

  it('consistency proofs equal the in-memory ones across blocks', async () => {
    const cases: [number, number][] = [
      [1, N],
      [BLOCK, N],
      [BLOCK - 1, BLOCK + 1],
      [BLOCK + 1, 2 * BLOCK],
      [2 * BLOCK, N],
      [5000, 2 * BLOCK + 1],
      [N, N],
    ];
    for (const [size1, size2] of cases) {
      const c = (await proveConsistency(asStore(store), TENANT, size1, size2))._unsafeUnwrap();
      const hashes = store.hashes.slice(0, size2);
      expect(c.root1).toBe(merkleRoot(hashes, size1));
      expect(c.root2).toBe(merkleRoot(hashes, size2));
      expect(c.proof).toEqual(consistencyProof(hashes, size1, size2));
      expect(verifyConsistency(size1, size2, c.proof, c.root1, c.root2).isOk()).toBe(true);
    }
  });

  it('a warm cache reads at most the proven leaf’s block, the last partial block and one hash', async () => {
    const fresh = new HashStore(N);
    await checkInclusion(asStore(fresh), fresh.hashes, 3, N); // fills the cache
    fresh.read = 0;
    await checkInclusion(asStore(fresh), fresh.hashes, BLOCK + 5, N);
    expect(fresh.read).toBeLessThanOrEqual(BLOCK + (N % BLOCK) + 1);
  });

  it('a rewritten prefix is not served from the cache', async () => {
    const s = new HashStore(N);
    await checkInclusion(asStore(s), s.hashes, 9, N);
    s.hashes = new HashStore(N, 'other').hashes; // e.g. a rolled-back transaction, appended again
    await checkInclusion(asStore(s), s.hashes, 9, N);
    await checkInclusion(asStore(s), s.hashes, N, N);
  });

  it('a store without scanHashes gives the same proofs through scan', async () => {
    const plain = store.withoutHashScan();
    expect(plain.scanHashes).toBeUndefined();
    await checkInclusion(plain, store.hashes, BLOCK + 2, N);
    await checkInclusion(plain, store.hashes, 2, BLOCK + 1);
  });

  it('a store that holds fewer hashes than its head claims makes the proof throw', async () => {
    class ShortStore extends HashStore {
      override async *scanHashes(): AsyncIterable<string[]> {
        yield this.hashes.slice(0, 100);
      }
    }
    const short = new ShortStore(BLOCK + 10);
    await expect(proveInclusion(asStore(short), TENANT, 'e5', BLOCK + 10)).rejects.toThrow(RangeError);
  });

  it('gives the event loop a turn after every page of hashes it reads (a store that needs no I/O)', async () => {
    const store = new HashStore(3 * BLOCK + 10, 'turns');
    const counter = turnCounter();
    const p = (await proveInclusion(asStore(store), TENANT, 'e5', 3 * BLOCK + 10))._unsafeUnwrap();
    counter.stop();
    expect(verifyInclusion(p.leafHash, p.leafIndex, p.treeSize, p.proof, p.rootHash).isOk()).toBe(true);
    // The three complete blocks' roots, one page of hashes each, then the leaves it descends into.
    expect(counter.turns()).toBeGreaterThanOrEqual(3);
  });
});
