/**
 * Kernel routes of connectors (spec: Endpoints, Connectors): list, register (a reference to the
 * credentials only) and disable. Writes are audited as `tool_invocation`.
 */
import {
  type AnyRoute,
  type AuditSink,
  type AuthenticatedContext,
  CONNECTOR_DEFAULT_CLASSIFICATION,
  type Connector,
  ConnectorCreateSchema,
  type ConnectorStore,
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

/**
 * Runs a connector write and its audit entry (`tool_invocation`) together: in one transaction
 * when the kernel has one (a failed append rolls the write back), else write then append.
 */
async function audited<T>(
  ctx: KernelServices,
  rc: AuthenticatedContext,
  detail: Record<string, unknown>,
  write: (connectors: ConnectorStore) => Promise<T>,
): Promise<T> {
  const entry = {
    tenantId: rc.tenantId,
    userId: rc.principal.userId,
    actionType: 'tool_invocation' as const,
    actionDetail: detail,
    policyApplied: 'rbac:admin',
    policyResult: 'allow' as const,
    outcome: 'success' as const,
    requestId: rc.requestId,
  };
  const run = async (connectors: ConnectorStore, sink: AuditSink) => {
    const out = await write(connectors);
    const r = await sink.append(entry);
    if (r.isErr()) throw r.error;
    return out;
  };
  if (ctx.transaction) {
    return ctx.transaction((tx) => run(tx.connectors, tx.sink), { lock: `connectors:${rc.tenantId}` });
  }
  return run(ctx.stores.connectors, ctx.audit);
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
        await audited(
          ctx,
          rc,
          { tool: 'connector.create', connectorId: connector.id, type: connector.type },
          (connectors) => connectors.insert(connector),
        );
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
          await audited(
            ctx,
            rc,
            { tool: 'connector.disable', connectorId: c.id, type: c.type },
            (connectors) => connectors.update({ ...c, status: 'disabled' }),
          );
        }
        return { status: 200, body: { id: c.id, status: 'disabled' } };
      },
    }),
  ];
}
