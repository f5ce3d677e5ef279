/**
 * Issuing a checkpoint: verify the tenant's chain up to its head, then sign the tree head (JWS,
 * see `checkpoint.ts`) and save it. A checkpoint of an existing size is returned as is; a broken
 * chain is never signed.
 */
import { type AuditCheckpoint, type CallOptions, GovernanceError, ValidationError } from '@agentgov/core';
import { err, ok, type Result } from 'neverthrow';
import { signCheckpoint } from './checkpoint';
import type { LogContext } from './log-context';
import { verifyTenant } from './verify';

export async function issueCheckpoint(
  ctx: LogContext,
  tenantId: string,
  callOptions?: CallOptions,
): Promise<Result<AuditCheckpoint, GovernanceError>> {
  const { store } = ctx;
  const key = await ctx.signingKey();
  const head = await store.head(tenantId);
  if (!head) return err(ValidationError.invalid('tenantId', 'the tenant has no audit entries to checkpoint'));
  const existing = (await store.checkpoints(tenantId)).find((c) => c.treeSize === head.seq);
  if (existing) return ok(existing);
  const report = await verifyTenant(store, tenantId, {
    secrets: ctx.secrets,
    commitmentKeyRef: ctx.commitmentRef,
    publicJwk: key.publicJwk,
    toSeq: head.seq,
    ...(callOptions?.signal ? { signal: callOptions.signal } : {}),
  });
  if (!report.ok || report.rootHash === undefined) {
    return err(
      new GovernanceError('internal_error', 'refusing to checkpoint a broken audit chain', {
        detail: report.firstBreak ?? report.checkpoints.find((c) => !c.ok),
      }),
    );
  }
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
