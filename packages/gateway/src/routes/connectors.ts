/**
 * Kernel routes of connectors (spec: Endpoints, Connectors): list, register (a reference to the
 * credentials only) and disable. Writes are audited as `tool_invocation`.
 */
import {
  type ActionType,
  type AnyRoute,
  type AuthenticatedContext,
  CONNECTOR_DEFAULT_CLASSIFICATION,
  type Connector,
  ConnectorCreateSchema,
  defineRoute,
  errorSpec as err,
  errorOf,
  IdParams,
  newId,
  toConnectorView,
} from '@agentgov/core';
import { z } from 'zod';
import type { KernelServices } from '../services';

const CONNECTOR_ADMINS = ['enterprise_admin', 'org_admin'] as const;

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

function connectorView(c: Connector) {
  return { ...toConnectorView(c), defaultClassification: c.defaultClassification };
}

async function auditWrite(
  ctx: KernelServices,
  rc: AuthenticatedContext,
  actionType: ActionType,
  detail: Record<string, unknown>,
): Promise<void> {
  const r = await ctx.audit.append({
    tenantId: rc.tenantId,
    userId: rc.principal.userId,
    actionType,
    actionDetail: detail,
    policyApplied: 'rbac:admin',
    policyResult: 'allow',
    outcome: 'success',
    requestId: rc.requestId,
  });
  if (r.isErr()) throw r.error;
}

export function connectorRoutes(ctx: KernelServices): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/connectors',
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
      async handler(_input, { tenantId }) {
        const list = await ctx.stores.connectors.list(tenantId);
        return { status: 200, body: { connectors: list.map(connectorView), total: list.length } };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/connectors',
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
      async handler({ body }, rc) {
        const connector: Connector = {
          id: newId(),
          type: body.type,
          tenantId: rc.tenantId,
          userId: null,
          permissions: 'read',
          defaultClassification: CONNECTOR_DEFAULT_CLASSIFICATION[body.type],
          status: 'active',
          credentialsRef: body.credentials_secret_ref,
          lastSyncAt: null,
          errorDetails: null,
          config: body.config,
          createdAt: rc.clock.now().toISOString(),
        };
        await ctx.stores.connectors.insert(connector);
        await auditWrite(ctx, rc, 'tool_invocation', {
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
      async handler({ params }, rc) {
        const c = await ctx.stores.connectors.get(rc.tenantId, params.id);
        if (!c) throw errorOf('NOT_FOUND', `Connector ${params.id} not found`);
        if (c.status !== 'disabled') {
          await ctx.stores.connectors.update({ ...c, status: 'disabled' });
          await auditWrite(ctx, rc, 'tool_invocation', {
            tool: 'connector.disable',
            connectorId: c.id,
            type: c.type,
          });
        }
        return { status: 200, body: { id: c.id, status: 'disabled' } };
      },
    }),
  ];
}
