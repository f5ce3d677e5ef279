/**
 * Issuing a checkpoint: verify the tenant's chain up to its head, then sign the tree head (JWS,
 * see `checkpoint.ts`) and save it. Each checkpoint continues from the prefix the previous one
 * verified (its last hash and Merkle accumulator, kept by the log), so it reads only the records
 * appended since — a checkpoint a minute costs what the minute appended, not the whole log again.
 * When another process stored a later checkpoint since (another instance sharing the database, or
 * this process before a restart), the prefix moves on to it once its signature and the stored
 * hashes up to it check out (a hashes-only scan); with no prefix at all the chain is verified from
 * its start. Records checkpointed before are vouched for by the checkpoints that cover them
 * (`verify` checks all).
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
  /** The stored checkpoint of the head's size, read among all of them (the rare paths below). */
  const storedAtHead = async () => (await store.checkpoints(tenantId)).find((c) => c.treeSize === head.seq);
  // The latest alone (a tenant checkpointed every minute has thousands); all of them only when it
  // is past the head (a truncated log: the verification below reports it).
  const latest = await latestCheckpointOf(store, tenantId);
  if (latest?.treeSize === head.seq) return ok(latest);
  if (latest && latest.treeSize > head.seq) {
    const existing = await storedAtHead();
    if (existing) return ok(existing);
  }
  // From what the last checkpoint issued here verified (else from the start), moved on to the
  // latest stored checkpoint when another process issued it since (another instance, or this
  // process before a restart) and it checks out: only what was appended after it is re-derived.
  const known = ctx.checkpointed.get(tenantId);
  const own: VerifiedPrefix =
    known && known.seq <= head.seq
      ? { seq: known.seq, hash: known.hash, merkle: known.merkle.clone() }
      : { seq: 0, hash: GENESIS_HASH, merkle: new MerkleAccumulator() };
  const prefix =
    (await advancedPrefix(ctx, tenantId, own, latest, head.seq, key.publicJwk, callOptions?.signal)) ?? own;
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
  try {
    await store.saveCheckpoint(checkpoint);
  } catch (error) {
    // Another process saved a checkpoint of this size meanwhile (instances checkpoint on the same
    // schedule): the same root is the same checkpoint — theirs is the one stored.
    const theirs = await storedAtHead();
    if (theirs?.rootHash === checkpoint.rootHash) return ok(theirs);
    throw error;
  }
  return ok(checkpoint);
}

/**
 * `prefix` moved on to the latest stored checkpoint (`latest`), when that one lies between the
 * prefix and the head, its JWS verifies with this log's key and names that very tenant, size and
 * root, and the stored record hashes after the prefix up to its size carry the prefix's Merkle
 * accumulator to that root (a hashes-only scan with turns of the event loop: no record is
 * re-derived). The records it covers are vouched for by that signed root, as after a checkpoint
 * this process issued. Otherwise undefined — nothing to move on to, another key, a root the hashes
 * do not reproduce, fewer hashes: the verification continues from `prefix` and reports what is wrong.
 */
async function advancedPrefix(
  ctx: LogContext,
  tenantId: string,
  prefix: VerifiedPrefix,
  latest: AuditCheckpoint | undefined,
  headSeq: number,
  publicJwk: PublicJwk,
  signal: AbortSignal | undefined,
): Promise<VerifiedPrefix | undefined> {
  if (!latest || latest.treeSize <= prefix.seq || latest.treeSize > headSeq) return undefined;
  const signed = await verifyCheckpoint(latest.jws, publicJwk);
  if (
    signed.isErr() ||
    signed.value.tenantId !== tenantId ||
    signed.value.treeSize !== latest.treeSize ||
    signed.value.rootHash !== latest.rootHash
  )
    return undefined;
  const merkle = prefix.merkle.clone();
  let last = prefix.hash;
  try {
    await forEachHash(ctx.store, tenantId, prefix.seq + 1, latest.treeSize, (h) => {
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
