/**
 * Reads for proofs: inclusion of one entry and consistency between two tree sizes, computed
 * from the record hashes up to the tree size (RFC 9162 PATH / PROOF, see `merkle.ts`).
 */
import {
  type AuditCheckpoint,
  type AuditStore,
  type GovernanceError,
  NotFoundError,
  ValidationError,
} from '@agentgov/core';
import { err, ok, type Result } from 'neverthrow';
import { consistencyProof, inclusionProof, merkleLeafHash, merkleRoot } from './merkle';

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

/** The hashes of records 1..size, in seq order. */
async function hashesUpTo(store: AuditStore, tenantId: string, size: number): Promise<string[]> {
  const out: string[] = [];
  for await (const r of store.scan(tenantId, { toSeq: size, batchSize: 5000 })) out.push(r.hash);
  return out;
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
  const checkpoints = await store.checkpoints(tenantId);
  const size = treeSize ?? checkpoints.at(-1)?.treeSize;
  if (size === undefined) return err(ValidationError.invalid('treeSize', 'no checkpoint exists yet'));
  const head = await store.head(tenantId);
  if (!Number.isSafeInteger(size) || size < record.seq || size > (head?.seq ?? 0)) {
    return err(ValidationError.invalid('treeSize', `must be between ${record.seq} and ${head?.seq ?? 0}`));
  }
  const hashes = await hashesUpTo(store, tenantId, size);
  const checkpoint = checkpoints.find((c) => c.treeSize === size);
  return ok({
    entryId,
    seq: record.seq,
    leafIndex: record.seq - 1,
    leafHash: merkleLeafHash(record.hash),
    treeSize: size,
    rootHash: merkleRoot(hashes, size),
    proof: inclusionProof(hashes, record.seq - 1, size),
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
  const hashes = await hashesUpTo(store, tenantId, size2);
  return ok({
    size1,
    size2,
    root1: merkleRoot(hashes, size1),
    root2: merkleRoot(hashes, size2),
    proof: consistencyProof(hashes, size1, size2),
  });
}
