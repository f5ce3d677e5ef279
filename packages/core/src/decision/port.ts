/**
 * The policy decision engine (spec: "Policy evaluation inputs and outputs"). Implementations:
 * the built-in engine and the OPA client, in `@agentgov/policy`.
 */
import { err, ok, type Result } from 'neverthrow';
import { z } from 'zod';
import type { ClassificationLevel } from '../classification-lattice';
import { type PolicyEngineUnreachableError, ValidationError, validationErrorFromZod } from '../errors';
import { frozenClonePlain } from '../plain-clone';
import type { CallOptions } from '../vocabulary';
import { isExactDecisionRequest } from './check';
import {
  type ActionAutonomy,
  type ActionsInput,
  type AgentToAgentInput,
  type DataInput,
  DECISION_DOMAINS,
  DECISION_INPUT_SCHEMAS,
  type DecisionDomain,
  DecisionRequestSchema,
  type FeaturesInput,
  type IntegrationsInput,
  type ModelsInput,
} from './schema';

interface RequestBase {
  tenantId: string;
  /**
   * The user decided for (their effective policy: enterprise → org → team → user). Required
   * unless `scope: 'enterprise'`: a request with neither is `err(ValidationError)` (an omission
   * would skip every org, team and user policy). Unknown users are denied.
   */
  userId?: string;
  /**
   * `'enterprise'` asks explicitly for the enterprise-level answer (the tenant's enterprise
   * policies only — looser than any user's). Only without `userId`.
   */
  scope?: 'enterprise';
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
   * Decides for the effective policy of `userId` (or of the tenant's enterprise scope when the
   * request says `scope: 'enterprise'`; a request with neither is `err(ValidationError)`),
   * built from the tenant's active policies of the request's domain. Cross-tenant agent-to-agent
   * inputs (the two sides, or a side and `tenantId`, differ) are denied whatever the policy says;
   * a user (or org/team) the org directory does not know is denied with a reason.
   * Unreachable engines fail closed: an `err(PolicyEngineUnreachableError)`, never an allow.
   * An unknown domain or malformed input: `err(ValidationError)`, never a throw. A
   * `CheckedDecisionRequest` (from `parseDecisionRequest`) is read without any check; any other
   * request is checked first (`checkDecisionRequest`).
   */
  decide(request: DecisionRequest, options?: CallOptions): Promise<Result<Decision, DecisionError>>;
  /** True when the engine can answer now. */
  health(options?: CallOptions): Promise<boolean>;
}

/**
 * The requests core checked (`parseDecisionRequest`, `decisionRequestOf`), each frozen with its
 * input, so that what was checked is what an engine reads: an engine takes one of them without
 * any check. Only objects core itself checked are in it — a cast, a look-alike copy or an untyped
 * caller's object is checked again.
 */
const checkedRequests = new WeakSet<object>();
/** The bodies `DecisionBodySchema` produced (frozen): their domain and input are checked. */
const checkedBodies = new WeakSet<object>();

declare const checkedBrand: unique symbol;
/**
 * A DecisionRequest core checked: only `parseDecisionRequest` makes one (the brand cannot be
 * written outside core, and a cast is caught at runtime: an engine checks any request core did not
 * hand out). Typed callers that decide many times on one request parse it once and pass this.
 */
export type CheckedDecisionRequest = DecisionRequest & { readonly [checkedBrand]: true };

/** True when core checked `request` (and froze it): an engine reads it without checking it. */
export function isCheckedDecisionRequest(request: unknown): request is CheckedDecisionRequest {
  return typeof request === 'object' && request !== null && checkedRequests.has(request);
}

/**
 * A frozen deep copy of what zod produced. A copy, not the value itself: zod hands over the
 * caller's own objects where a schema keeps unknown keys (e.g. `context.additional` of
 * integrations), and checking a request must never freeze what its caller still holds.
 */
const frozenCopy = <T>(value: T): T => frozenClonePlain(value) as T;

const checked = (request: DecisionRequest): CheckedDecisionRequest => {
  const copy = frozenCopy(request);
  checkedRequests.add(copy);
  return copy as CheckedDecisionRequest;
};

/**
 * Checks a request at runtime, once, at an untyped edge (JSON from HTTP, a CLI file, OPA input):
 * the checked request (a frozen copy, branded), or a ValidationError naming the field (an unknown
 * domain names `domain`). A request core already checked is answered as it is.
 */
