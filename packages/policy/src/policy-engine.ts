/**
 * The most natural in-process use in one call: a policy directory (`directory.yaml` +
 * `policies/**\/*.yaml`) → a validated bundle and a ready built-in engine; and a decision → the
 * fields of its audit entry.
 */
import type {
  AuditEntryInput,
  Decision,
  DecisionRequest,
  GovernanceError,
  InMemoryPolicyStore,
} from '@agentgov/core';
import { ValidationError } from '@agentgov/core';
import { err, ok, type Result } from 'neverthrow';
import {
  type BundleReport,
  bundleEngine,
  loadPolicyBundle,
  type PolicyBundle,
  validateBundle,
} from './bundle';
import type { BuiltinDecisionEngine } from './engines';
import type { EffectivePolicyResolver } from './resolver';

export interface LoadedPolicyEngine {
  engine: BuiltinDecisionEngine;
  resolver: EffectivePolicyResolver;
  store: InMemoryPolicyStore;
  bundle: PolicyBundle;
  report: BundleReport;
}

/**
 * Loads and validates a policy directory and builds the built-in engine over it. A directory that
 * cannot be read, a file that does not parse or a hierarchy violation is `err(ValidationError)`
 * (its `detail` lists the files and keys) — an engine is only built on a valid bundle.
 */
export async function loadPolicyEngine(dir: string): Promise<Result<LoadedPolicyEngine, GovernanceError>> {
  const bundle = await loadPolicyBundle(dir);
  if (bundle.isErr()) return err(bundle.error);
  const report = await validateBundle(bundle.value);
  if (!report.valid) {
    const issues = [
      ...report.errors.map((e) => ({ field: e.file, message: e.message })),
      ...report.violations.map((v) => ({ field: `${v.file}: ${v.key}`, message: v.reason })),
    ];
    return err(
      new ValidationError(
        'invalid_type',
        issues,
        `policy directory ${dir} is invalid: ${issues[0]?.field} — ${issues[0]?.message}`,
      ),
    );
  }
  const built = await bundleEngine(bundle.value);
  return ok({ ...built, bundle: bundle.value, report });
}

/** The decision fields of an AuditEntry: which policies, their result, why, and the outcome. */
export type DecisionAuditFields = Pick<
  AuditEntryInput,
  'policyApplied' | 'policyResult' | 'policyReason' | 'outcome'
>;

const MAX_APPLIED = 255;

/**
 * The audit fields of a decision (or of a failed one: pass `undefined`). `policyApplied` lists the
 * decision's `policyIds` (comma-separated, shortened with `+N more` to fit 255 characters), or
 * `<engine>:<domain>` when it has none; an `approve` autonomy is `require_approval` /
 * `pending_approval`; a failed decision is `deny` / `error`.
 */
export function decisionAuditFields(
  decision: Decision | undefined,
  context: { engine: string; domain: DecisionRequest['domain'] },
): DecisionAuditFields {
  const fallback = `${context.engine}:${context.domain}`;
  if (decision === undefined) {
    return {
      policyApplied: fallback,
      policyResult: 'deny',
      policyReason: 'POLICY_ENGINE_UNREACHABLE',
      outcome: 'error',
    };
  }
  const ids = decision.policyIds ?? [];
  let applied = ids.length > 0 ? ids.join(',') : fallback;
  for (let n = ids.length - 1; applied.length > MAX_APPLIED && n >= 1; n -= 1) {
    applied = `${ids.slice(0, n).join(',')},+${ids.length - n} more`;
  }
  if (applied.length > MAX_APPLIED) applied = `${fallback}:${ids.length} policies`.slice(0, MAX_APPLIED);
  const allowed = decision.allow && !decision.deny;
  const approval = allowed && decision.constraints.autonomy === 'approve';
  return {
    policyApplied: applied,
    policyResult: !allowed ? 'deny' : approval ? 'require_approval' : 'allow',
    policyReason: decision.reason.slice(0, 1024),
    outcome: !allowed ? 'denied' : approval ? 'pending_approval' : 'success',
  };
}

/**
 * A whole `policy_decision` audit entry for a request and its decision (or `undefined` when the
 * engine failed): append it to an AuditSink or `createAuditLog`.
 */
export function decisionAuditEntry(
  request: DecisionRequest,
  decision: Decision | undefined,
  context: { engine: string; requestId: string; userId?: string },
): AuditEntryInput {
  return {
    tenantId: request.tenantId,
    userId: context.userId ?? request.userId ?? 'system',
    actionType: 'policy_decision',
    actionDetail: { domain: request.domain, input: request.input, engine: context.engine },
    ...decisionAuditFields(decision, { engine: context.engine, domain: request.domain }),
    requestId: context.requestId,
  };
}
