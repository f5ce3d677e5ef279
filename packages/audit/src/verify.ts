/**
 * The verifier: streams a tenant's records (store.scanPages / scanLeaves / scan, bounded memory)
 * and checks every link over the stored leaves (the exact text each hash covers) and, by default,
 * re-derives every record from its columns (with the commitment key, each clear identifier
 * against its commitment too), so a column edited behind the store's back is found. `deep: false`
 * is the explicit leaf-only fast check (records stored without a leaf are still re-derived); it
 * recomputes the Merkle root at every checkpoint and checks the checkpoint's signature.
 * Per-record checks: `verify-record.ts`; checkpoint checks: `verify-checkpoints.ts`; the report:
 * `verify-report.ts`.
 */

import { setImmediate as nextTurn } from 'node:timers/promises';
import {
  type AuditLeaf,
  type AuditRecord,
  type AuditStore,
  EnvSecretStore,
  latestCheckpointOf,
  type SecretStore,
} from '@agentgov/core';
import type { JWK } from 'jose';
import { GENESIS_HASH } from './crypto';
import {
  DEFAULT_COMMITMENT_KEY_REF,
  DEFAULT_SIGNING_KEY_REF,
  readCommitmentSecret,
  readSigningKey,
  TenantKeys,
} from './keys';
import { MerkleAccumulator } from './merkle';
import { MerkleOffload, type MerkleResult, merkleWorkers } from './merkle-worker';
import { CheckpointChecks } from './verify-checkpoints';
import { checkLeaf, checkRecord } from './verify-record';
import { breakAt, type UncheckedPart, type VerifyReport } from './verify-report';

export type { BreakReason, ChainBreak, CheckpointCheck, UncheckedPart, VerifyReport } from './verify-report';

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
  /**
   * Re-derive every record from its columns (default true): its entry, commitments and clear
   * identifiers, and the hash recomputed from them, so an edited column is found. `deep: false`
   * (CLI `--leaves-only`) is the leaf-only fast check at hash speed: a record stored with its leaf
   * is checked over the leaf alone and its columns are NOT re-derived — the report says so
   * (`VerifyReport.depth` 'leaf', `derived`).
   */
  deep?: boolean;
  /** Called every 1,000 records and at the end. */
  onProgress?: (checked: number, total: number) => void;
  signal?: AbortSignal;
  /**
   * Accept a partial check: without it, a report whose identifiers or checkpoint signatures could
   * not be checked for want of a key is not ok (unchecked is not intact). With it, `ok` reflects
   * only what was checked; `unchecked` still names what was not.
   */
  allowUnchecked?: boolean;
  /**
   * Continue from a prefix this process has verified: only the records after it are read and
   * checked, linked to its last hash, and the report's `rootHash` is the root of the whole tree
   * (the accumulator is advanced in place: pass a copy to keep it). `fromSeq` is then ignored,
   * and only the checkpoints beyond the prefix are checked (those within it vouched for it). What
   * issuing a checkpoint uses, so that each one reads only what was appended since the last.
   */
  resume?: VerifiedPrefix;
}

/** Records 1..seq of a tenant's chain as verified: the last one's hash, the Merkle accumulator over them. */
export interface VerifiedPrefix {
  seq: number;
  hash: string;
  merkle: MerkleAccumulator;
}

/** A key the verifier read: its value, or why there is none (`missing`, or why it is unusable). */
type Loaded<T> = { value: T; problem?: undefined } | { value?: undefined; problem: string };

const reason = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** The tenant's commitment function, memoized per run (the same identifiers recur in most records). */
async function loadCommit(
  options: VerifyOptions,
  tenantId: string,
): Promise<Loaded<(clearValue: string) => string>> {
  if (!options.secrets) return { problem: 'missing (no secrets given)' };
  let master: string | undefined;
  try {
    master = await readCommitmentSecret(
      options.secrets,
      options.commitmentKeyRef ?? DEFAULT_COMMITMENT_KEY_REF,
    );
  } catch (error) {
    return { problem: `unusable: ${reason(error)}` };
  }
  if (master === undefined) return { problem: 'missing' };
  const tenantKeys = new TenantKeys(master);
  return { value: (clearValue: string) => tenantKeys.commitment(tenantId, clearValue) };
}

async function loadPublicJwk(options: VerifyOptions): Promise<Loaded<JWK>> {
  if (options.publicJwk) return { value: options.publicJwk };
  if (!options.secrets) return { problem: 'missing (no publicJwk and no secrets given)' };
  try {
    const key = await readSigningKey(options.secrets, options.signingKeyRef ?? DEFAULT_SIGNING_KEY_REF);
    return key ? { value: key.publicJwk } : { problem: 'missing' };
  } catch (error) {
    return { problem: `unusable: ${reason(error)}` };
  }
}

