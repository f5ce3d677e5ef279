/**
 * Audit ports: the AuditStore (the stored hash chain, one per tenant, implemented by every
 * backend) and the AuditSink (where a service writes its audit entries).
 */
import type { Result } from 'neverthrow';
import type { GovernanceError } from '../errors';
import type { CallOptions } from '../vocabulary';
import type { ActionType, AuditEntry, AuditEntryInput, PolicyResult } from './schema';

/** One stored link of a tenant's audit hash chain (see `@agentgov/audit` for how it is computed). */
export interface AuditRecord {
  entry: AuditEntry;
  /** 1-based position in the tenant's chain, gap-free. */
  seq: number;
  /** Hash of the previous record of the tenant (hex); 64 zeros for the first. */
  prevHash: string;
  /** Hash of this record (hex). */
  hash: string;
  /**
   * Keyed commitments (HMAC, hex) of the personal identifiers in `entry`, by path
   * (`userId`, `actionDetail.initiatorUserId`, …). The hash covers these, not the clear values.
   */
  commitments: Record<string, string>;
  /**
   * The exact text the hash covers (its UTF-8 bytes: the canonical JSON of `@agentgov/audit`'s
   * `recordHashInput`), when the store keeps it: the leaf the verifier checks the chain over, as
   * Certificate Transparency logs keep theirs. Absent for records stored without it.
   */
  leaf?: string;
}

/**
 * One link of the chain as the verifier's leaf check reads it (`AuditStore.scanLeaves`): the
 * stored leaf text with what places it, without the entry's columns.
 */
export interface AuditLeaf {
  seq: number;
  /** The entry's id (to name a broken link). */
  id: string;
  prevHash: string;
  hash: string;
  leaf: string;
}

export interface ChainHead {
  seq: number;
  hash: string;
}

export interface AuditFilter {
  userId?: string;
  /** Entries of any of these users (org-scoped reads). */
  userIds?: readonly string[];
  actionType?: ActionType;
  policyResult?: PolicyResult;
  requestId?: string;
  /** Inclusive lower bound on `timestamp` (ISO 8601). */
  from?: string;
  /** Inclusive upper bound on `timestamp` (ISO 8601). */
  to?: string;
  /**
   * Only records at or before this position of the tenant's chain (seq): a snapshot, so offset
   * pages read while the log grows — each read itself appends a `data_access` entry — neither
   * repeat nor skip an entry.
   */
  toSeq?: number;
}

export interface AuditScanOptions {
  filter?: AuditFilter;
  /** First seq to read (inclusive). */
  fromSeq?: number;
  /** Last seq to read (inclusive). */
  toSeq?: number;
  /** Records fetched per round trip. */
  batchSize?: number;
  signal?: AbortSignal;
}

/** Options of `AuditStore.scanHashes` and `AuditStore.scanPages`. */
export interface AuditHashScanOptions {
  /** First seq to read (inclusive, default 1). */
  fromSeq?: number;
  /** Last seq to read (inclusive, default: the head). */
  toSeq?: number;
  /** Hashes per page (one round trip each). */
  batchSize?: number;
  signal?: AbortSignal;
}

export interface AuditCheckpoint {
  tenantId: string;
  /** Number of records covered (records with seq 1..treeSize). */
  treeSize: number;
  /** Merkle tree root over the record hashes (hex). */
  rootHash: string;
  issuedAt: string;
  /** The signed tree head, a compact JWS. */
  jws: string;
}

