/**
 * What the verifier reports: the report, its first break and the checks of each checkpoint, and
 * how a problem found at one record becomes the report's first break.
 */
import type { AuditLeaf, AuditRecord } from '@agentgov/core';

export type BreakReason =
  | 'hash_mismatch'
  | 'prev_hash_mismatch'
  | 'seq_gap'
  | 'commitment_mismatch'
  | 'invalid_entry'
  /** The records do not reproduce the signed root of a checkpoint (e.g. the chain was rewritten). */
  | 'checkpoint_mismatch'
  /** A checkpoint covers more records than the log holds (records were deleted at the end). */
  | 'truncated'
  /** The stored leaf does not name its record's place (prevHash and seq): another record's leaf. */
  | 'leaf_mismatch';

export interface ChainBreak {
  /** Id of the first record that does not verify (for `truncated`: the last record present). */
  entryId: string;
  seq: number;
  reason: BreakReason;
  /** What differs, in words. */
  detail: string;
  /** The field that differs (`seq`, `prevHash`, `hash`, `leaf`, `commitments.userId`, `entry.outcome`…). */
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
  /**
   * What was checked of each record. `deep` (the default): every record is re-derived from its
   * columns — entry schema, id, tenant, commitments (clear identifiers against them with the
   * commitment key) and its hash recomputed from them, so a changed column is found — besides its
   * stored leaf. `leaf` (`deep: false`, CLI `--leaves-only`, the fast check): the stored leaf —
   * the exact text the record's hash covers, kept with it as Certificate Transparency logs keep
   * theirs — hashes to the record's hash and names the previous record's hash and the record's
   * seq; the columns (entry, commitments, clear identifiers) are NOT re-derived, except in
   * records stored without a leaf (`derived`), so a column edited behind the triggers is not
   * found. Links, Merkle roots and checkpoint signatures are checked at both depths.
   */
  depth: 'leaf' | 'deep';
  /** Records re-derived from their columns: every record at depth `deep`; else those stored without a leaf. */
  derived: number;
  firstBreak?: ChainBreak;
  checkpoints: CheckpointCheck[];
  /**
   * `checked` when the commitment key was available (clear identifiers are then checked in every
   * record re-derived from its columns, see `derived`), else `unchecked` (chain still verified).
   */
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

/** The id of the entry of a record or leaf (to name it in a break). */
export function entryIdOf(link: AuditRecord | AuditLeaf): string {
  return 'entry' in link ? String(link.entry?.id) : String(link.id);
}

/** Marks the report broken at `link` (a record, or a leaf read without its columns). */
export function breakAt(report: VerifyReport, link: AuditRecord | AuditLeaf, problem: Problem): void {
  report.ok = false;
  report.firstBreak = { entryId: entryIdOf(link), seq: link.seq, ...problem };
}
