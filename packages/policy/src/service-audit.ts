/**
 * The `policy_change` audit entry of a policy write (`./service`): who wrote what (operation,
 * policy, scope, domain, name, version, status, change reason; for an update the previous version
 * and whether the content changed), appended with the write's request id. An append that fails
 * is a 503 `service_unavailable` saying whether the policy was written anyway (no transaction) or
 * not (the transaction rolls the write back).
 */
import { type AuditSink, GovernanceError, type Policy } from '@agentgov/core';
import { err, ok, type Result } from 'neverthrow';
import type { Principal } from './rbac';
import type { WriteContext } from './service';

/** Appends the `policy_change` entry of a write of `policy` (`before`: the policy it replaced). */
export async function auditPolicyChange(
  audit: AuditSink,
  write: {
    principal: Principal;
    policy: Policy;
    operation: 'create' | 'update' | 'deprecate';
    ctx: WriteContext;
    before?: Policy | undefined;
    /** The request id when `ctx` has none. */
    newId: () => string;
    /** The write runs in a transaction (a failed entry rolls it back). */
    transactional: boolean;
  },
): Promise<Result<Policy, GovernanceError>> {
  const { principal, policy, operation, ctx, before } = write;
  const detail: Record<string, unknown> = {
    operation,
    policyId: policy.id,
    scope: policy.scope,
    scopeId: policy.scopeId,
    domain: policy.domain,
    name: policy.name,
    version: policy.version,
    status: policy.status,
    changeReason: policy.changeReason,
  };
  if (before) {
    detail.previousVersion = before.version;
    detail.contentChanged = before.content !== policy.content;
  }
  const audited = await audit.append(
    {
      tenantId: policy.tenantId,
      userId: principal.userId,
      actionType: 'policy_change',
      actionDetail: detail,
      policyApplied: policy.id,
      policyResult: 'allow',
      policyReason: policy.changeReason.slice(0, 1024),
      outcome: 'success',
      requestId: ctx.requestId ?? write.newId(),
    },
    ctx.signal ? { signal: ctx.signal } : undefined,
  );
  if (audited.isErr()) {
    return err(
      new GovernanceError(
        'service_unavailable',
        write.transactional
          ? `policy ${policy.id} was not written: its audit entry failed`
          : `policy ${policy.id} was written but its audit entry failed`,
        {
          cause: audited.error,
          detail: { policyId: policy.id },
        },
      ),
    );
  }
  return ok(policy);
}
