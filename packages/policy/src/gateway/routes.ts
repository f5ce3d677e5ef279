/**
 * `policyRoutes(...)`: the policy domain's gateway plugin (spec: Endpoints, Policies), serving
 * PolicyService (validation, hierarchy, RBAC by scope, policy_change audit entries), plus the
 * extension `POST /decisions` that asks the decision engine and audits a `policy_decision`. It
 * reports `policyEngine` (and `opa` when an external decision engine is configured) to /status and
 * `policyCount` to the tenant view.
 */
import {
  ActionAutonomySchema,
  type AuditSink,
  type CallOptions,
  ClassificationLevelSchema,
  type Clock,
  DECISION_INPUT_SCHEMAS,
  type Decision,
  DecisionBodySchema,
  type DecisionDomain,
  DecisionDomainSchema,
  type DecisionEngine,
  decisionRequestOf,
  defineRoute,
  errorSpec as err,
  errorOf,
  type GatewayPlugin,
  guardPort,
  IdParams,
  type OrgDirectory,
  type Policy,
  PolicyCreateSchema,
  PolicyDomainSchema,
  PolicySchema,
  type PolicyStore,
  PolicyUpdateSchema,
  type RunAudited,
  ScopeSchema,
  systemClock,
  unwrapOrThrow,
} from '@agentgov/core';
import { z } from 'zod';
import { parsePolicyContent } from '../content';
import { BuiltinDecisionEngine } from '../engines';
import { decisionAuditEntry } from '../policy-engine';
import { EffectivePolicyResolver } from '../resolver';
import { PolicyService } from '../service';
import { type PolicyWarning, policyContentWarnings } from '../warnings';

const ADMINS = ['enterprise_admin', 'org_admin', 'team_lead'] as const;
const PolicyOut = PolicySchema.meta({ id: 'Policy' });
/** A created or updated policy: the policy, and `warnings` when its content has names no engine asks about. */
const PolicyWrittenOut = PolicySchema.extend({
  warnings: z
    .array(
      z.object({
        field: z
          .string()
          .meta({ description: 'The field, as validation errors name it (`content.briefing`)' }),
        message: z.string(),
        suggestion: z.string().optional().meta({ description: 'The nearest known name' }),
      }),
    )
    .optional()
    .meta({
      description:
        'Extension: valid content that is probably a mistake — a feature-flag name the engine never asks about (`briefing` for `briefings`), with the nearest known name. Present only when there are warnings; the policy is stored all the same.',
    }),
}).meta({ id: 'PolicyWritten' });

/** The policy with its content warnings (none: the policy as it is). */
function withWarnings(policy: Policy): Policy & { warnings?: PolicyWarning[] } {
  const content = parsePolicyContent(policy.domain, policy.content);
  const warnings = content.isOk() ? policyContentWarnings(policy.domain, content.value) : [];
  return warnings.length > 0 ? { ...policy, warnings } : policy;
}

export const PolicyListQuery = z.object({
  scope: ScopeSchema.optional(),
  domain: PolicyDomainSchema.optional(),
  status: z.enum(['draft', 'active', 'deprecated']).optional(),
});

/** The body of `POST /decisions`: one domain and its input (tables in the policy README). */
export { DecisionBodySchema } from '@agentgov/core';

const DecisionOut = z.object({
  allow: z.boolean(),
  deny: z.boolean(),
  reason: z.string(),
  constraints: z.object({
    max_rounds: z.number().optional().describe('agent-to-agent: most rounds of the exchange'),
    max_classification_shared: ClassificationLevelSchema.optional().describe(
      'highest level that may be shared (agent-to-agent, integrations), sent to the model (models) or shared externally (data)',
    ),
    autonomy: ActionAutonomySchema.optional().describe('actions: the autonomy of the tool'),
    sensitive_data_models: z
      .array(z.string())
      .optional()
      .describe('models: the only models that may receive confidential or restricted data'),
  }),
  policyIds: z.array(z.string()).optional().describe('ids of the policies the decision was computed from'),
});

