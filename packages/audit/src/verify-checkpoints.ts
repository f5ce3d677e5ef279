/**
 * The verifier's checks of a tenant's checkpoints: each signature first (independent of the
 * records), each root when the record stream reaches its tree size, and at the end a checkpoint
 * the stream never reached (the log was truncated).
 */
import type { AuditCheckpoint, AuditLeaf, AuditRecord } from '@agentgov/core';
import type { JWK } from 'jose';
import { verifyCheckpoint } from './checkpoint';
import type { MerkleAccumulator } from './merkle';
import { type CheckpointCheck, entryIdOf, type Problem, type VerifyReport } from './verify-report';

interface PendingCheckpoint {
  checkpoint: AuditCheckpoint;
  check: CheckpointCheck;
}

/** The signature check of one stored checkpoint (and whether its payload matches it). */
async function checkSignature(
  checkpoint: AuditCheckpoint,
  tenantId: string,
  publicJwk: JWK | undefined,
): Promise<CheckpointCheck> {
  const check: CheckpointCheck = { treeSize: checkpoint.treeSize, ok: true, signature: 'unchecked' };
  if (!publicJwk) {
    check.reason = 'signature unchecked: no public key';
    return check;
  }
  const verified = await verifyCheckpoint(checkpoint.jws, publicJwk);
  if (verified.isErr()) {
    check.signature = 'invalid';
    check.ok = false;
    check.reason = verified.error.message;
  } else {
    check.signature = 'valid';
    const p = verified.value;
    if (p.tenantId !== tenantId || p.treeSize !== checkpoint.treeSize || p.rootHash !== checkpoint.rootHash) {
      check.ok = false;
      check.reason = 'the signed payload does not match the stored checkpoint';
    }
  }
  return check;
}

export class CheckpointChecks {
  /** Checkpoints whose root is still to be checked, by tree size. */
  private readonly pending = new Map<number, PendingCheckpoint>();

  /**
   * Checks the signature of every checkpoint up to `toSeq` into `report.checkpoints`. Roots are
   * only checked from seq 1 (`fromSeq === 1`); in a partial range they stay unchecked.
   */
  static async start(
    stored: readonly AuditCheckpoint[],
    report: VerifyReport,
    publicJwk: JWK | undefined,
    fromSeq: number,
    toSeq: number | undefined,
  ): Promise<CheckpointChecks> {
    const checks = new CheckpointChecks();
    for (const checkpoint of stored) {
      if (toSeq !== undefined && checkpoint.treeSize > toSeq) continue;
      const check = await checkSignature(checkpoint, report.tenantId, publicJwk);
      report.checkpoints.push(check);
      if (fromSeq === 1) checks.pending.set(checkpoint.treeSize, { checkpoint, check });
      else if (check.ok) check.reason = 'root unchecked: partial range';
    }
    return checks;
  }

  /**
   * Called with each verified record once its hash is in `merkle`: checks the root of the
   * checkpoint of that tree size, if any; the problem when it does not match.
   */
  reached(record: AuditRecord | AuditLeaf, merkle: MerkleAccumulator): Problem | undefined {
    return this.pending.has(record.seq) ? this.reachedRoot(record, merkle.root()) : undefined;
  }

  /** Whether a checkpoint of tree size `seq` still waits for its root. */
  waits(seq: number): boolean {
    return this.pending.has(seq);
  }

  /** The tree sizes still waiting for their root. */
  sizes(): number[] {
    return [...this.pending.keys()];
  }

  /**
   * `reached` with the root of records 1..record.seq computed elsewhere (the Merkle worker):
   * checks the checkpoint of that tree size, if any; the problem when it does not match.
   */
  reachedRoot(record: AuditRecord | AuditLeaf, root: string): Problem | undefined {
    const cp = this.pending.get(record.seq);
    if (!cp) return undefined;
    this.pending.delete(record.seq);
    cp.check.rootMatches = root === cp.checkpoint.rootHash;
    if (cp.check.rootMatches) return undefined;
    cp.check.ok = false;
    cp.check.reason = 'the records do not reproduce the checkpoint root';
    return {
      reason: 'checkpoint_mismatch',
      field: 'rootHash',
      detail: `records 1..${record.seq} do not reproduce the root of checkpoint ${record.seq} (the chain was rewritten within that range)`,
      expected: cp.checkpoint.rootHash,
      actual: root,
    };
  }

  /**
   * After the stream: a checkpoint beyond the last record read means the log was truncated
   * (when nothing broke before); the others not reached say so.
   */
  finish(report: VerifyReport, last: AuditRecord | AuditLeaf | undefined): void {
    const pending = this.pending;
    if (report.ok && pending.size > 0) {
      const beyond = [...pending.keys()].sort((a, b) => a - b)[0] as number;
      const check = pending.get(beyond)?.check;
      if (check) {
        check.ok = false;
        check.rootMatches = false;
        check.reason = `the log ends at seq ${last?.seq ?? 0}`;
      }
      report.ok = false;
      report.firstBreak = {
        entryId: last ? entryIdOf(last) : '',
        seq: (last?.seq ?? 0) + 1,
        reason: 'truncated',
        field: 'seq',
        detail: `checkpoint ${beyond} covers ${beyond} records but the log ends at seq ${last?.seq ?? 0}`,
        expected: beyond,
        actual: last?.seq ?? 0,
      };
    }
    for (const { check } of pending.values()) {
      if (check.ok && check.rootMatches === undefined && !report.ok) check.reason ??= 'not reached';
    }
  }
}