const ACCEPT = 'or accept a partial check explicitly with allowUnchecked: true (CLI: --allow-unchecked)';

/** What the report says of a part left unchecked: the key, and how to give it. */
function uncheckedPart(part: UncheckedPart['part'], ref: string, problem: string): UncheckedPart {
  const variable = EnvSecretStore.variableName(ref);
  const hint =
    part === 'identifiers'
      ? `give the commitment key '${ref}' in options.secrets (e.g. fileKeyStore(dir) of the directory the keys are kept in, or ${variable} in the environment; CLI: --keys DIR or ${variable}), ${ACCEPT}`
      : `give the checkpoints' public key as options.publicJwk (CLI: --public-key FILE), or the signing key '${ref}' in options.secrets (fileKeyStore(dir), or ${variable}; CLI: --keys DIR or ${variable}), ${ACCEPT}`;
  return { part, key: ref, variable, problem, hint };
}

/** The hash of the record before `fromSeq` (the genesis hash from seq 1, or when it is missing). */
async function hashBefore(store: AuditStore, tenantId: string, fromSeq: number): Promise<string> {
  if (fromSeq <= 1) return GENESIS_HASH;
  let previous: AuditRecord | undefined;
  for await (const r of store.scan(tenantId, { fromSeq: fromSeq - 1, toSeq: fromSeq - 1 })) previous = r;
  return previous ? previous.hash : GENESIS_HASH;
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
  return verifyRange(store, tenantId, options, true);
}

/** A run of the Merkle worker, or undefined (one thread) when no worker can be started. */
function startOffload(sizes: readonly number[]): MerkleOffload | undefined {
  try {
    return new MerkleOffload(sizes);
  } catch {
    return undefined;
  }
}

/** A checkpoint the chain check reached, with the report as it stood there (see `threads`). */
interface Reached {
  record: AuditRecord | AuditLeaf;
  checked: number;
  derived: number;
}

/**
 * `verifyTenant`; with `threads`, a range from seq 1 of at least `merkleWorkers.threshold`
 * records has its Merkle tree computed by a worker while this thread checks the chain, and the
 * two are merged into the very report one thread makes (a checkpoint whose root does not match
 * breaks the chain there, before any later break). Should the worker fail, the range is verified
 * again on one thread.
 */