const explainBodyOf = <D extends DecisionDomain>(domain: D) =>
  z.object({
    userId: z.string().min(1).max(255).describe('the user the decision is explained for'),
    domain: z.literal(domain),
    input: DECISION_INPUT_SCHEMAS[domain],
  });

/**
 * The body of `POST /decisions/explain`: the body of `POST /decisions` plus the user it is asked
 * for (one of the caller's scope).
 */
export const ExplainBodySchema = z.discriminatedUnion('domain', [
  explainBodyOf('agent-to-agent'),
  explainBodyOf('integrations'),
  explainBodyOf('models'),
  explainBodyOf('actions'),
  explainBodyOf('data'),
  explainBodyOf('features'),
]);

const PolicyRefOut = z.object({
  id: z.string(),
  scope: ScopeSchema,
  scopeId: z.string(),
  name: z.string(),
  version: z.string(),
});

const ExplanationOut = z
  .object({
    userId: z.string(),
    domain: DecisionDomainSchema,
    effective: z
      .record(z.string(), z.unknown())
      .describe('the effective policy: the meet of every active policy on the chain'),
    decision: DecisionOut,
    decidedBy: PolicyRefOut.nullable().describe(
      'the last policy on the chain that changed the decision (allow, reason or constraints); null: the defaults decided',
    ),
    trace: z
      .array(
        z.object({
          scope: ScopeSchema,
          scopeId: z.string(),
          policies: z.array(
            PolicyRefOut.extend({
              contributed: z
                .array(z.object({ key: z.string(), value: z.unknown() }))
                .describe(
                  'keys this policy set first on the chain or made stricter, with their effective value',
                ),
            }),
          ),
          decision: z
            .object({ allow: z.boolean(), reason: z.string() })
            .describe('the decision had the chain ended at this level'),
        }),
      )
      .describe('the chain, enterprise first'),
    engine: z
      .string()
      .describe(
        "the decision engine that enforces decisions; the explanation is the built-in engine's, so with another engine (opa) its rules decide",
      ),
  })
  .meta({ id: 'DecisionExplanation' });

export interface PolicyRoutesOptions {
  store: PolicyStore;
  directory: OrgDirectory;
  /** Where `policy_change` and `policy_decision` entries go (e.g. `createAuditLog` of @agentgov/audit). */
  audit: AuditSink;
  clock?: Clock;
  /** The decision engine (e.g. OpaDecisionEngine); default: the built-in engine over `store`. */
  engine?: DecisionEngine;
  /**
   * How long the built-in engine trusts a cached effective policy, in ms (default 5 000). Writes
   * through this process invalidate at once; writes by another process sharing the database are
   * seen within this time.
   */
  cacheMs?: number;
  /** Called after every policy write (e.g. to invalidate the cache of a custom decision engine). */
  onChange?: (tenantId: string, policy: Policy) => void;
  /** Each write and its `policy_change` entry in one transaction (see `PolicyServiceOptions.transaction`). */
  transaction?: RunAudited;
}

/** The policy plugin, with the service and engine it serves (for in-process use beside HTTP). */
export interface PolicyPlugin extends GatewayPlugin {
  readonly service: PolicyService;
  readonly engine: DecisionEngine;
}

