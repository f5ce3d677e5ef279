/**
 * The policy decision engine (spec: "Policy evaluation inputs and outputs"). Implementations:
 * the built-in engine and the OPA client, in `@agentgov/policy`.
 */
import type { Result } from 'neverthrow';
import type { ClassificationLevel } from '../classification-lattice';
import type { PolicyEngineUnreachableError } from '../errors';
import type { CallOptions } from '../vocabulary';
import type { AgentToAgentInput, IntegrationsInput } from './schema';

export type DecisionRequest =
  | { domain: 'agent-to-agent'; tenantId: string; userId?: string; input: AgentToAgentInput }
  | { domain: 'integrations'; tenantId: string; userId?: string; input: IntegrationsInput };

export interface DecisionConstraints {
  max_rounds?: number;
  max_classification_shared?: ClassificationLevel;
}

export interface Decision {
  /** Default false: only a policy that allows the request makes it true. */
  allow: boolean;
  /** Always `!allow`. */
  deny: boolean;
  /** Why, in words (never empty). */
  reason: string;
  constraints: DecisionConstraints;
}

export interface DecisionEngine {
  /** Name shown in /status and audit (`builtin`, `opa`). */
  readonly name: string;
  /**
   * Decides for the effective policy of `userId` (or of the tenant's enterprise scope when absent),
   * built from the tenant's active policies of the request's domain. Cross-tenant agent-to-agent
   * inputs (the two sides, or a side and `tenantId`, differ) are denied whatever the policy says.
   * Unreachable engines fail closed: an `err(PolicyEngineUnreachableError)`, never an allow.
   */
  decide(
    request: DecisionRequest,
    options?: CallOptions,
  ): Promise<Result<Decision, PolicyEngineUnreachableError>>;
  /** True when the engine can answer now. */
  health(options?: CallOptions): Promise<boolean>;
}