async function verifyRange(
  store: AuditStore,
  tenantId: string,
  options: VerifyOptions,
  threads: boolean,
): Promise<VerifyReport> {
  const deep = options.deep !== false;
  const commitKey = await loadCommit(options, tenantId);
  const commit = commitKey.value;
  const { resume } = options;
  if (resume && resume.merkle.size !== resume.seq)
    throw new Error(
      `a verified prefix of ${resume.seq} records with a Merkle accumulator of ${resume.merkle.size}`,
    );
  const fromSeq = resume ? resume.seq + 1 : Math.max(1, options.fromSeq ?? 1);
  const toSeq = options.toSeq;
  const publicKey = await loadPublicJwk(options);
  const publicJwk = publicKey.value;

  const report: VerifyReport = {
    ok: true,
    tenantId,
    checked: 0,
    depth: deep ? 'deep' : 'leaf',
    derived: 0,
    checkpoints: [],
    identifiers: commit ? 'checked' : 'unchecked',
  };
  // Resuming a verified prefix (a log issuing its next checkpoint): the checkpoints within the
  // prefix vouched for it already; only those beyond it are checked — not every signature of the
  // tenant's history again (one a minute for a month: ~40,000 signatures per checkpoint).
  const beyond = resume && ((await latestCheckpointOf(store, tenantId))?.treeSize ?? 0) > resume.seq;
  const stored = resume && !beyond ? [] : await store.checkpoints(tenantId);
  const checkpoints = await CheckpointChecks.start(
    resume ? stored.filter((c) => c.treeSize > resume.seq) : stored,
    report,
    publicJwk,
    fromSeq,
    toSeq,
  );

  let expectedSeq = fromSeq;
  let prevHash = resume ? resume.hash : await hashBefore(store, tenantId, fromSeq);
  const total = Math.max(0, (toSeq ?? (await store.count(tenantId))) - fromSeq + 1);
  const offload =
    threads && !resume && fromSeq === 1 && total >= merkleWorkers.threshold
      ? startOffload(checkpoints.sizes())
      : undefined;
  const reached: Reached[] = [];
  const merkle = resume ? resume.merkle : fromSeq === 1 && !offload ? new MerkleAccumulator() : undefined;
  let last: AuditRecord | AuditLeaf | undefined;

  /** Checks one record (or leaf); false once the chain is broken (the report says where). */
  const visit = (record: AuditRecord | AuditLeaf): boolean => {
    report.checked++;
    const leaf = record.leaf;
    let problem = typeof leaf === 'string' ? checkLeaf(record, leaf, expectedSeq, prevHash) : undefined;
    if (!problem && (deep || typeof leaf !== 'string')) {
      // Re-derived from the columns: every record when deep, else one stored without a leaf.
      report.derived++;
      problem =
        'entry' in record
          ? checkRecord(
              record,
              expectedSeq,
              prevHash,
              tenantId,
              commit,
              typeof leaf === 'string' ? leaf : undefined,
            )
          : { reason: 'invalid_entry', field: 'entry', detail: 'the store gave a leaf without its record' };
    }
    if (problem) {
      breakAt(report, record, problem);
      return false;
    }
    prevHash = record.hash;
    last = record;
    expectedSeq++;
    if (offload) {
      offload.push(record.hash);
      if (checkpoints.waits(record.seq))
        reached.push({ record, checked: report.checked, derived: report.derived });
    } else if (merkle) {
      merkle.push(record.hash);
      const mismatch = checkpoints.reached(record, merkle);
      if (mismatch) {
        breakAt(report, record, mismatch);
        return false;
      }
    }
    if (report.checked % 1000 === 0) options.onProgress?.(report.checked, total);
    return true;
  };
  const range = {
    fromSeq,
    ...(toSeq !== undefined ? { toSeq } : {}),
    batchSize: options.batchSize ?? 1000,
    ...(options.signal ? { signal: options.signal } : {}),
  };
  // A page at a time (no promise per record) when the store can: the leaves alone (no entry
  // columns) unless every record is re-derived.
  const paged =
    !deep && store.scanLeaves ? store.scanLeaves(tenantId, range) : store.scanPages?.(tenantId, range);
  try {
    if (paged) {
      pages: for await (const page of paged) {
        options.signal?.throwIfAborted();
        for (const record of page) if (!visit(record)) break pages;
        const backlog = offload?.backlog();
        if (backlog) await backlog;
        // A turn of the event loop after each page: a store whose pages need no I/O (in memory,
        // embedded PGlite) would otherwise keep the thread for the whole range — a server's
        // scheduled checkpoint must not stop it answering requests meanwhile.
        await nextTurn();
      }
    } else {
      for await (const record of store.scan(tenantId, range)) {
        options.signal?.throwIfAborted();
        if (!visit(record)) break;
        const backlog = offload?.backlog();
        if (backlog) await backlog;
        if (report.checked % range.batchSize === 0) await nextTurn();
      }
    }
  } catch (error) {
    offload?.abort();
    throw error;
  }
  let tree: MerkleResult | undefined;
  if (offload) {
    try {
      tree = await offload.finish();
      for (const at of reached)
        if (!tree.roots.has(at.record.seq)) throw new Error(`no root at tree size ${at.record.seq}`);
    } catch {
      // Fail closed: what the worker could not vouch for is checked again, on this thread.
      options.signal?.throwIfAborted();
      return verifyRange(store, tenantId, options, false);
    }
    // The checkpoints in seq order: the first whose root does not match is where one thread stops.
    for (const at of reached) {
      const mismatch = checkpoints.reachedRoot(at.record, tree.roots.get(at.record.seq) as string);
      if (mismatch) {
        report.checked = at.checked;
        report.derived = at.derived;
        last = at.record;
        breakAt(report, at.record, mismatch);
        break;
      }
    }
  }
  options.onProgress?.(report.checked, Math.max(total, report.checked));

  checkpoints.finish(report, last);
  if (report.checkpoints.some((c) => !c.ok)) report.ok = false;
  // Unchecked is not intact: a part no key could check fails the report unless the caller accepts it.
  const unchecked: UncheckedPart[] = [];
  if (commitKey.problem !== undefined && report.checked > 0)
    unchecked.push(
      uncheckedPart('identifiers', options.commitmentKeyRef ?? DEFAULT_COMMITMENT_KEY_REF, commitKey.problem),
    );
  if (publicKey.problem !== undefined && report.checkpoints.some((c) => c.signature === 'unchecked'))
    unchecked.push(
      uncheckedPart('signatures', options.signingKeyRef ?? DEFAULT_SIGNING_KEY_REF, publicKey.problem),
    );
  if (unchecked.length > 0) {
    report.unchecked = unchecked;
    if (options.allowUnchecked) report.allowUnchecked = true;
    else report.ok = false;
  }
  if (last) report.lastHash = last.hash;
  if (report.ok && merkle) report.rootHash = merkle.root();
  else if (report.ok && tree) report.rootHash = tree.root;
  return report;
}

/** Verifies every tenant of the store in turn (ordered by tenant id). */
export async function verifyAll(store: AuditStore, options: VerifyOptions = {}): Promise<VerifyReport[]> {
  const reports: VerifyReport[] = [];
  for (const tenantId of await store.tenants()) reports.push(await verifyTenant(store, tenantId, options));
  return reports;
}
