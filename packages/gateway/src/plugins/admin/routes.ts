/**
 * Admin routes (spec: Endpoints, Connectors; Tenants, status, metrics).
 */
import {
  type ActionType,
  CONNECTOR_DEFAULT_CLASSIFICATION,
  type Connector,
  ConnectorCreateSchema,
  newId,
  type TenantView,
  toConnectorView,
} from '@agentgov/core';
import { z } from 'zod';
import type { Principal } from '../../auth/principal';
import type { GatewayContext } from '../../context';
import { errorOf, json } from '../../http';
import { defineRoute } from '../../routes';
import { ErrorBodySchema, type GovernancePlugin, IdParams, principalOf } from '../shared';

const CONNECTOR_ADMINS = ['enterprise_admin', 'org_admin'] as const;
const err = (description: string) => ({ description, schema: ErrorBodySchema });

const ConnectorOut = z
  .object({
    id: z.string(),
    type: z.string(),
    tenantId: z.string(),
    credentialsSecretRef: z.string(),
    config: z.record(z.string(), z.unknown()),
    status: z.string(),
    createdAt: z.string(),
    defaultClassification: z.string(),
  })
  .meta({ id: 'Connector' });
const TenantOut = z
  .object({
    id: z.string(),
    name: z.string(),
    status: z.string(),
    gatewayInstances: z.number().int(),
    connectorCount: z.number().int(),
    policyCount: z.number().int(),
    userCount: z.number().int(),
    createdAt: z.string(),
  })
  .meta({ id: 'Tenant' });
const ComponentStatus = z.object({ status: z.enum(['healthy', 'unhealthy']) });
const StatusOut = z.object({
  status: z.enum(['healthy', 'degraded']),
  components: z.object({
    gateway: ComponentStatus,
    policyEngine: ComponentStatus,
    opa: ComponentStatus,
    database: ComponentStatus,
    connectors: z.record(z.string(), ComponentStatus),
  }),
  timestamp: z.string(),
});
const MetricsOut = z.object({
  activeUsers: z.number().int(),
  autoResponsesSent: z.number().int(),
  tasksDiscovered: z.number().int(),
  modelCalls: z.number().int(),
  policyEvaluations: z.number().int(),
  auditEntries: z.number().int(),
  collectedAt: z.string(),
});

function connectorView(c: Connector) {
  return { ...toConnectorView(c), defaultClassification: c.defaultClassification };
}

async function probe(work: () => Promise<boolean>, ms = 2000): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work().catch(() => false),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), ms);
        timer.unref?.();
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

async function auditWrite(
  ctx: GatewayContext,
  p: Principal,
  requestId: string,
  actionType: ActionType,
  detail: Record<string, unknown>,
): Promise<void> {
  const r = await ctx.audit.append({
    tenantId: p.tenantId,
    userId: p.userId,
    actionType,
    actionDetail: detail,
    policyApplied: 'rbac:admin',
    policyResult: 'allow',
    outcome: 'success',
    requestId,
  });
  if (r.isErr()) throw r.error;
}

async function countAudit(
  ctx: GatewayContext,
  tenantId: string,
  filter: { actionType?: ActionType; policyResult?: 'allow' },
) {
  return (await ctx.stores.audit.query(tenantId, filter, { offset: 0, limit: 1 })).total;
}

export async function tenantView(ctx: GatewayContext, tenantId: string): Promise<TenantView | undefined> {
  const tenant = await ctx.stores.tenants.get(tenantId);
  if (!tenant) return undefined;
  const [instances, connectors, policyCount, users] = await Promise.all([
    ctx.stores.instances.countLive(ctx.clock.now()),
    ctx.stores.connectors.list(tenantId),
    ctx.stores.policies.count(tenantId, { status: 'active' }),
    ctx.directory.users(tenantId),
  ]);
  return {
    ...tenant,
    gatewayInstances: instances,
    connectorCount: connectors.filter((c) => c.status !== 'disabled').length,
    policyCount,
    userCount: users.length,
  };
}