export interface AuditStore {
  /**
   * Appends records to the tenant's chain. The store serializes appends per tenant (also across
   * processes sharing the database): it reads the current head, calls `build(head)` and stores
   * the records it returns atomically, all while holding the tenant's lock. `build` must return
   * records with seq = head.seq + 1, + 2, … and prevHash linking to head.hash. Appends of
   * different tenants never wait for each other.
   */
  append(
    tenantId: string,
    build: (head: ChainHead | undefined) => AuditRecord[] | Promise<AuditRecord[]>,
    options?: CallOptions,
  ): Promise<AuditRecord[]>;
  head(tenantId: string): Promise<ChainHead | undefined>;
  get(tenantId: string, id: string): Promise<AuditRecord | undefined>;
  /** A page of matching records ordered by seq (asc by default) and the total count of matches. */
  query(
    tenantId: string,
    filter: AuditFilter,
    page: { offset: number; limit: number; order?: 'asc' | 'desc' },
  ): Promise<{ records: AuditRecord[]; total: number }>;
  /** Streams matching records in seq order, fetching `batchSize` at a time (bounded memory). */
  scan(tenantId: string, options?: AuditScanOptions): AsyncIterable<AuditRecord>;
  /**
   * Streams only the record hashes of seq fromSeq..toSeq, in seq order, a page (array) at a time:
   * what Merkle proofs read, without the entries. Optional: without it, readers take the hashes
   * from `scan`.
   */
  scanHashes?(tenantId: string, options?: AuditHashScanOptions): AsyncIterable<string[]>;
  /**
   * Streams the records of seq fromSeq..toSeq, in seq order, a page (array) at a time: what the
   * verifier reads, without a promise per record. The records are for reading only: they may be
   * the store's own (the in-memory store hands out its frozen records instead of copies).
   * Optional: without it, readers use `scan`.
   */
  scanPages?(tenantId: string, options?: AuditHashScanOptions): AsyncIterable<readonly AuditRecord[]>;
  /**
   * Streams seq fromSeq..toSeq, in seq order, a page at a time, for the verifier's leaf check: a
   * record stored with its leaf text as an `AuditLeaf` (no entry columns read), one stored without
   * it as the whole `AuditRecord` (told apart by its `entry`). Optional: without it, the verifier
   * reads `scanPages` or `scan`.
   */
  scanLeaves?(
    tenantId: string,
    options?: AuditHashScanOptions,
  ): AsyncIterable<readonly (AuditLeaf | AuditRecord)[]>;
  /**
   * GDPR erasure: replaces the clear value `userId` with `replacement` in `entry.userId` and in
   * every `actionDetail` path listed in a record's commitments whose value is `userId`. Nothing
   * else changes (hash, prevHash, commitments stay). Returns the number of records touched.
   */
  anonymize(tenantId: string, userId: string, replacement: string): Promise<number>;
  /** Tenants that have at least one record, ordered by id. */
  tenants(): Promise<string[]>;
  /** Number of records of a tenant, or of all tenants. */
  count(tenantId?: string): Promise<number>;
  saveCheckpoint(checkpoint: AuditCheckpoint): Promise<void>;
  /** Checkpoints of the tenant ordered by treeSize. */
  checkpoints(tenantId: string): Promise<AuditCheckpoint[]>;
  /**
   * The tenant's checkpoint of the largest treeSize, without reading the others (optional: a
   * tenant checkpointed every minute has half a million after a year; `latestCheckpointOf` falls
   * back to the last of `checkpoints`).
   */
  latestCheckpoint?(tenantId: string): Promise<AuditCheckpoint | undefined>;
}

/** The tenant's latest checkpoint: `store.latestCheckpoint` when the store has it, else the last of `checkpoints`. */
export async function latestCheckpointOf(
  store: Pick<AuditStore, 'checkpoints' | 'latestCheckpoint'>,
  tenantId: string,
): Promise<AuditCheckpoint | undefined> {
  return store.latestCheckpoint
    ? store.latestCheckpoint(tenantId)
    : (await store.checkpoints(tenantId)).at(-1);
}

// ---------------------------------------------------------------------------------------------

/**
 * Where a service writes its audit entries (e.g. the `policy_change` entry of PolicyService).
 * `@agentgov/audit`'s AuditLog implements it structurally; `InMemoryAuditSink` is for tests.
 */
export interface AuditSink {
  append(input: AuditEntryInput, options?: CallOptions): Promise<Result<AuditEntry, GovernanceError>>;
}
