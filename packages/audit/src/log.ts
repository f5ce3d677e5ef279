/**
 * The audit log: its public interface and `createAuditLog`, which wires the operations to one
 * shared context. There is no update or delete. The parts:
 * - `log-context.ts`     options resolved once; lazily read keys
 * - `entry-input.ts`     entry validation and normalisation
 * - `record-builder.ts`  commitments, canonical JSON and record hashes (fast path and original)
 * - `append.ts`          append / appendBatch: validation and preparation at the call
 * - `append-queue.ts`    group commit per tenant: one locked `store.append` per group
 * - `issue-checkpoint.ts` verify, sign and save a checkpoint
 * - `proofs.ts`          inclusion and consistency proofs
 */
import type {
  AuditCheckpoint,
  AuditEntry,
  AuditEntryInput,
  AuditStore,
  CallOptions,
  Clock,
  GovernanceError,
  SecretStore,
} from '@agentgov/core';
import { guardPort, guardResult } from '@agentgov/core';
import type { JWK } from 'jose';
import { ok, type Result } from 'neverthrow';
import { appendMany, appendOne } from './append';
import { AppendQueue } from './append-queue';
import { type CheckpointView, issueCheckpoint, latestCheckpoint } from './issue-checkpoint';
import { createLogContext } from './log-context';
import { type ConsistencyProof, type InclusionProof, proveConsistency, proveInclusion } from './proofs';
import { commitmentOf } from './records';

export type { ConsistencyProof, InclusionProof } from './proofs';

export interface AuditLogOptions {
  store: AuditStore;
  /** Holds the commitment master key and the checkpoint signing key. */
  secrets: SecretStore;
  clock?: Clock;
  /**
   * Secret ref of the HMAC master key; per-tenant keys are derived from it with
   * HKDF-SHA256(info = tenantId). Default 'audit-commitment-key'.
   */
  commitmentKeyRef?: string;
  /** Secret ref of the checkpoint signing key (an Ed25519 or P-256 private JWK as JSON). Default 'audit-signing-key'. */
  signingKeyRef?: string;
  /** Identifier paths to commit (default PERSONAL_IDENTIFIER_PATHS; `userId` is always added). */
  identifierPaths?: readonly string[];
  /** Entry id generator (default: monotonic ULIDs timed by `clock`). */
  ids?: () => string;
}

export interface AuditLog {
  /**
   * Validates (AuditEntryInputSchema; ULID id; timestamp defaults to clock), commits identifiers,
   * hashes, appends. Appends of a tenant made together (one microtask checkpoint, or while its
   * previous write is in flight) share one locked store write; each resolves once its entry is
   * written, an invalid input fails only its own call (README, "Group commit").
   */
  append(input: AuditEntryInput, options?: CallOptions): Promise<Result<AuditEntry, GovernanceError>>;
  /**
   * Many entries in one locked append per tenant (grouped per tenant, order kept). All inputs are
   * validated before anything is written; the append of each tenant is atomic.
   */
  appendBatch(
    inputs: readonly AuditEntryInput[],
    options?: CallOptions,
  ): Promise<Result<AuditEntry[], GovernanceError>>;
  /**
   * Verifies the tenant's chain, then signs and saves a checkpoint over its current head. Returns
   * the existing checkpoint when one of that size exists already.
   */
  checkpoint(tenantId: string, options?: CallOptions): Promise<Result<AuditCheckpoint, GovernanceError>>;
  /**
   * The latest checkpoint, also as a C2SP tlog-checkpoint signed note (Ed25519 signing keys only)
   * with its verifier key. NotFound before the first checkpoint.
   */
  latestCheckpoint(tenantId: string): Promise<Result<CheckpointView, GovernanceError>>;
  /** Inclusion proof of one entry in the tree of `treeSize` (default: the latest checkpoint). */
  proveInclusion(
    tenantId: string,
    entryId: string,
    treeSize?: number,
  ): Promise<Result<InclusionProof, GovernanceError>>;
  /** Consistency proof between the trees of `size1` and `size2` records. */
  proveConsistency(
    tenantId: string,
    size1: number,
    size2: number,
  ): Promise<Result<ConsistencyProof, GovernanceError>>;
  /**
   * Reads the public JWK that verifies this log's checkpoints (from the signing key in `secrets`):
   * a Result, since the key may be missing. Not to be confused with `generateAuditKeys().publicJwk`,
   * which is the JWK itself.
   */
  loadPublicJwk(): Promise<Result<JWK, GovernanceError>>;
  /** @deprecated Renamed `loadPublicJwk()` (it reads the key and returns a Result, not a JWK); goes in the next minor. */
  publicJwk(): Promise<Result<JWK, GovernanceError>>;
  /** The commitment of a clear identifier in a tenant (used for erasure placeholders). */
  commitment(tenantId: string, clearValue: string): Promise<Result<string, GovernanceError>>;
}

export function createAuditLog(options: AuditLogOptions): AuditLog {
  const ctx = createLogContext(options);
  const queue = new AppendQueue(ctx);
  const loadPublicJwk = () => guardResult(async () => ok((await ctx.signingKey()).publicJwk));
  // Proofs read the store only: a store that fails them is the spec's 503 (service_unavailable),
  // not an internal error.
  const proofStore = guardPort(ctx.store, 'audit store');
  return {
    append: (input, callOptions) => appendOne(ctx, queue, input, callOptions),
    appendBatch: (inputs, callOptions) => guardResult(() => appendMany(ctx, queue, inputs, callOptions)),
    checkpoint: (tenantId, callOptions) => guardResult(() => issueCheckpoint(ctx, tenantId, callOptions)),
    latestCheckpoint: (tenantId) => guardResult(() => latestCheckpoint(ctx, tenantId)),
    proveInclusion: (tenantId, entryId, treeSize) =>
      guardResult(() => proveInclusion(proofStore, tenantId, entryId, treeSize)),
    proveConsistency: (tenantId, size1, size2) =>
      guardResult(() => proveConsistency(proofStore, tenantId, size1, size2)),
    loadPublicJwk,
    publicJwk: loadPublicJwk,
    commitment: (tenantId, clearValue) =>
      guardResult(async () => ok(commitmentOf((await ctx.tenantKeys()).get(tenantId), clearValue))),
  };
}
