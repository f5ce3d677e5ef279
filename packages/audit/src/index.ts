/**
 * @agentgov/audit — hash-chained, Merkle-checkpointed, append-only audit log: append (single and
 * batch), verifier, signed checkpoints with inclusion/consistency proofs, and AuditService
 * (query, get, streamed JSON/CSV export, GDPR anonymization). See README.md for the decisions.
 */
export {
  CHECKPOINT_TYP,
  type CheckpointPayload,
  CheckpointPayloadSchema,
  type CheckpointVerificationError,
  signCheckpoint,
  verifyCheckpoint,
} from './checkpoint';
export { COMMITMENT_KDF_SALT, canonicalJson, deriveTenantKey, GENESIS_HASH, sha256Hex } from './crypto';
export { CSV_COLUMNS, CSV_HEADER, csvCell, csvRow, exportStream } from './export';
export type { CheckpointView } from './issue-checkpoint';
export {
  AuditKeyError,
  type AuditKeys,
  type CheckpointAlg,
  DEFAULT_COMMITMENT_KEY_REF,
  DEFAULT_SIGNING_KEY_REF,
  ensureAuditKeysOrThrow,
  fileKeyStore,
  generateAuditKeys,
  MIN_COMMITMENT_KEY_LENGTH,
  parseSigningKeyOrThrow,
  publicJwkOf,
} from './keys';

import { ensureAuditKeysOrThrow, parseSigningKeyOrThrow } from './keys';

/**
 * @deprecated Renamed `ensureAuditKeysOrThrow` (it throws `AuditKeyError`: the one error convention
 * names throwing helpers `…OrThrow`); this alias goes in the next minor release.
 */
export const ensureAuditKeys: typeof ensureAuditKeysOrThrow = ensureAuditKeysOrThrow;
/** @deprecated Renamed `parseSigningKeyOrThrow` (it throws `AuditKeyError`); goes in the next minor release. */
export const parseSigningKey: typeof parseSigningKeyOrThrow = parseSigningKeyOrThrow;
export {
  type AuditLog,
  type AuditLogOptions,
  type ConsistencyProof,
  createAuditLog,
  type InclusionProof,
} from './log';
export {
  consistencyProof,
  EMPTY_TREE_ROOT,
  inclusionProof,
  MerkleAccumulator,
  merkleLeafHash,
  merkleNodeHash,
  merkleRoot,
  verifyConsistency,
  verifyInclusion,
} from './merkle';
export {
  type AuditExportQuery,
  AuditExportQueryParams,
  AuditExportQuerySchema,
  type AuditQuery,
  AuditQueryParams,
  AuditQuerySchema,
  DEFAULT_PAGE_SIZE,
  MAX_PAGE,
  MAX_PAGE_SIZE,
  parseAuditExportQuery,
  parseAuditQuery,
} from './query';
export {
  ANONYMIZED_PREFIX,
  anonymizedPlaceholder,
  commitIdentifiers,
  commitmentOf,
  committedEntry,
  computeRecordHash,
  isAnonymizedPlaceholder,
  PERSONAL_IDENTIFIER_PATHS,
  recordHashInput,
} from './records';
export {
  type AuditExport,
  type AuditPage,
  type AuditService,
  type AuditVisibility,
  createAuditService,
  type ErasureActor,
  type ErasureResult,
} from './service';
export {
  type CheckpointBody,
  checkpointBody,
  checkpointNote,
  checkpointOrigin,
  type NoteKey,
  type NoteVerificationError,
  noteKeyId,
  noteVerifierKey,
  openNote,
  signNote,
  type VerifiedCheckpointNote,
  verifyCheckpointNote,
} from './signed-note';
export { type PublicJwk, VerificationError, type VerificationReason } from './verification';
export {
  type BreakReason,
  type ChainBreak,
  type CheckpointCheck,
  type UncheckedPart,
  type VerifiedPrefix,
  type VerifyOptions,
  type VerifyReport,
  verifyAll,
  verifyTenant,
} from './verify';
