/**
 * Issuing a checkpoint: verify the tenant's chain up to its head, then sign the tree head (JWS,
 * see `checkpoint.ts`) and save it. Each checkpoint continues from the prefix the previous one
 * verified (its last hash and Merkle accumulator, kept by the log), so it reads only the records
 * appended since — a checkpoint a minute costs what the minute appended, not the whole log again.
 * The first one a log issues for a tenant (a new process, after a restart) continues from the
 * latest stored checkpoint instead, once its signature and the stored hashes up to it check out
 * (a hashes-only scan), else verifies the chain from its start. Records checkpointed before are
 * vouched for by the checkpoints that cover them (`verify` checks all).
 * A checkpoint of an existing size is returned as is; a broken chain is never signed. The latest
 * checkpoint is also served as a C2SP signed note.
 */

import type { KeyObject } from 'node:crypto';
import {
  type AuditCheckpoint,
  type CallOptions,
  GovernanceError,
  latestCheckpointOf,
  NotFoundError,
  ValidationError,
} from '@agentgov/core';
import { err, ok, type Result } from 'neverthrow';
import { signCheckpoint, verifyCheckpoint } from './checkpoint';
import { GENESIS_HASH } from './crypto';
import type { LogContext } from './log-context';
import { MerkleAccumulator } from './merkle';
import { forEachHash } from './proofs';
import { checkpointNote, checkpointOrigin, noteVerifierKey } from './signed-note';
import type { PublicJwk } from './verification';
import { type VerifiedPrefix, verifyTenant } from './verify';

export async function issueCheckpoint(
  ctx: LogContext,
  tenantId: string,
  callOptions?: CallOptions,
): Promise<Result<AuditCheckpoint, GovernanceError>> {
  const { store } = ctx;
  const key = await ctx.signingKey();
  const head = await store.head(tenantId);
  if (!head) return err(ValidationError.invalid('tenantId', 'the tenant has no audit entries to checkpoint'));
  // The latest alone (a tenant checkpointed every minute has thousands); all of them only when it
  // is past the head (a truncated log: the verification below reports it).
  const latest = await latestCheckpointOf(store, tenantId);
  const existing =
    latest && latest.treeSize > head.seq
      ? (await store.checkpoints(tenantId)).find((c) => c.treeSize === head.seq)
      : latest?.treeSize === head.seq
        ? latest
        : undefined;
  if (existing) return ok(existing);
  // From what the last checkpoint issued here verified, else (a log new in this process: after a
  // restart) from the latest stored checkpoint that this log's key signed and the stored hashes
  // reproduce: only what was appended since is read and re-derived.
  const known = ctx.checkpointed.get(tenantId);
  const prefix: VerifiedPrefix =
    known && known.seq <= head.seq
      ? { seq: known.seq, hash: known.hash, merkle: known.merkle.clone() }
      : ((await storedPrefix(ctx, tenantId, latest, head.seq, key.publicJwk, callOptions?.signal)) ?? {
          seq: 0,
          hash: GENESIS_HASH,
          merkle: new MerkleAccumulator(),
        });
  const report = await verifyTenant(store, tenantId, {
    resume: prefix,
    secrets: ctx.secrets,
    commitmentKeyRef: ctx.commitmentRef,
    publicJwk: key.publicJwk,
    toSeq: head.seq,
    // Re-derived from the columns too: no checkpoint seals a log whose records disagree with
    // their leaves.
    deep: true,
    // The checkpoint signs the Merkle root of the record hashes, which clear identifiers do not
    // enter: a log whose commitment key this process lacks is still checkpointed (its
    // identifiers are checked by whoever verifies with the key).
    allowUnchecked: true,
    ...(callOptions?.signal ? { signal: callOptions.signal } : {}),
  });
  if (!report.ok || report.rootHash === undefined) {
    return err(
      new GovernanceError('internal_error', 'refusing to checkpoint a broken audit chain', {
        detail: report.firstBreak ?? report.checkpoints.find((c) => !c.ok),
      }),
    );
  }
  ctx.checkpointed.set(tenantId, {
    seq: head.seq,
    hash: report.lastHash ?? prefix.hash,
    merkle: prefix.merkle,
  });
  const issuedAt = ctx.clock.now().toISOString();
  const checkpoint: AuditCheckpoint = {
    tenantId,
    treeSize: head.seq,
    rootHash: report.rootHash,
    issuedAt,
    jws: await signCheckpoint(key, { tenantId, treeSize: head.seq, rootHash: report.rootHash, issuedAt }),
  };
  await store.saveCheckpoint(checkpoint);
  return ok(checkpoint);
}

/**
 * Where a log that has issued no checkpoint of the tenant yet (a new process) can continue from:
 * the latest stored checkpoint (`latest`) when it is within the head, its JWS verifies with this
 * log's key and names that very tenant, size and root, and the stored record hashes up to its size
 * reproduce the root (a hashes-only scan with turns of the event loop: no record is re-derived).
 * The records it covers are vouched for by that signed root, as after a checkpoint this process
 * issued. Anything else — no checkpoint, another key, a root the hashes do not reproduce, fewer
 * hashes — gives undefined: the chain is verified from its start, which then reports what is wrong.
 */
async function storedPrefix(
  ctx: LogContext,
  tenantId: string,
  latest: AuditCheckpoint | undefined,
  headSeq: number,
  publicJwk: PublicJwk,
  signal: AbortSignal | undefined,
): Promise<VerifiedPrefix | undefined> {
  if (!latest || latest.treeSize <= 0 || latest.treeSize > headSeq) return undefined;
  const signed = await verifyCheckpoint(latest.jws, publicJwk);
  if (
    signed.isErr() ||
    signed.value.tenantId !== tenantId ||
    signed.value.treeSize !== latest.treeSize ||
    signed.value.rootHash !== latest.rootHash
  )
    return undefined;
  const merkle = new MerkleAccumulator();
  let last = '';
  try {
    await forEachHash(ctx.store, tenantId, 1, latest.treeSize, (h) => {
      merkle.push(h);
      last = h;
    });
  } catch (error) {
    if (error instanceof RangeError) return undefined;
    throw error;
  }
  signal?.throwIfAborted();
  return merkle.root() === latest.rootHash ? { seq: latest.treeSize, hash: last, merkle } : undefined;
}

/** The latest checkpoint of a tenant, also as a C2SP signed note, with the keys that verify it. */
export interface CheckpointView extends AuditCheckpoint {
  /** The log's origin line. */
  origin: string;
  /** C2SP tlog-checkpoint in a signed note (Ed25519), as text. */
  note: string;
  /** The note verifier key: `<origin>+<key id>+<base64 key>`. */
  verifierKey: string;
}

/** The latest stored checkpoint as JWS and signed note; NotFound before the first checkpoint. */
export async function latestCheckpoint(
  ctx: LogContext,
  tenantId: string,
): Promise<Result<CheckpointView, GovernanceError>> {
  const latest = await latestCheckpointOf(ctx.store, tenantId);
  if (!latest) return err(new NotFoundError('Audit checkpoint'));
  const key = await ctx.signingKey();
  if (key.alg !== 'EdDSA') {
    return err(
      new GovernanceError('service_unavailable', 'signed-note checkpoints need an Ed25519 signing key'),
    );
  }
  const origin = checkpointOrigin(tenantId);
  const note = checkpointNote(
    { origin, treeSize: latest.treeSize, rootHash: latest.rootHash },
    { privateKey: key.privateKey as KeyObject, publicJwk: key.publicJwk },
  );
  return ok({ ...latest, origin, note, verifierKey: noteVerifierKey(origin, key.publicJwk) });
}
