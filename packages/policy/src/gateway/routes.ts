/**
 * `policyRoutes(...)`: the policy domain's gateway plugin (spec: Endpoints, Policies), serving
 * PolicyService (validation, hierarchy, RBAC by scope, policy_change audit entries), plus the
 * extension `POST /decisions` that asks the decision engine and audits a `policy_decision`. It
 * reports `policyEngine` (and `opa` when an external decision engine is configured) to /status and
 * `policyCount` to the tenant view. The route schemas are in `./schemas`, the decision routes in
 * `./decision-routes`.
 */
import {
  type AuditSink,
  type Clock,
  type DecisionEngine,
  defineRoute,
  errorSpec as err,
  type GatewayPlugin,
  guardPort,
  IdParams,
  type OrgDirectory,
  type Policy,
  PolicyCreateSchema,
  type PolicyStore,
  PolicyUpdateSchema,
  type RunAudited,
  systemClock,
  unwrapOrThrow,
} from '@agentgov/core';
import { z } from 'zod';
import { parsePolicyContent } from '../content';
import { BuiltinDecisionEngine } from '../engines';
import { EffectivePolicyResolver } from '../resolver';
import { PolicyService } from '../service';
import { type PolicyWarning, policyContentWarnings } from '../warnings';
import { decisionRoutes } from './decision-routes';
import { PolicyListQuery, PolicyOut, PolicyWrittenOut } from './schemas';

const ADMINS = ['enterprise_admin', 'org_admin', 'team_lead'] as const;

/** The policy with its content warnings (none: the policy as it is). */
function withWarnings(policy: Policy): Policy & { warnings?: PolicyWarning[] } {
  const content = parsePolicyContent(policy.domain, policy.content);
  const warnings = content.isOk() ? policyContentWarnings(policy.domain, content.value) : [];
  return warnings.length > 0 ? { ...policy, warnings } : policy;
}

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
  /** A policy for an org the directory has not seen is accepted (see `PolicyServiceOptions.acceptUnseenOrgs`). */
  acceptUnseenOrgs?: boolean;
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
    ...(options.acceptUnseenOrgs ? { acceptUnseenOrgs: true } : {}),
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
          409: err('POLICY_ALREADY_ACTIVE (detail[0].id: the active identical policy)'),
        },
        async handler({ body }, rc) {
          // A re-POST of the same policy (a retry after a lost response) creates nothing: the
          // service answers 409 naming the active policy with the same scope, domain, name,
          // version and content, checked under the tenant's lock (concurrent identical POSTs).
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
      ...decisionRoutes({ engine, service, audit }),
    ],
  };
}
