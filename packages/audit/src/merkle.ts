/**
 * Merkle tree of RFC 6962 / RFC 9162 §2.1 over the record hashes of a tenant's chain.
 *
 * - leaf input  = the 32 bytes of a record's `hash` (record with seq s is leaf index s − 1);
 * - leaf hash   = SHA-256(0x00 || leaf input);
 * - node hash   = SHA-256(0x01 || left || right);
 * - MTH, PATH (inclusion) and PROOF/SUBPROOF (consistency) exactly as in RFC 9162 §2.1.1–2.1.4,
 *   so trees of any size (not only powers of two) are covered.
 *
 * Hashes cross the API as lowercase hex strings; the verifiers never throw: they return
 * `Result<void, VerificationError>` (`malformed_proof` for anything malformed, `proof_mismatch`
 * for a proof that does not lead to the root).
 */
import { err, ok, type Result } from 'neverthrow';
import { bytesToHex, hexToBytes, isHash, sha256Bytes, sha256Latin1 } from './crypto';
import { VerificationError } from './verification';

function leafBytes(data: Uint8Array): Uint8Array {
  const input = new Uint8Array(1 + data.byteLength);
  input.set(data, 1);
  return sha256Bytes(input);
}

const nodeInput = new Uint8Array(65);
function nodeBytes(left: Uint8Array, right: Uint8Array): Uint8Array {
  if (left.byteLength === 32 && right.byteLength === 32) {
    nodeInput[0] = 1;
    nodeInput.set(left, 1);
    nodeInput.set(right, 33);
    return sha256Bytes(nodeInput);
  }
  const input = new Uint8Array(1 + left.byteLength + right.byteLength);
  input[0] = 1;
  input.set(left, 1);
  input.set(right, 1 + left.byteLength);
  return sha256Bytes(input);
}

/** Merkle leaf hash (bytes) of a record hash (hex). */
export function merkleLeafBytes(recordHash: string): Uint8Array {
  return leafBytes(hexToBytes(recordHash));
}

/** Node hash (bytes) of two child hashes (bytes): SHA-256(0x01 || left || right). */
export function merkleNodeBytes(left: Uint8Array, right: Uint8Array): Uint8Array {
  return nodeBytes(left, right);
}

