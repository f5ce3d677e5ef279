/** The audit entries of the policy decisions a webhook asks for (see `webhooks.ts`). */
import type { AuditEntryInput, Decision, DecisionRequest } from '@agentgov/core';

/**
 * The `policy_decision` audit entry of one decision the webhook asked for (or of a failed one:
 * `undefined`), shaped as `@agentgov/policy`'s `decisionAuditEntry` (the `POST /decisions` route's),
 * plus the delivery id.
 */
export function decisionAuditEntry(
  request: DecisionRequest,
  decision: Decision | undefined,
  context: { engine: string; userId: string; requestId: string; deliveryId: string },
): AuditEntryInput {
  const fallback = `${context.engine}:${request.domain}`;
  const base = {
    tenantId: request.tenantId,
    userId: context.userId,
    actionType: 'policy_decision' as const,
    actionDetail: {
      domain: request.domain,
      input: request.input,
      engine: context.engine,
      deliveryId: context.deliveryId,
    },
    requestId: context.requestId,
  };
  if (!decision)
    return {
      ...base,
      policyApplied: fallback,
      policyResult: 'deny',
      policyReason: 'POLICY_ENGINE_UNREACHABLE',
      outcome: 'error',
    };
  const ids = decision.policyIds ?? [];
  const joined = ids.join(',');
  const applied =
    ids.length === 0 ? fallback : joined.length <= 255 ? joined : `${fallback}:${ids.length} policies`;
  const allowed = decision.allow && !decision.deny;
  const approval = allowed && decision.constraints.autonomy === 'approve';
  return {
    ...base,
    policyApplied: applied.slice(0, 255),
    policyResult: !allowed ? 'deny' : approval ? 'require_approval' : 'allow',
    policyReason: decision.reason.slice(0, 1024),
    outcome: !allowed ? 'denied' : approval ? 'pending_approval' : 'success',
  };
}
