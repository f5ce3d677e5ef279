/**
 * The verifier: streams a tenant's records (store.scan, bounded memory) and checks every link;
 * with the commitment key it also checks each clear identifier against its commitment; it
 * recomputes the Merkle root at every checkpoint and checks the checkpoint's signature.
 */
import {
  type AuditCheckpoint,
  AuditEntrySchema,
  type AuditRecord,
  type AuditStore,
  getPath,
  isUlid,
  type SecretStore,
} from '@agentgov/core';
import type { JWK } from 'jose';
import { verifyCheckpoint } from './checkpoint';
import { GENESIS_HASH, isHash } from './crypto';
import {
  DEFAULT_COMMITMENT_KEY_REF,
  DEFAULT_SIGNING_KEY_REF,
  readCommitmentSecret,
  readSigningKey,
  TenantKeys,
} from './keys';
import { MerkleAccumulator } from './merkle';
import { anonymizedPlaceholder, computeRecordHash, isAnonymizedPlaceholder } from './records';

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

export interface VerifyOptions {
  /** Where the commitment key (and, when no publicJwk is given, the signing key) are read. */
  secrets?: SecretStore;
  commitmentKeyRef?: string;
  signingKeyRef?: string;
  /** Public key of the checkpoints; defaults to the public part of the signing key in `secrets`. */
  publicJwk?: JWK;
  /** First seq to verify (default 1); the link to the previous record is still checked. */
  fromSeq?: number;
  /** Last seq to verify (default: the end of the log). */
  toSeq?: number;
  batchSize?: number;
  /** Called every 1,000 records and at the end. */
  onProgress?: (checked: number, total: number) => void;
  signal?: AbortSignal;
}

/** Checks one record's content (not its link); returns the first problem. */
function checkRecord(
  record: AuditRecord,
  tenantId: string,
  commit: ((clearValue: string) => string) | undefined,
): Omit<ChainBreak, 'entryId' | 'seq'> | undefined {
  const parsed = AuditEntrySchema.safeParse(record.entry);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = `entry.${issue?.path.map(String).join('.') ?? ''}`;
    return { reason: 'invalid_entry', field, detail: `${field}: ${issue?.message ?? 'invalid'}` };
  }
  if (!isUlid(record.entry.id))
    return { reason: 'invalid_entry', field: 'entry.id', detail: 'entry.id is not a ULID' };
  if (record.entry.tenantId !== tenantId) {
    return {
      reason: 'invalid_entry',
      field: 'entry.tenantId',
      detail: 'record of another tenant in the chain',
      expected: tenantId,
      actual: record.entry.tenantId,
    };
  }
  const commitments = record.commitments as unknown;
  if (commitments === null || typeof commitments !== 'object' || Array.isArray(commitments)) {
    return { reason: 'commitment_mismatch', field: 'commitments', detail: 'commitments is not an object' };
  }
  if (!('userId' in commitments)) {
    return { reason: 'commitment_mismatch', field: 'commitments.userId', detail: 'userId is not committed' };
  }
  for (const [path, commitment] of Object.entries(commitments as Record<string, unknown>)) {
    const field = `commitments.${path}`;
    if (!isHash(commitment))
      return { reason: 'commitment_mismatch', field, detail: `${field} is not a 64-digit hex HMAC` };
    const value = getPath(record.entry, path);
    if (typeof value !== 'string') {
      return {
        reason: 'commitment_mismatch',
        field: `entry.${path}`,
        detail: `committed path ${path} holds no string`,
      };
    }
    if (isAnonymizedPlaceholder(value)) {
      const expected = anonymizedPlaceholder(commitment);
      if (value !== expected) {
        return {
          reason: 'commitment_mismatch',
          field: `entry.${path}`,
          detail: `anonymized ${path} does not match its commitment`,
          expected,
          actual: value,
        };
      }
    } else if (commit && commit(value) !== commitment) {
      return {
        reason: 'commitment_mismatch',
        field: `entry.${path}`,
        detail: `${path} does not match its commitment (the clear value was changed)`,
      };
    }
  }
  return undefined;
}

async function loadPublicJwk(options: VerifyOptions): Promise<JWK | undefined> {
  if (options.publicJwk) return options.publicJwk;
  if (!options.secrets) return undefined;
  const key = await readSigningKey(options.secrets, options.signingKeyRef ?? DEFAULT_SIGNING_KEY_REF).catch(
    () => undefined,
  );
  return key?.publicJwk;
}

/**
 * Verifies a tenant's chain (or the range fromSeq..toSeq) and its checkpoints; stops at the
 * first broken record. Never throws for tampered data; throws only when the store itself fails.
 */