/** Largest power of two strictly smaller than n (n ≥ 2). */
export function merkleSplit(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** Merkle leaf hash (hex) of a record hash (hex): SHA-256(0x00 || bytes of recordHash). */
export function merkleLeafHash(recordHash: string): string {
  return bytesToHex(leafBytes(hexToBytes(recordHash)));
}

/** Node hash (hex) of two child hashes (hex). */
export function merkleNodeHash(left: string, right: string): string {
  return bytesToHex(nodeBytes(hexToBytes(left), hexToBytes(right)));
}

/** SHA-256 of the empty string: the root of the empty tree (RFC 9162 §2.1.1). */
export const EMPTY_TREE_ROOT = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

const split = merkleSplit;

/** MTH over leaf hashes [lo, hi). */
function mth(leaves: readonly Uint8Array[], lo: number, hi: number): Uint8Array {
  const n = hi - lo;
  if (n === 1) return leaves[lo] as Uint8Array;
  const k = split(n);
  return nodeBytes(mth(leaves, lo, lo + k), mth(leaves, lo + k, hi));
}

function toLeafHashes(recordHashes: readonly string[], size: number): Uint8Array[] {
  if (!Number.isSafeInteger(size) || size < 0 || size > recordHashes.length) {
    throw new RangeError(`tree size ${size} outside 0..${recordHashes.length}`);
  }
  const out: Uint8Array[] = new Array(size);
  for (let i = 0; i < size; i++) {
    const h = recordHashes[i];
    if (!isHash(h)) throw new TypeError(`leaf ${i} is not a 64-digit hex hash`);
    out[i] = leafBytes(hexToBytes(h));
  }
  return out;
}

/** Root (hex) of the tree over the first `size` record hashes (all of them by default). */
export function merkleRoot(recordHashes: readonly string[], size = recordHashes.length): string {
  if (size === 0) return EMPTY_TREE_ROOT;
  const leaves = toLeafHashes(recordHashes, size);
  return bytesToHex(mth(leaves, 0, size));
}

/**
 * Inclusion proof (RFC 9162 PATH) of leaf `index` (0-based) in the tree of the first `treeSize`
 * record hashes: the sibling hashes from the leaf up, as hex.
 */
export function inclusionProof(recordHashes: readonly string[], index: number, treeSize: number): string[] {
  const leaves = toLeafHashes(recordHashes, treeSize);
  if (!Number.isSafeInteger(index) || index < 0 || index >= treeSize) {
    throw new RangeError(`leaf index ${index} outside 0..${treeSize - 1}`);
  }
  const path: Uint8Array[] = [];
  const walk = (m: number, lo: number, hi: number): void => {
    const n = hi - lo;
    if (n <= 1) return;
    const k = split(n);
    if (m < k) {
      walk(m, lo, lo + k);
      path.push(mth(leaves, lo + k, hi));
    } else {
      walk(m - k, lo + k, hi);
      path.push(mth(leaves, lo, lo + k));
    }
  };
  walk(index, 0, treeSize);
  return path.map(bytesToHex);
}

/**
 * Consistency proof (RFC 9162 PROOF) that the tree of `size1` records is a prefix of the tree of
 * `size2` records (1 ≤ size1 ≤ size2). Empty when size1 = size2.
 */
export function consistencyProof(recordHashes: readonly string[], size1: number, size2: number): string[] {
  const leaves = toLeafHashes(recordHashes, size2);
  if (!Number.isSafeInteger(size1) || size1 < 1 || size1 > size2) {
    throw new RangeError(`first tree size ${size1} outside 1..${size2}`);
  }
  const proof: Uint8Array[] = [];
  const sub = (m: number, lo: number, hi: number, complete: boolean): void => {
    const n = hi - lo;
    if (m === n) {
      if (!complete) proof.push(mth(leaves, lo, hi));
      return;
    }
    const k = split(n);
    if (m <= k) {
      sub(m, lo, lo + k, complete);
      proof.push(mth(leaves, lo + k, hi));
    } else {
      sub(m - k, lo + k, hi, false);
      proof.push(mth(leaves, lo, lo + k));
    }
  };
  sub(size1, 0, size2, true);
  return proof.map(bytesToHex);
}

const validProof = (proof: unknown): proof is string[] => Array.isArray(proof) && proof.every(isHash);
const validSize = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;

const malformed = (message: string) => err(new VerificationError('malformed_proof', message));

/**
 * Verifies an inclusion proof without the log (RFC 9162 §2.1.3.2). `leafHash` is the Merkle leaf
 * hash (`merkleLeafHash(record.hash)`), `index` is 0-based (seq − 1). `ok` when the proof leads
 * from the leaf to `root`; else a `VerificationError` (`malformed_proof`, `proof_mismatch`).
 */
export function verifyInclusion(
  leafHash: string,
  index: number,
  treeSize: number,
  proof: readonly string[],
  root: string,
): Result<void, VerificationError> {
  if (!isHash(leafHash) || !isHash(root)) return malformed('the leaf hash and the root must be SHA-256 hex');
  if (!validProof(proof)) return malformed('the proof must be a list of SHA-256 hex hashes');
  if (!validSize(index) || !validSize(treeSize) || index >= treeSize) {
    return malformed('the index must be an integer from 0 to the tree size − 1');
  }
  return inclusionHolds(leafHash, index, treeSize, proof, root)
    ? ok(undefined)
    : err(
        new VerificationError(
          'proof_mismatch',
          `the proof does not lead from the leaf to the root of ${treeSize}`,
        ),
      );
}

function inclusionHolds(
  leafHash: string,
  index: number,
  treeSize: number,
  proof: readonly string[],
  root: string,
): boolean {
  let fn = index;
  let sn = treeSize - 1;
  let r = hexToBytes(leafHash);
  for (const p of proof) {
    if (sn === 0) return false;
    const pb = hexToBytes(p);
    if (fn % 2 === 1 || fn === sn) {
      r = nodeBytes(pb, r);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      r = nodeBytes(r, pb);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && bytesToHex(r) === root;
}

function isPowerOfTwo(n: number): boolean {
  let k = 1;
  while (k < n) k *= 2;
  return k === n;
}

/**
 * Verifies a consistency proof between two tree heads without the log (RFC 9162 §2.1.4.2):
 * the tree of `size1` leaves with root `root1` is a prefix of the tree of `size2` with `root2`.
 * `ok` when it is; else a `VerificationError` (`malformed_proof`, `proof_mismatch`).
 */
export function verifyConsistency(
  size1: number,
  size2: number,
  proof: readonly string[],
  root1: string,
  root2: string,
): Result<void, VerificationError> {
  if (!isHash(root1) || !isHash(root2)) return malformed('the roots must be SHA-256 hex');
  if (!validProof(proof)) return malformed('the proof must be a list of SHA-256 hex hashes');
  if (!validSize(size1) || !validSize(size2) || size1 < 1 || size1 > size2) {
    return malformed('the sizes must be integers with 1 ≤ size1 ≤ size2');
  }
  return consistencyHolds(size1, size2, proof, root1, root2)
    ? ok(undefined)
    : err(
        new VerificationError(
          'proof_mismatch',
          `the proof does not show the tree of ${size1} to be a prefix of the tree of ${size2}`,
        ),
      );
}

function consistencyHolds(
  size1: number,
  size2: number,
  proof: readonly string[],
  root1: string,
  root2: string,
): boolean {
  if (size1 === size2) return proof.length === 0 && root1 === root2;
  if (proof.length === 0) return false;
  const path = isPowerOfTwo(size1) ? [root1, ...proof] : [...proof];
  let fn = size1 - 1;
  let sn = size2 - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  let fr = hexToBytes(path[0] as string);
  let sr = fr;
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    const cb = hexToBytes(c);
    if (fn % 2 === 1 || fn === sn) {
      fr = nodeBytes(cb, fr);
      sr = nodeBytes(cb, sr);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      sr = nodeBytes(sr, cb);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return bytesToHex(fr) === root1 && bytesToHex(sr) === root2 && sn === 0;
}

/**
 * Streaming MTH: push record hashes in order, read the root of the prefix pushed so far at any
 * time. Keeps O(log n) subtree hashes (the verifier uses it to recompute checkpoint roots while
 * it streams the log).
 */
export class MerkleAccumulator {
  /**
   * Perfect subtrees, largest first: their hashes (latin1 strings of the 32 bytes: a digest as a
   * string costs a fraction of a digest as a Buffer) and sizes.
   */
  readonly #hashes: string[] = [];
  readonly #sizes: number[] = [];
  #size = 0;
  /** 0x00 || record hash bytes (leaf input) and 0x01 || left || right (node input), reused. */
  readonly #leaf = Buffer.alloc(33);
  readonly #node = Buffer.alloc(65, 1);

  get size(): number {
    return this.#size;
  }

  push(recordHash: string): void {
    // The hex is written straight into the reused leaf input: no intermediate bytes or hex.
    let h: string;
    if (recordHash.length === 64 && this.#leaf.write(recordHash, 1, 32, 'hex') === 32) {
      h = sha256Latin1(this.#leaf);
    } else {
      h = Buffer.from(leafBytes(hexToBytes(recordHash))).toString('latin1'); // malformed hex: the general path
    }
    let size = 1;
    const hashes = this.#hashes;
    const sizes = this.#sizes;
    const node = this.#node;
    while (sizes.length > 0 && sizes[sizes.length - 1] === size) {
      sizes.pop();
      node.write((hashes.pop() as string) + h, 1, 64, 'latin1'); // left || right, one write
      h = sha256Latin1(node);
      size *= 2;
    }
    hashes.push(h);
    sizes.push(size);
    this.#size++;
  }

  /** An accumulator at the same point (its own state: pushing to one leaves the other as it was). */
  clone(): MerkleAccumulator {
    const copy = new MerkleAccumulator();
    copy.#hashes.push(...this.#hashes);
    copy.#sizes.push(...this.#sizes);
    copy.#size = this.#size;
    return copy;
  }

  /** Root (hex) of the tree over everything pushed so far. */
  root(): string {
    return this.#hashes.length === 0 ? EMPTY_TREE_ROOT : bytesToHex(this.rootBytes());
  }

  /** Root (bytes) of the tree over everything pushed so far (the empty tree's too). */
  rootBytes(): Uint8Array {
    const hashes = this.#hashes;
    if (hashes.length === 0) return hexToBytes(EMPTY_TREE_ROOT);
    let r: Uint8Array = Buffer.from(hashes[hashes.length - 1] as string, 'latin1');
    for (let i = hashes.length - 2; i >= 0; i--) r = nodeBytes(Buffer.from(hashes[i] as string, 'latin1'), r);
    return r;
  }
}
