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

/** A part of the log the verifier could not check for want of a key (see `VerifyReport.unchecked`). */
export interface UncheckedPart {
  /** `identifiers`: clear identifiers against their commitments; `signatures`: checkpoint signatures. */
  part: 'identifiers' | 'signatures';
  /** The secret ref of the key that was needed (`audit-commitment-key`, `audit-signing-key`). */
  key: string;
  /** The environment variable that gives that key to an `EnvSecretStore`. */
  variable: string;
  /** Why it was not available: `missing`, or why the key given is unusable. */
  problem: string;
  /** How to give it, in words. */
  hint: string;
}

export interface VerifyReport {
  /**
   * True when everything was checked and nothing broke. Something left unchecked for want of a
   * key (`unchecked`) makes it false, unless the caller passed `allowUnchecked: true`.
   */
  ok: boolean;
  tenantId: string;
  /** Records read. */
  checked: number;
  firstBreak?: ChainBreak;
  checkpoints: CheckpointCheck[];
  /** `checked` when the commitment key was available, else `unchecked` (chain still verified). */
  identifiers: 'checked' | 'unchecked';
  /**
   * What could not be checked for want of a key, naming the key and how to give it (absent when
   * everything was checked). Unchecked is not intact: it makes `ok` false unless `allowUnchecked`.
   */
  unchecked?: UncheckedPart[];
  /** Whether the caller accepted a partial check (`allowUnchecked: true`). */
  allowUnchecked?: true;
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