export function adminPlugin(ctx: GatewayContext, activeWindowMs = 86_400_000): GovernancePlugin {
  return {
    name: 'admin',
    routes: [
      defineRoute({
        method: 'GET',
        path: '/connectors',
        plugin: 'admin',
        operationId: 'listConnectors',
        summary: "The tenant's connectors (disabled ones included)",
        auth: 'required',
        roles: CONNECTOR_ADMINS,
        rateLimit: 'admin',
        responses: {
          200: {
            description: 'Connectors',
            schema: z.object({ connectors: z.array(ConnectorOut), total: z.number().int() }),
          },
          403: err('forbidden'),
        },
        async handler({ principal }) {
          const list = await ctx.stores.connectors.list(principalOf(principal).tenantId);
          return { status: 200, body: { connectors: list.map(connectorView), total: list.length } };
        },
      }),
      defineRoute({
        method: 'POST',
        path: '/connectors',
        plugin: 'admin',
        operationId: 'createConnector',
        summary: 'Register a connector; only a reference to its credentials is stored',
        auth: 'required',
        roles: CONNECTOR_ADMINS,
        rateLimit: 'admin',
        body: ConnectorCreateSchema,
        responses: {
          201: { description: 'The connector', schema: ConnectorOut },
          400: err('missing_type / invalid_type'),
        },
        async handler({ principal, body, requestId }) {
          const p = principalOf(principal);
          const connector: Connector = {
            id: newId(),
            type: body.type,
            tenantId: p.tenantId,
            userId: null,
            permissions: 'read',
            defaultClassification: CONNECTOR_DEFAULT_CLASSIFICATION[body.type],
            status: 'active',
            credentialsRef: body.credentials_secret_ref,
            lastSyncAt: null,
            errorDetails: null,
            config: body.config,
            createdAt: ctx.clock.now().toISOString(),
          };
          await ctx.stores.connectors.insert(connector);
          await auditWrite(ctx, p, requestId, 'tool_invocation', {
            tool: 'connector.create',
            connectorId: connector.id,
            type: connector.type,
          });
          return { status: 201, body: connectorView(connector) };
        },
      }),
      defineRoute({
        method: 'DELETE',
        path: '/connectors/{id}',
        plugin: 'admin',
        operationId: 'disableConnector',
        summary: 'Disable a connector (its data is kept)',
        auth: 'required',
        roles: CONNECTOR_ADMINS,
        rateLimit: 'admin',
        params: IdParams,
        responses: {
          200: {
            description: 'Disabled',
            schema: z.object({ id: z.string(), status: z.literal('disabled') }),
          },
          404: err('NOT_FOUND'),
        },
        async handler({ principal, params, requestId }) {
          const p = principalOf(principal);
          const c = await ctx.stores.connectors.get(p.tenantId, params.id);
          if (!c) throw errorOf('NOT_FOUND', `Connector ${params.id} not found`);
          if (c.status !== 'disabled') {
            await ctx.stores.connectors.update({ ...c, status: 'disabled' });
            await auditWrite(ctx, p, requestId, 'tool_invocation', {
              tool: 'connector.disable',
              connectorId: c.id,
              type: c.type,
            });
          }
          return { status: 200, body: { id: c.id, status: 'disabled' } };
        },
      }),
      defineRoute({
        method: 'GET',
        path: '/tenants',
        plugin: 'admin',
        operationId: 'listTenants',
        summary: "Tenants visible to the caller: reads are tenant-scoped, so the caller's own tenant",
        auth: 'required',
        roles: ['enterprise_admin'],
        rateLimit: 'admin',
        responses: {
          200: {
            description: 'Tenants',
            schema: z.object({ tenants: z.array(TenantOut), total: z.number().int() }),
          },
        },
        async handler({ principal }) {
          const view = await tenantView(ctx, principalOf(principal).tenantId);
          const tenants = view ? [view] : [];
          return { status: 200, body: { tenants, total: tenants.length } };
        },
      }),
      defineRoute({
        method: 'GET',
        path: '/tenants/{id}/status',
        plugin: 'admin',
        operationId: 'getTenantStatus',
        summary: 'One tenant (another tenant is tenant_not_found)',
        auth: 'required',
        roles: ['enterprise_admin'],
        rateLimit: 'admin',
        params: IdParams,
        responses: { 200: { description: 'The tenant', schema: TenantOut }, 404: err('tenant_not_found') },
        async handler({ principal, params }) {
          const p = principalOf(principal);
          const view = params.id === p.tenantId ? await tenantView(ctx, params.id) : undefined;
          if (!view) throw errorOf('tenant_not_found', `Tenant ${params.id} not found`);
          return { status: 200, body: view };
        },
      }),
      defineRoute({
        method: 'GET',
        path: '/status',
        plugin: 'admin',
        operationId: 'getStatus',
        summary: 'Health of the gateway and its backing services (200 healthy, 503 degraded)',
        auth: 'none',
        rateLimit: 'system_status',
        responses: {
          200: { description: 'Healthy', schema: StatusOut },
          503: { description: 'Degraded (same body)', schema: StatusOut },
        },
        async handler() {
          const [database, engine, policyStore] = await Promise.all([
            probe(() => ctx.probeDatabase()),
            probe(() => ctx.decisionEngine.health()),
            probe(async () => {
              await ctx.stores.policies.count('__agentgov_probe__');
              return true;
            }),
          ]);
          const connectors: Record<string, { status: 'healthy' | 'unhealthy' }> = {};
          if (database) {
            await probe(async () => {
              const tenants = await ctx.stores.tenants.list();
              for (const t of tenants) {
                for (const c of await ctx.stores.connectors.list(t.id, { status: 'active' })) {
                  const ok = await probe(() => ctx.probeConnector(c));
                  const prev = connectors[c.type];
                  connectors[c.type] = {
                    status: ok && prev?.status !== 'unhealthy' ? 'healthy' : 'unhealthy',
                  };
                }
              }
              return true;
            }, 5000);
          }
          const s = (ok: boolean) => ({ status: ok ? ('healthy' as const) : ('unhealthy' as const) });
          const healthy = database && engine && policyStore;
          const body = {
            status: healthy ? 'healthy' : 'degraded',
            components: {
              gateway: s(true),
              policyEngine: s(policyStore && engine),
              opa: s(engine),
              database: s(database),
              connectors,
            },
            timestamp: ctx.clock.now().toISOString(),
          };
          return json(healthy ? 200 : 503, body, { 'cache-control': 'no-store' });
        },
      }),
      defineRoute({
        method: 'GET',
        path: '/metrics',
        plugin: 'admin',
        operationId: 'getMetrics',
        summary: "Counters of the caller's tenant",
        auth: 'required',
        roles: ['enterprise_admin', 'org_admin'],
        rateLimit: 'admin',
        responses: { 200: { description: 'Metrics', schema: MetricsOut } },
        async handler({ principal }) {
          const t = principalOf(principal).tenantId;
          const now = ctx.clock.now();
          const [
            activeUsers,
            autoResponsesSent,
            tasksDiscovered,
            modelCalls,
            policyEvaluations,
            auditEntries,
          ] = await Promise.all([
            ctx.activity.countActive(t, new Date(now.getTime() - activeWindowMs)),
            countAudit(ctx, t, { actionType: 'agent_exchange', policyResult: 'allow' }),
            countTaskDiscoveries(ctx, t),
            countAudit(ctx, t, { actionType: 'model_call' }),
            countAudit(ctx, t, { actionType: 'policy_decision' }),
            ctx.stores.audit.count(t),
          ]);
          return {
            status: 200,
            body: {
              activeUsers,
              autoResponsesSent,
              tasksDiscovered,
              modelCalls,
              policyEvaluations,
              auditEntries,
              collectedAt: now.toISOString(),
            },
          };
        },
      }),
    ],
  };
}

/** tool_invocation entries whose actionDetail.tool is `task_discovery` (written by work-tracking). */
async function countTaskDiscoveries(ctx: GatewayContext, tenantId: string): Promise<number> {
  let n = 0;
  for await (const r of ctx.stores.audit.scan(tenantId, {
    filter: { actionType: 'tool_invocation' },
    batchSize: 1000,
  })) {
    if (r.entry.actionDetail.tool === 'task_discovery') n++;
  }
  return n;
}
