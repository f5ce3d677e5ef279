/**
 * What the verifier reports: the report, its first break and the checks of each checkpoint, and
 * how a problem found at one record becomes the report's first break.
 */
import type { AuditRecord } from '@agentgov/core';

export type BreakReason =
  | 'hash_mismatch'
  | 'prev_hash_mismatch'
  | 'seq_gap'
  | 'commitment_mismatch'
  | 'invalid_entry'
  /** The records do not reproduce the signed root of a checkpoint (e.g. the chain was rewritten). */
  | 'checkpoint_mismatch'
  /** A checkpoint covers more records than the log holds (records were deleted at the end). */
  | 'truncated';

export interface ChainBreak {
  /** Id of the first record that does not verify (for `truncated`: the last record present). */
  entryId: string;
  seq: number;
  reason: BreakReason;
  /** What differs, in words. */
  detail: string;
  /** The field that differs (`seq`, `prevHash`, `hash`, `commitments.userId`, `entry.outcome`…). */
  field?: string;
  expected?: unknown;
  actual?: unknown;
}

export interface CheckpointCheck {
  treeSize: number;
  ok: boolean;
  /** `valid`, `invalid`, or `unchecked` when no public key was available. */
  signature: 'valid' | 'invalid' | 'unchecked';
  /** Whether the root recomputed from the records matches (undefined when not reached). */
  rootMatches?: boolean;
  reason?: string;
}

export interface VerifyReport {
  ok: boolean;
  tenantId: string;
  /** Records read. */
  checked: number;
  firstBreak?: ChainBreak;
  checkpoints: CheckpointCheck[];
  /** `checked` when the commitment key was available, else `unchecked` (chain still verified). */
  identifiers: 'checked' | 'unchecked';
  /** Merkle root over the records read (only when the range starts at seq 1 and nothing broke). */
  rootHash?: string;
  /** Hash of the last record read. */
  lastHash?: string;
}

/** A break before it is placed at a record. */
export type Problem = Omit<ChainBreak, 'entryId' | 'seq'>;

/** Marks the report broken at `record`. */
export function breakAt(report: VerifyReport, record: AuditRecord, problem: Problem): void {
  report.ok = false;
  report.firstBreak = { entryId: String(record.entry?.id), seq: record.seq, ...problem };
}
