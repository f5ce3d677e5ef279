/**
 * The pieces of a governed call the governor uses in more than one place, kept out of its async
 * frames: the actions domain's question, the autonomy of its answer, the audit-unavailable refusal.
 */
import type { ActionAutonomy, ClassificationLevel, DecisionEngine } from '@agentgov/core';
import { ToolCallRefused } from './errors';
import type { CallFacts } from './facts';
import type { SessionIdentity } from './session';

export type Decided = Awaited<ReturnType<DecisionEngine['decide']>> | undefined;

/** The actions domain's question for this user and tool. */
export function actionsQuery(
  identity: SessionIdentity,
  policyTool: string,
  classification: ClassificationLevel,
) {
  return {
    domain: 'actions' as const,
    tenantId: identity.tenantId,
    userId: identity.userId,
    input: { tool: policyTool, classification_level: classification },
  };
}

/** The autonomy of a decision (`block` and a denial are `deny`); no answer is a refusal. */
export function autonomyOf(r: Decided) {
  if (!r || r.isErr()) {
    throw new ToolCallRefused(
      'policy_engine_unreachable',
      'the decision engine cannot answer; nothing is forwarded while it is down',
    );
  }
  const d = r.value;
  const autonomy: ActionAutonomy | 'deny' = d.allow ? (d.constraints.autonomy ?? 'approve') : 'deny';
  return {
    autonomy: autonomy === 'block' ? ('deny' as const) : autonomy,
    reason: d.reason,
    policyIds: d.policyIds,
  };
}

/** The refusal of a call whose audit entry could not be written. */
export function auditUnavailable(f: CallFacts): ToolCallRefused {
  return new ToolCallRefused(
    'audit_unavailable',
    'the audit entry of this call could not be written; its result is not delivered',
    { tool: f.name },
  );
}
