/**
 * Kernel routes of tenants (spec: Tenants): reads are tenant-scoped, so an enterprise_admin sees
 * their own tenant; another tenant's id is `tenant_not_found`. Counts of domain resources
 * (`policyCount`) come from the plugins' metrics.
 */
import {
  type AnyRoute,
  defineRoute,
  errorSpec as err,
  errorOf,
  IdParams,
  type TenantView,
} from '@agentgov/core';
import { z } from 'zod';
import type { KernelServices } from '../services';
import { pluginMetrics } from './plugin-reports';

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

async function tenantView(
  ctx: KernelServices,
  tenantId: string,
  signal: AbortSignal,
): Promise<TenantView | undefined> {
  const tenant = await ctx.stores.tenants.get(tenantId);
  if (!tenant) return undefined;
  const [instances, connectors, users, counters] = await Promise.all([
    ctx.stores.instances.countLive(ctx.clock.now()),
    ctx.stores.connectors.list(tenantId),
    ctx.directory.users(tenantId),
    pluginMetrics(ctx.plugins, tenantId, signal),
  ]);
  return {
    ...tenant,
    gatewayInstances: instances,
    connectorCount: connectors.filter((c) => c.status !== 'disabled').length,
    policyCount: counters.policyCount ?? 0,
    userCount: users.length,
  };
}

export function tenantRoutes(ctx: KernelServices): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/tenants',
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
      async handler(_input, { tenantId, signal }) {
        const view = await tenantView(ctx, tenantId, signal);
        const tenants = view ? [view] : [];
        return { status: 200, body: { tenants, total: tenants.length } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/tenants/{id}/status',
      operationId: 'getTenantStatus',
      summary: 'One tenant (another tenant is tenant_not_found)',
      auth: 'required',
      roles: ['enterprise_admin'],
      rateLimit: 'admin',
      params: IdParams,
      responses: { 200: { description: 'The tenant', schema: TenantOut }, 404: err('tenant_not_found') },
      async handler({ params }, { tenantId, signal }) {
        const view = params.id === tenantId ? await tenantView(ctx, params.id, signal) : undefined;
        if (!view) throw errorOf('tenant_not_found', `Tenant ${params.id} not found`);
        return { status: 200, body: view };
      },
    }),
  ];
}
