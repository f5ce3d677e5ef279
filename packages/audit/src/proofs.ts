/**
 * Reads for proofs: inclusion of one entry and consistency between two tree sizes (RFC 9162
 * PATH / PROOF, see `merkle.ts`), computed from the record hashes only (`store.scanHashes`),
 * with the roots of complete blocks of 16,384 leaves cached per store and tenant: a proof at
 * 1,000,000 entries reads every hash once, later proofs read at most two blocks.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import {
  type AuditCheckpoint,
  type AuditStore,
  type GovernanceError,
  latestCheckpointOf,
  NotFoundError,
  ValidationError,
} from '@agentgov/core';
import { err, ok, type Result } from 'neverthrow';
import { bytesToHex } from './crypto';
import { MerkleAccumulator, merkleLeafBytes, merkleLeafHash, merkleNodeBytes, merkleSplit } from './merkle';

export interface InclusionProof {
  entryId: string;
  seq: number;
  /** 0-based leaf index (seq − 1). */
  leafIndex: number;
  /** Merkle leaf hash of the record: SHA-256(0x00 || record hash). */
  leafHash: string;
  treeSize: number;
  rootHash: string;
  /** RFC 9162 PATH, hex, leaf to root. */
  proof: string[];
  /** The signed checkpoint of `treeSize`, when there is one. */
  checkpoint?: AuditCheckpoint;
}

export interface ConsistencyProof {
  size1: number;
  size2: number;
  root1: string;
  root2: string;
  /** RFC 9162 PROOF, hex. */
  proof: string[];
}

/** Leaves per cached subtree: a proof reads at most two such blocks once the cache is warm. */
const BLOCK = 1 << 14;
/** Tenants whose block roots are kept, per store (least recently used dropped first). */
const CACHED_TENANTS = 256;

/**
 * Roots of the complete aligned blocks 0..roots.length − 1 of a tenant's tree (leaves
 * k·BLOCK..(k+1)·BLOCK − 1): the chain is append-only, so a complete block's root never changes.
 * `endHash` is the record hash at seq roots.length·BLOCK: each record hash covers the previous
 * one, so the cache is used only while that record is still there with that hash (a rolled-back
 * or rewritten prefix drops it).
 */
interface BlockRoots {
  roots: Uint8Array[];
  endHash: string;
}
const blockCache = new WeakMap<AuditStore, Map<string, BlockRoots>>();

/** Pages of the record hashes fromSeq..toSeq (`scanHashes`, else the hashes of `scan`). */
async function* hashPages(
  store: AuditStore,
  tenantId: string,
  fromSeq: number,
  toSeq: number,
): AsyncIterable<string[]> {
  if (toSeq < fromSeq) return;
  if (store.scanHashes) {
    yield* store.scanHashes(tenantId, { fromSeq, toSeq, batchSize: BLOCK });
    return;
  }
  let page: string[] = [];
  for await (const r of store.scan(tenantId, { fromSeq, toSeq, batchSize: 5000 })) {
    page.push(r.hash);
    if (page.length === BLOCK) {
      yield page;
      page = [];
    }
  }
  if (page.length > 0) yield page;
}

/** Streams the record hashes fromSeq..toSeq into `each`; throws when the store has fewer. */
export async function forEachHash(
  store: AuditStore,
  tenantId: string,
  fromSeq: number,
  toSeq: number,
  each: (hash: string) => void,
): Promise<void> {
  let n = 0;
  for await (const page of hashPages(store, tenantId, fromSeq, toSeq)) {
    for (const h of page) each(h);
    n += page.length;
    // A turn of the event loop after each page (up to 16,384 hashes): the first proof after
    // start-up reads every hash, and a store whose pages need no I/O (in memory, embedded PGlite)
    // would otherwise hold a server's thread for all of them.
    await nextTurn();
  }
  if (n !== Math.max(0, toSeq - fromSeq + 1)) {
    throw new RangeError(`the log holds ${n} record hashes in seq ${fromSeq}..${toSeq}`);
  }
}

async function hashAt(store: AuditStore, tenantId: string, seq: number): Promise<string | undefined> {
  for await (const page of hashPages(store, tenantId, seq, seq)) return page[0];
  return undefined;
}

/**
 * The tree of the first `size` record hashes, read lazily: complete blocks through their cached
 * roots (computed once from a hashes-only scan), and the leaves only of the blocks a proof
 * descends into (the block of the proven leaf, the block a consistency boundary falls in, the
 * last partial block).
 */
class LazyTree {
  readonly #leaves = new Map<number, Uint8Array[]>();
  private constructor(
    readonly store: AuditStore,
    readonly tenantId: string,
    readonly roots: readonly Uint8Array[],
  ) {}

  /** Opens the tree, first bringing the tenant's block roots up to `size` (validated, then extended). */
  static async open(store: AuditStore, tenantId: string, size: number): Promise<LazyTree> {
    let byTenant = blockCache.get(store);
    if (!byTenant) {
      byTenant = new Map();
      blockCache.set(store, byTenant);
    }
    let cached = byTenant.get(tenantId);
    byTenant.delete(tenantId); // re-inserted below as the most recently used
    if (cached && (await hashAt(store, tenantId, cached.roots.length * BLOCK)) !== cached.endHash) {
      cached = undefined;
    }
    const roots = cached ? [...cached.roots] : [];
    let endHash = cached?.endHash ?? '';
    const complete = Math.floor(size / BLOCK);
    if (roots.length < complete) {
      let acc = new MerkleAccumulator();
      await forEachHash(store, tenantId, roots.length * BLOCK + 1, complete * BLOCK, (h) => {
        acc.push(h);
        if (acc.size === BLOCK) {
          roots.push(acc.rootBytes());
          endHash = h;
          acc = new MerkleAccumulator();
        }
      });
    }
    if (roots.length > 0) byTenant.set(tenantId, { roots, endHash });
    while (byTenant.size > CACHED_TENANTS) byTenant.delete(byTenant.keys().next().value as string);
    return new LazyTree(store, tenantId, roots.slice(0, complete));
  }