export function policyRoutes(options: PolicyRoutesOptions): PolicyPlugin {
  const clock = options.clock ?? systemClock;
  const store = guardPort(options.store, 'policy store');
  const directory = guardPort(options.directory, 'org directory');
  const audit = options.audit;
  let engine = options.engine;
  let invalidate: ((tenantId: string) => void) | undefined;
  if (!engine) {
    const resolver = new EffectivePolicyResolver({ store, directory, maxAgeMs: options.cacheMs ?? 5_000 });
    engine = new BuiltinDecisionEngine(resolver);
    invalidate = (tenantId) => resolver.invalidate(tenantId);
  }
  const service = new PolicyService({
    store,
    directory,
    audit,
    clock,
    ...(options.transaction ? { transaction: options.transaction } : {}),
    onChange: (tenantId, policy) => {
      invalidate?.(tenantId);
      options.onChange?.(tenantId, policy);
    },
  });
  const external = engine.name !== 'builtin';
  return {
    name: 'policy',
    service,
    engine,
    async health(): Promise<Record<string, boolean>> {
      const [engineOk, storeOk] = await Promise.all([
        engine.health().catch(() => false),
        store.count('__agentgov_probe__').then(
          () => true,
          () => false,
        ),
      ]);
      // `opa` is the decision engine sidecar (spec): reported only when one is configured (any
      // engine but the built-in one), never a healthy OPA that is not there.
      return external
        ? { policyEngine: engineOk && storeOk, opa: engineOk }
        : { policyEngine: engineOk && storeOk };
    },
    async metrics(tenantId) {
      return { policyCount: await store.count(tenantId, { status: 'active' }) };
    },
    routes: [
      defineRoute({
        method: 'POST',
        path: '/policies',
        operationId: 'createPolicy',
        summary: 'Create a policy (hierarchy validated; stored as active)',
        auth: 'required',
        roles: ADMINS,
        rateLimit: 'policy_mutations',
        body: PolicyCreateSchema,
        responses: {
          201: { description: 'The created policy (with `warnings`, if any)', schema: PolicyWrittenOut },
          400: err('missing_type, invalid_type or POLICY_HIERARCHY_VIOLATION'),
          403: err('forbidden'),
          409: err('POLICY_ALREADY_ACTIVE (detail.id: the active identical policy)'),
        },
        async handler({ body }, rc) {
          // A re-POST of the same policy (a retry after a lost response) creates nothing: 409
          // names the active policy with the same scope, domain, name, version and content.
          const active = await store.list(rc.principal.tenantId, { domain: body.domain, status: 'active' });
          const same = active.find(
            (p) =>
              p.scope === body.scope &&
              p.scopeId === body.scopeId &&
              p.name === body.name &&
              p.version === body.version &&
              p.content === body.content,
          );
          // Only told to a caller who may read that policy (others go on to the service's 403).
          if (same && (await service.get(rc.principal, same.id)).isOk())
            throw errorOf('POLICY_ALREADY_ACTIVE', undefined, { id: same.id });
          return {
            status: 201,
            body: withWarnings(unwrapOrThrow(await service.create(rc.principal, body, rc))),
          };
        },
      }),
      defineRoute({
        method: 'GET',
        path: '/policies',
        operationId: 'listPolicies',
        summary: 'Policies visible to the caller (scoped by role)',
        auth: 'required',
        query: PolicyListQuery,
        responses: { 200: { description: 'Policies', schema: z.array(PolicyOut) } },
        async handler({ query }, rc) {
          return { status: 200, body: unwrapOrThrow(await service.list(rc.principal, query)) };
        },
      }),
      defineRoute({
        method: 'GET',
        path: '/policies/{id}',
        operationId: 'getPolicy',
        summary: 'One policy',
        auth: 'required',
        params: IdParams,
        responses: { 200: { description: 'The policy', schema: PolicyOut }, 404: err('NOT_FOUND') },
        async handler({ params }, rc) {
          return { status: 200, body: unwrapOrThrow(await service.get(rc.principal, params.id)) };
        },
      }),
      defineRoute({
        method: 'PUT',
        path: '/policies/{id}',
        operationId: 'updatePolicy',
        summary: 'Update content and changeReason (hierarchy re-validated when content changes)',
        auth: 'required',
        roles: ADMINS,
        rateLimit: 'policy_mutations',
        params: IdParams,
        body: PolicyUpdateSchema,
        responses: {
          200: { description: 'The updated policy (with `warnings`, if any)', schema: PolicyWrittenOut },
          400: err('missing_type, invalid_type or POLICY_HIERARCHY_VIOLATION'),
          403: err('forbidden'),
          404: err('NOT_FOUND'),
        },
        async handler({ params, body }, rc) {
          return {
            status: 200,
            body: withWarnings(unwrapOrThrow(await service.update(rc.principal, params.id, body, rc))),
          };
        },
      }),
      defineRoute({
        method: 'DELETE',
        path: '/policies/{id}',
        operationId: 'deprecatePolicy',
        summary: 'Deprecate a policy (the record is kept)',
        auth: 'required',
        roles: ADMINS,
        rateLimit: 'policy_mutations',
        params: IdParams,
        responses: {
          200: { description: 'The policy with status deprecated', schema: PolicyOut },
          403: err('forbidden'),
          404: err('NOT_FOUND'),
        },
        async handler({ params }, rc) {
          return { status: 200, body: unwrapOrThrow(await service.deprecate(rc.principal, params.id, rc)) };
        },
      }),
      defineRoute({
        method: 'POST',
        path: '/decisions',
        operationId: 'decide',
        summary:
          'Extension: a policy decision for the caller in any decision domain (agent-to-agent, integrations, models, actions, data, features; audited as policy_decision)',
        auth: 'required',
        body: DecisionBodySchema,
        responses: {
          200: { description: 'The decision', schema: DecisionOut },
          400: err('missing_type or invalid_type (unknown domain, malformed input)'),
          503: err('POLICY_ENGINE_UNREACHABLE'),
        },
        async handler({ body }, rc) {
          const { principal: p, requestId } = rc;
          // Checked once, by the body schema: the engine takes the request without parsing it again.
          const request = decisionRequestOf(body, p.tenantId, p.userId);
          const decided = await decide(engine, request, new RequestCallOptions(rc));
          const d = decided.ok ? decided.decision : undefined;
          const appended = await audit.append(
            decisionAuditEntry(request, d, { engine: engine.name, requestId, userId: p.userId }),
          );
          if (!decided.ok) throw decided.error;
          if (appended.isErr()) throw appended.error;
          return { status: 200, body: decided.decision };
        },
      }),
      defineRoute({
        method: 'POST',
        path: '/decisions/explain',
        operationId: 'explainDecision',
        summary:
          "Extension: why a decision comes out as it does for a user in the caller's scope — the effective policy, each level's policies and what they contributed, the decision and the policy that decided (audited as policy_decision)",
        auth: 'required',
        rateLimit: 'admin',
        body: ExplainBodySchema,
        responses: {
          200: { description: 'The decision and its trace', schema: ExplanationOut },
          400: err('missing_type or invalid_type (unknown domain, malformed input)'),
          404: err('NOT_FOUND: a user outside the caller’s scope, or unknown'),
        },
        async handler({ body }, rc) {
          const { principal: p, requestId } = rc;
          const request = { ...decisionRequestOf(body, p.tenantId, body.userId), userId: body.userId };
          const explained = unwrapOrThrow(await service.explain(p, request));
          // Audited like a decision, as the caller's: who asked about whom, and what came out.
          const entry = decisionAuditEntry(request, explained.decision, {
            engine: 'builtin',
            requestId,
            userId: p.userId,
          });
          entry.actionDetail = { ...entry.actionDetail, operation: 'explain', subjectUserId: body.userId };
          unwrapOrThrow(await audit.append(entry));
          return { status: 200, body: { ...explained, engine: engine.name } };
        },
      }),
    ],
  };
}

/**
 * The engine's call options: the request's abort signal, made only when the engine reads it (the
 * built-in engine never does; on Node it costs an AbortController and a listener per request).
 */
class RequestCallOptions implements CallOptions {
  readonly #rc: { readonly signal: AbortSignal };
  constructor(rc: { readonly signal: AbortSignal }) {
    this.#rc = rc;
  }
  get signal(): AbortSignal {
    return this.#rc.signal;
  }
}

async function decide(
  engine: DecisionEngine,
  request: Parameters<DecisionEngine['decide']>[0],
  options: CallOptions,
): Promise<{ ok: true; decision: Decision } | { ok: false; error: Error }> {
  try {
    const r = await engine.decide(request, options);
    if (r.isErr()) return { ok: false, error: r.error };
    return { ok: true, decision: r.value };
  } catch (error) {
    return {
      ok: false,
      error: errorOf(
        'POLICY_ENGINE_UNREACHABLE',
        undefined,
        error instanceof Error ? error.message : undefined,
      ),
    };
  }
}