export function parseDecisionRequest(request: unknown): Result<CheckedDecisionRequest, ValidationError> {
  if (isCheckedDecisionRequest(request)) return ok(request);
  // Already exactly what the schema produces: copied without going through zod.
  if (isExactDecisionRequest(request)) return ok(checked(request));
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
  if (!parsed.success) return err(validationErrorFromZod(parsed.error, request));
  const level = decisionLevelError(parsed.data);
  if (level) return err(level);
  return ok(checked(parsed.data as DecisionRequest));
}

/**
 * What an engine's `decide` does first, on its hot path: a request core checked is taken as it
 * is; a request that is already exactly valid (`isExactDecisionRequest`: plain property reads) is
 * taken as it is too — not copied, not frozen, not remembered (its caller may still change it, so
 * the engine reads it before its next `await` or checks it again after); anything else goes
 * through `parseDecisionRequest` (the ValidationError, or the cleaned, checked copy).
 */
export function checkDecisionRequest(request: unknown): Result<DecisionRequest, ValidationError> {
  if (isReadyDecisionRequest(request)) return ok(request);
  return parseDecisionRequest(request);
}

/**
 * `checkDecisionRequest`'s first step without its Result: true when an engine may read `request`
 * as it is (core checked it, or it is exactly valid: `isExactDecisionRequest`). False means "call
 * `checkDecisionRequest`" — not necessarily "invalid". For an engine's hot path (no allocation).
 */
export function isReadyDecisionRequest(request: unknown): request is DecisionRequest {
  return isCheckedDecisionRequest(request) || isExactDecisionRequest(request);
}

/**
 * Every decision is made for a user, unless the caller asks explicitly for the enterprise level:
 * every decision domain is user-bound (any domain's policies may be set at org, team and user
 * scope, and those only restrict), so a request that simply omits `userId` would get an answer
 * looser than any user's. The error for a request with neither, or with both.
 */
function decisionLevelError(request: { userId?: string; scope?: 'enterprise' }): ValidationError | undefined {
  if (request.userId !== undefined && request.scope !== undefined) {
    return new ValidationError(
      'invalid_type',
      [
        {
          field: 'scope',
          message: 'only without userId: a request is for a user or for the enterprise, not both',
        },
      ],
      "Invalid value for field scope: 'enterprise' asks for the enterprise-level answer and cannot be given with userId",
    );
  }
  if (request.userId === undefined && request.scope === undefined) {
    return new ValidationError(
      'missing_type',
      [{ field: 'userId', message: "Required (or scope: 'enterprise' for the enterprise-level answer)" }],
      "Missing required field: userId — a decision is made for a user; to ask for the enterprise-level answer (which skips org, team and user policies) say scope: 'enterprise'",
    );
  }
  return undefined;
}

const bodyOf = <D extends DecisionDomain>(domain: D) =>
  z.object({ domain: z.literal(domain), input: DECISION_INPUT_SCHEMAS[domain] });

/**
 * The body of an HTTP decision request: one domain and its input (a DecisionRequest without the
 * caller's tenant and user). What it produces is frozen and remembered as checked, so
 * `decisionRequestOf` builds a request an engine does not check again.
 */
export const DecisionBodySchema = z
  .discriminatedUnion('domain', [
    bodyOf('agent-to-agent'),
    bodyOf('integrations'),
    bodyOf('models'),
    bodyOf('actions'),
    bodyOf('data'),
    bodyOf('features'),
  ])
  .overwrite((body) => {
    const frozen = frozenCopy(body);
    checkedBodies.add(frozen);
    return frozen;
  });
export type DecisionBody = z.infer<typeof DecisionBodySchema>;

/** The caller's ids as `DecisionRequestSchema` checks them: 1 to 255 characters. */
const isId = (id: string): boolean => typeof id === 'string' && id.length >= 1 && id.length <= 255;

/**
 * The DecisionRequest of a body for `tenantId` (and `userId`). When `DecisionBodySchema` produced
 * the body and the ids are valid, the request is marked checked (frozen): an engine's
 * `parseDecisionRequest` takes it without parsing the input a second time. Otherwise it is the
 * plain request, which the engine checks in full (and refuses with the same ValidationError).
 */
export function decisionRequestOf(body: DecisionBody, tenantId: string, userId?: string): DecisionRequest {
  const request = (
    userId === undefined
      ? { domain: body.domain, tenantId, input: body.input }
      : { domain: body.domain, tenantId, userId, input: body.input }
  ) as DecisionRequest;
  // Only a request for a user is marked checked: one without is refused by the engine.
  if (userId !== undefined && checkedBodies.has(body) && isId(tenantId) && isId(userId))
    checkedRequests.add(Object.freeze(request));
  return request;
}
