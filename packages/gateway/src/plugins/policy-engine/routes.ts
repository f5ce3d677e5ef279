/**
 * Routes of the policy-engine plugin (spec: Endpoints, Policies), calling @agentgov/policy's
 * PolicyService (validation, hierarchy, RBAC by scope, policy_change audit entries), plus the
 * extension `POST /decisions` that asks the decision engine and audits a `policy_decision`.
 */
import {
  AgentToAgentInputSchema,
  type Decision,
  type DecisionEngine,
  IntegrationsInputSchema,
  PolicyCreateSchema,
  PolicyDomainSchema,
  PolicySchema,
  PolicyUpdateSchema,
  ScopeSchema,
} from '@agentgov/core';
import { z } from 'zod';
import type { GatewayContext } from '../../context';
import { errorOf } from '../../http';
import { defineRoute } from '../../routes';
import {
  ErrorBodySchema,
  type GovernancePlugin,
  IdParams,
  policyPrincipal,
  principalOf,
  unwrap,
} from '../shared';

const ADMINS = ['enterprise_admin', 'org_admin', 'team_lead'] as const;
const PolicyOut = PolicySchema.meta({ id: 'Policy' });

export const PolicyListQuery = z.object({
  scope: ScopeSchema.optional(),
  domain: PolicyDomainSchema.optional(),
  status: z.enum(['draft', 'active', 'deprecated']).optional(),
});

export const DecisionBodySchema = z.discriminatedUnion('domain', [
  z.object({ domain: z.literal('agent-to-agent'), input: AgentToAgentInputSchema }),
  z.object({ domain: z.literal('integrations'), input: IntegrationsInputSchema }),
]);

const DecisionOut = z.object({
  allow: z.boolean(),
  deny: z.boolean(),
  reason: z.string(),
  constraints: z.object({
    max_rounds: z.number().optional(),
    max_classification_shared: z.string().optional(),
  }),
});

const err = (description: string) => ({ description, schema: ErrorBodySchema });

export function policyPlugin(ctx: GatewayContext): GovernancePlugin {
  return {
    name: 'policy-engine',
    routes: [
      defineRoute({
        method: 'POST',
        path: '/policies',
        plugin: 'policy-engine',
        operationId: 'createPolicy',
        summary: 'Create a policy (hierarchy validated; stored as active)',
        auth: 'required',
        roles: ADMINS,
        rateLimit: 'policy_mutations',
        body: PolicyCreateSchema,
        responses: {
          201: { description: 'The created policy', schema: PolicyOut },
          400: err('missing_type, invalid_type or POLICY_HIERARCHY_VIOLATION'),
          403: err('forbidden'),
        },
        async handler({ principal, body, requestId, signal }) {
          const p = principalOf(principal);
          const created = unwrap(await ctx.policies.create(policyPrincipal(p), body, { requestId, signal }));
          return { status: 201, body: created };
        },
      }),
      defineRoute({
        method: 'GET',
        path: '/policies',
        plugin: 'policy-engine',
        operationId: 'listPolicies',
        summary: 'Policies visible to the caller (scoped by role)',
        auth: 'required',
        query: PolicyListQuery,
        responses: { 200: { description: 'Policies', schema: z.array(PolicyOut) } },
        async handler({ principal, query }) {
          return {
            status: 200,
            body: unwrap(await ctx.policies.list(policyPrincipal(principalOf(principal)), query)),
          };
        },
      }),
      defineRoute({
        method: 'GET',
        path: '/policies/{id}',
        plugin: 'policy-engine',
        operationId: 'getPolicy',
        summary: 'One policy',
        auth: 'required',
        params: IdParams,
        responses: { 200: { description: 'The policy', schema: PolicyOut }, 404: err('NOT_FOUND') },
        async handler({ principal, params }) {
          return {
            status: 200,
            body: unwrap(await ctx.policies.get(policyPrincipal(principalOf(principal)), params.id)),
          };
        },
      }),
      defineRoute({
        method: 'PUT',
        path: '/policies/{id}',
        plugin: 'policy-engine',
        operationId: 'updatePolicy',
        summary: 'Update content and changeReason (hierarchy re-validated when content changes)',
        auth: 'required',
        roles: ADMINS,
        rateLimit: 'policy_mutations',
        params: IdParams,
        body: PolicyUpdateSchema,
        responses: {
          200: { description: 'The updated policy', schema: PolicyOut },
          400: err('missing_type, invalid_type or POLICY_HIERARCHY_VIOLATION'),
          403: err('forbidden'),
          404: err('NOT_FOUND'),
        },
        async handler({ principal, params, body, requestId, signal }) {
          const p = policyPrincipal(principalOf(principal));
          return {
            status: 200,
            body: unwrap(await ctx.policies.update(p, params.id, body, { requestId, signal })),
          };
        },
      }),
      defineRoute({
        method: 'DELETE',
        path: '/policies/{id}',
        plugin: 'policy-engine',
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
        async handler({ principal, params, requestId, signal }) {
          const p = policyPrincipal(principalOf(principal));
          return {
            status: 200,
            body: unwrap(await ctx.policies.deprecate(p, params.id, { requestId, signal })),
          };
        },
      }),
      defineRoute({
        method: 'POST',
        path: '/decisions',
        plugin: 'policy-engine',
        operationId: 'decide',
        summary: 'Extension: a policy decision for the caller (audited as policy_decision)',
        auth: 'required',
        body: DecisionBodySchema,
        responses: {
          200: { description: 'The decision', schema: DecisionOut },
          503: err('POLICY_ENGINE_UNREACHABLE'),
        },
        async handler({ principal, body, requestId, signal }) {
          const p = principalOf(principal);
          const decided = await decide(
            ctx.decisionEngine,
            { ...body, tenantId: p.tenantId, userId: p.userId },
            signal,
          );
          const d = decided.ok ? decided.decision : undefined;
          const appended = await ctx.audit.append({
            tenantId: p.tenantId,
            userId: p.userId,
            actionType: 'policy_decision',
            actionDetail: { domain: body.domain, input: body.input, engine: ctx.decisionEngine.name },
            policyApplied: `${ctx.decisionEngine.name}:${body.domain}`,
            policyResult: d?.allow && !d.deny ? 'allow' : 'deny',
            policyReason: d ? d.reason.slice(0, 1024) : 'POLICY_ENGINE_UNREACHABLE',
            outcome: d ? (d.allow && !d.deny ? 'success' : 'denied') : 'error',
            requestId,
          });
          if (!decided.ok) throw decided.error;
          if (appended.isErr()) throw appended.error;
          return { status: 200, body: decided.decision };
        },
      }),
    ],
  };
}

async function decide(
  engine: DecisionEngine,
  request: Parameters<DecisionEngine['decide']>[0],
  signal: AbortSignal,
): Promise<{ ok: true; decision: Decision } | { ok: false; error: Error }> {
  try {
    const r = await engine.decide(request, { signal });
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