export async function verifyTenant(
  store: AuditStore,
  tenantId: string,
  options: VerifyOptions = {},
): Promise<VerifyReport> {
  const master = options.secrets
    ? await readCommitmentSecret(
        options.secrets,
        options.commitmentKeyRef ?? DEFAULT_COMMITMENT_KEY_REF,
      ).catch(() => undefined)
    : undefined;
  // Memoized per run: the same identifiers recur in most records.
  const tenantKeys = master === undefined ? undefined : new TenantKeys(master);
  const commit = tenantKeys && ((clearValue: string) => tenantKeys.commitment(tenantId, clearValue));
  const fromSeq = Math.max(1, options.fromSeq ?? 1);
  const toSeq = options.toSeq;
  const publicJwk = await loadPublicJwk(options);

  const report: VerifyReport = {
    ok: true,
    tenantId,
    checked: 0,
    checkpoints: [],
    identifiers: commit ? 'checked' : 'unchecked',
  };

  // Checkpoints: signature first (independent of the records), root when the stream reaches them.
  const stored = await store.checkpoints(tenantId);
  const pending = new Map<number, { checkpoint: AuditCheckpoint; check: CheckpointCheck }>();
  for (const checkpoint of stored) {
    if (toSeq !== undefined && checkpoint.treeSize > toSeq) continue;
    const check: CheckpointCheck = { treeSize: checkpoint.treeSize, ok: true, signature: 'unchecked' };
    if (publicJwk) {
      const verified = await verifyCheckpoint(checkpoint.jws, publicJwk);
      if (verified.isErr()) {
        check.signature = 'invalid';
        check.ok = false;
        check.reason = verified.error.reason;
      } else {
        check.signature = 'valid';
        const p = verified.value;
        if (
          p.tenantId !== tenantId ||
          p.treeSize !== checkpoint.treeSize ||
          p.rootHash !== checkpoint.rootHash
        ) {
          check.ok = false;
          check.reason = 'the signed payload does not match the stored checkpoint';
        }
      }
    } else {
      check.reason = 'signature unchecked: no public key';
    }
    report.checkpoints.push(check);
    if (fromSeq === 1) pending.set(checkpoint.treeSize, { checkpoint, check });
    else if (check.ok) check.reason = 'root unchecked: partial range';
  }

  let expectedSeq = fromSeq;
  let prevHash = GENESIS_HASH;
  if (fromSeq > 1) {
    let previous: AuditRecord | undefined;
    for await (const r of store.scan(tenantId, { fromSeq: fromSeq - 1, toSeq: fromSeq - 1 })) previous = r;
    if (previous) prevHash = previous.hash;
  }

  const total = Math.max(0, (toSeq ?? (await store.count(tenantId))) - fromSeq + 1);
  const merkle = fromSeq === 1 ? new MerkleAccumulator() : undefined;
  let last: AuditRecord | undefined;
  const fail = (record: AuditRecord, problem: Omit<ChainBreak, 'entryId' | 'seq'>): void => {
    report.ok = false;
    report.firstBreak = { entryId: String(record.entry?.id), seq: record.seq, ...problem };
  };

  for await (const record of store.scan(tenantId, {
    fromSeq,
    ...(toSeq !== undefined ? { toSeq } : {}),
    batchSize: options.batchSize ?? 1000,
    ...(options.signal ? { signal: options.signal } : {}),
  })) {
    options.signal?.throwIfAborted();
    report.checked++;
    if (record.seq !== expectedSeq) {
      fail(record, {
        reason: 'seq_gap',
        field: 'seq',
        detail: `expected seq ${expectedSeq}, found ${record.seq}`,
        expected: expectedSeq,
        actual: record.seq,
      });
      break;
    }
    if (record.prevHash !== prevHash) {
      fail(record, {
        reason: 'prev_hash_mismatch',
        field: 'prevHash',
        detail: 'prevHash does not link to the previous record',
        expected: prevHash,
        actual: record.prevHash,
      });
      break;
    }
    const problem = checkRecord(record, tenantId, commit);
    if (problem) {
      fail(record, problem);
      break;
    }
    let recomputed: string;
    try {
      recomputed = computeRecordHash(record);
    } catch (error) {
      fail(record, {
        reason: 'invalid_entry',
        field: 'entry',
        detail: `not canonicalizable: ${String(error)}`,
      });
      break;
    }
    if (recomputed !== record.hash) {
      fail(record, {
        reason: 'hash_mismatch',
        field: 'hash',
        detail: 'the stored hash does not match the recomputed hash (a hashed field was changed)',
        expected: recomputed,
        actual: record.hash,
      });
      break;
    }
    prevHash = record.hash;
    last = record;
    expectedSeq++;
    if (merkle) {
      merkle.push(record.hash);
      const cp = pending.get(record.seq);
      if (cp) {
        pending.delete(record.seq);
        const root = merkle.root();
        cp.check.rootMatches = root === cp.checkpoint.rootHash;
        if (!cp.check.rootMatches) {
          cp.check.ok = false;
          cp.check.reason = 'the records do not reproduce the checkpoint root';
          fail(record, {
            reason: 'checkpoint_mismatch',
            field: 'rootHash',
            detail: `records 1..${record.seq} do not reproduce the root of checkpoint ${record.seq} (the chain was rewritten within that range)`,
            expected: cp.checkpoint.rootHash,
            actual: root,
          });
          break;
        }
      }
    }
    if (report.checked % 1000 === 0) options.onProgress?.(report.checked, total);
  }
  options.onProgress?.(report.checked, Math.max(total, report.checked));

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
      entryId: last?.entry.id ?? '',
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
  if (report.checkpoints.some((c) => !c.ok)) report.ok = false;
  if (last) report.lastHash = last.hash;
  if (report.ok && merkle) report.rootHash = merkle.root();
  return report;
}

/** Verifies every tenant of the store in turn (ordered by tenant id). */
export async function verifyAll(store: AuditStore, options: VerifyOptions = {}): Promise<VerifyReport[]> {
  const reports: VerifyReport[] = [];
  for (const tenantId of await store.tenants()) reports.push(await verifyTenant(store, tenantId, options));
  return reports;
}