  /** Leaf hashes of block b, up to leaf `size` − 1. */
  async #leavesOf(b: number, size: number): Promise<Uint8Array[]> {
    let leaves = this.#leaves.get(b);
    if (!leaves) {
      const out: Uint8Array[] = [];
      await forEachHash(this.store, this.tenantId, b * BLOCK + 1, Math.min(size, (b + 1) * BLOCK), (h) => {
        out.push(merkleLeafBytes(h));
      });
      leaves = out;
      this.#leaves.set(b, leaves);
    }
    return leaves;
  }

  /** MTH over leaves [lo, hi) of the tree of `size` leaves (hi ≤ size). */
  async mth(lo: number, hi: number, size: number): Promise<Uint8Array> {
    const n = hi - lo;
    if (n === BLOCK && lo % BLOCK === 0 && lo / BLOCK < this.roots.length) {
      return this.roots[lo / BLOCK] as Uint8Array;
    }
    if (n === 1) return (await this.#leavesOf(Math.floor(lo / BLOCK), size))[lo % BLOCK] as Uint8Array;
    const k = merkleSplit(n);
    return merkleNodeBytes(await this.mth(lo, lo + k, size), await this.mth(lo + k, hi, size));
  }

  /** RFC 9162 PATH of leaf m in the tree of `size` leaves, leaf to root. */
  async inclusionPath(m: number, size: number): Promise<Uint8Array[]> {
    const path: Uint8Array[] = [];
    let lo = 0;
    let hi = size;
    const siblings: [number, number][] = [];
    while (hi - lo > 1) {
      const k = merkleSplit(hi - lo);
      if (m - lo < k) {
        siblings.push([lo + k, hi]);
        hi = lo + k;
      } else {
        siblings.push([lo, lo + k]);
        lo += k;
      }
    }
    for (let i = siblings.length - 1; i >= 0; i--) {
      const [a, b] = siblings[i] as [number, number];
      path.push(await this.mth(a, b, size));
    }
    return path;
  }

  /** RFC 9162 PROOF between the trees of size1 and size2 leaves (1 ≤ size1 ≤ size2). */
  async consistency(size1: number, size2: number): Promise<Uint8Array[]> {
    const proof: Uint8Array[] = [];
    const sub = async (m: number, lo: number, hi: number, complete: boolean): Promise<void> => {
      const n = hi - lo;
      if (m === n) {
        if (!complete) proof.push(await this.mth(lo, hi, size2));
        return;
      }
      const k = merkleSplit(n);
      if (m <= k) {
        await sub(m, lo, lo + k, complete);
        proof.push(await this.mth(lo + k, hi, size2));
      } else {
        await sub(m - k, lo + k, hi, false);
        proof.push(await this.mth(lo, lo + k, size2));
      }
    };
    if (size1 < size2) await sub(size1, 0, size2, true);
    return proof;
  }
}

/** Inclusion proof of one entry in the tree of `treeSize` (default: the latest checkpoint). */
export async function proveInclusion(
  store: AuditStore,
  tenantId: string,
  entryId: string,
  treeSize?: number,
): Promise<Result<InclusionProof, GovernanceError>> {
  const record = await store.get(tenantId, entryId);
  if (!record) return err(new NotFoundError('Audit entry'));
  // The latest checkpoint alone (a long-lived tenant has thousands); all of them only for an
  // explicit older size.
  const latest = await latestCheckpointOf(store, tenantId);
  const size = treeSize ?? latest?.treeSize;
  if (size === undefined) return err(ValidationError.invalid('treeSize', 'no checkpoint exists yet'));
  const head = await store.head(tenantId);
  if (!Number.isSafeInteger(size) || size < record.seq || size > (head?.seq ?? 0)) {
    return err(ValidationError.invalid('treeSize', `must be between ${record.seq} and ${head?.seq ?? 0}`));
  }
  const tree = await LazyTree.open(store, tenantId, size);
  const proof = await tree.inclusionPath(record.seq - 1, size);
  const checkpoint =
    latest?.treeSize === size ? latest : (await store.checkpoints(tenantId)).find((c) => c.treeSize === size);
  return ok({
    entryId,
    seq: record.seq,
    leafIndex: record.seq - 1,
    leafHash: merkleLeafHash(record.hash),
    treeSize: size,
    rootHash: bytesToHex(await tree.mth(0, size, size)),
    proof: proof.map(bytesToHex),
    ...(checkpoint ? { checkpoint } : {}),
  });
}

/** Consistency proof between the trees of `size1` and `size2` records. */
export async function proveConsistency(
  store: AuditStore,
  tenantId: string,
  size1: number,
  size2: number,
): Promise<Result<ConsistencyProof, GovernanceError>> {
  const head = await store.head(tenantId);
  const max = head?.seq ?? 0;
  if (!Number.isSafeInteger(size2) || size2 < 1 || size2 > max) {
    return err(ValidationError.invalid('size2', `must be between 1 and ${max}`));
  }
  if (!Number.isSafeInteger(size1) || size1 < 1 || size1 > size2) {
    return err(ValidationError.invalid('size1', `must be between 1 and ${size2}`));
  }
  const tree = await LazyTree.open(store, tenantId, size2);
  return ok({
    size1,
    size2,
    root1: bytesToHex(await tree.mth(0, size1, size2)),
    root2: bytesToHex(await tree.mth(0, size2, size2)),
    proof: (await tree.consistency(size1, size2)).map(bytesToHex),
  });
}
