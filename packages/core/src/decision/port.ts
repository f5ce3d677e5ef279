/**
 * The policy decision engine (spec: "Policy evaluation inputs and outputs"). Implementations:
 * the built-in engine and the OPA client, in `@agentgov/policy`.
 */
import { err, ok, type Result } from 'neverthrow';
import type { ClassificationLevel } from '../classification-lattice';
import { type PolicyEngineUnreachableError, ValidationError, validationErrorFromZod } from '../errors';
import type { CallOptions } from '../vocabulary';
import {
  type ActionAutonomy,
  type ActionsInput,
  type AgentToAgentInput,
  type DataInput,
  DECISION_DOMAINS,
  DecisionRequestSchema,
  type FeaturesInput,
  type IntegrationsInput,
  type ModelsInput,
} from './schema';

interface RequestBase {
  tenantId: string;
  /** The user decided for; absent = the tenant's enterprise scope. Unknown users are denied. */
  userId?: string;
}

export type DecisionRequest =
  | (RequestBase & { domain: 'agent-to-agent'; input: AgentToAgentInput })
  | (RequestBase & { domain: 'integrations'; input: IntegrationsInput })
  | (RequestBase & { domain: 'models'; input: ModelsInput })
  | (RequestBase & { domain: 'actions'; input: ActionsInput })
  | (RequestBase & { domain: 'data'; input: DataInput })
  | (RequestBase & { domain: 'features'; input: FeaturesInput });

export interface DecisionConstraints {
  /** agent-to-agent: most rounds of the exchange. */
  max_rounds?: number;
  /** agent-to-agent, integrations, models, data: the highest level that may be shared / sent. */
  max_classification_shared?: ClassificationLevel;
  /** actions: the tool's autonomy (`approve` = a human approves each call; `block` = never). */
  autonomy?: ActionAutonomy;
  /** models: the only models that may receive confidential or restricted data, when restricted. */
  sensitive_data_models?: string[];
}

export interface Decision {
  /** Default false: only a policy that allows the request makes it true. */
  allow: boolean;
  /** Always `!allow`. */
  deny: boolean;
  /** Why, in words (never empty). */
  reason: string;
  constraints: DecisionConstraints;
  /** Ids of the active policies the decision was computed from (enterprise first), when known. */
  policyIds?: string[];
}

/** What `decide` fails with: an unreachable engine, or a request that is not a valid DecisionRequest. */
export type DecisionError = PolicyEngineUnreachableError | ValidationError;

export interface DecisionEngine {
  /** Name shown in /status and audit (`builtin`, `opa`). */
  readonly name: string;
  /**
   * Decides for the effective policy of `userId` (or of the tenant's enterprise scope when absent),
   * built from the tenant's active policies of the request's domain. Cross-tenant agent-to-agent
   * inputs (the two sides, or a side and `tenantId`, differ) are denied whatever the policy says;
   * a user (or org/team) the org directory does not know is denied with a reason.
   * Unreachable engines fail closed: an `err(PolicyEngineUnreachableError)`, never an allow.
   * An unknown domain or malformed input: `err(ValidationError)`, never a throw.
   */
  decide(request: DecisionRequest, options?: CallOptions): Promise<Result<Decision, DecisionError>>;
  /** True when the engine can answer now. */
  health(options?: CallOptions): Promise<boolean>;
}

/**
 * Checks a request at runtime (for callers that build it from untyped data, e.g. JSON): the
 * parsed request, or a ValidationError naming the field (an unknown domain names `domain`).
 */
export function parseDecisionRequest(request: unknown): Result<DecisionRequest, ValidationError> {
  const domain = (request as { domain?: unknown } | null)?.domain;
  if (typeof domain !== 'string' || !(DECISION_DOMAINS as readonly string[]).includes(domain)) {
    return err(
      new ValidationError(
        domain === undefined ? 'missing_type' : 'invalid_type',
        [{ field: 'domain', message: `one of ${DECISION_DOMAINS.join(', ')}` }],
        `Unknown decision domain: ${String(domain)} (one of ${DECISION_DOMAINS.join(', ')})`,
      ),
    );
  }
  const parsed = DecisionRequestSchema.safeParse(request);
  return parsed.success
    ? ok(parsed.data as DecisionRequest)
    : err(validationErrorFromZod(parsed.error, request));
}
