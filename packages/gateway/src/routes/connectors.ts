/**
 * Kernel routes of connectors (spec: Endpoints, Connectors): list, register (a reference to the
 * credentials only) and disable; and, beyond the spec, `PATCH /connectors/{id}`: change the config
 * (JSON merge patch), the credentials reference or the status, or rotate the webhook secret (the
 * previous one stays valid for a window). A tenant has at most one active `tracker` and one active
 * `codehost` connector (CONNECTOR_SINGLE_ACTIVE_TYPES): a second is refused with 409
 * CONNECTOR_ALREADY_ACTIVE. A config the plugins reading that connector type cannot use (their
 * `connectorConfigs`) is a 400 naming the field. Writes are audited as `tool_invocation`.
 */
import {
  type AnyRoute,
  type AuditSink,
  type AuthenticatedContext,
  applyConnectorPatch,
  CONNECTOR_DEFAULT_CLASSIFICATION,
  CONNECTOR_SINGLE_ACTIVE_TYPES,
  type Connector,
  ConnectorCreateSchema,
  ConnectorPatchSchema,
  type ConnectorStore,
  type ConnectorType,
  defineRoute,
  errorSpec as err,
  errorOf,
  type GatewayPlugin,
  IdParams,
  newId,
  secretRefsOf,
  toConnectorView,
  validationErrorFromZod,
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
    lastSyncAt: z.string().nullable(),
    errorDetails: z.string().nullable(),
  })
  .meta({ id: 'Connector' });

function connectorView(c: Connector) {
  return {
    ...toConnectorView(c),
    defaultClassification: c.defaultClassification,
    lastSyncAt: c.lastSyncAt,
    errorDetails: c.errorDetails,
  };
}

/**
 * Refuses a second active connector of a type that allows one (`active` or `error`: a connector
 * in error is still the configured one). Run inside the write, under the tenant's connector lock.
 */
async function assertSingleActive(connectors: ConnectorStore, c: Connector): Promise<void> {
  if (!CONNECTOR_SINGLE_ACTIVE_TYPES.includes(c.type)) return;
  const other = (await connectors.list(c.tenantId, { type: c.type })).find(
    (x) => x.id !== c.id && x.status !== 'disabled',
  );
  if (other)
    throw errorOf(
      'CONNECTOR_ALREADY_ACTIVE',
      `The tenant already has an active ${c.type} connector (${other.id}); a tenant has at most one. Change it with PATCH /connectors/${other.id}, or disable it first`,
      { type: c.type, activeConnectorId: other.id },
    );
}

/**
 * Refuses a config a plugin that reads connectors of this type could not use (its
 * `connectorConfigs[type]`): 400 naming the field, before anything is written. A type no plugin
 * names takes any JSON object (the kernel itself knows no connector's config).
 */
function assertConfigUsable(
  plugins: readonly GatewayPlugin[],
  type: ConnectorType,
  config: Record<string, unknown>,
): void {
  for (const p of plugins) {
    const schema = p.connectorConfigs?.[type];
    if (!schema) continue;
    const r = schema.safeParse(config);
    if (!r.success) throw validationErrorFromZod(r.error, config, 'config');
  }
}

/**
 * Binds the secret references `c` names beyond those of `before` to its tenant
 * (`ConnectorStore.bindSecretRefs`, first come first served). A reference another tenant holds is
 * accepted — the spec's POST takes any reference — but never resolves for this tenant
 * (`tenantSecrets`): the connector's `/status` says its credentials do not resolve, and a warning
 * is logged. The store is one namespace, and a connector sends its credentials to a URL its
 * tenant's admin chose.
 */
async function bindSecretRefs(
  rc: AuthenticatedContext,
  connectors: ConnectorStore,
  c: Connector,
  before?: Connector,
): Promise<void> {
  const known = before ? secretRefsOf(before) : [];
  const held = await connectors.bindSecretRefs(
    c.tenantId,
    secretRefsOf(c).filter((ref) => !known.includes(ref)),
  );
  if (held.length > 0)
    rc.logger.warn('connector names secret references another tenant holds: they will not resolve for it', {
      tenantId: c.tenantId,
      connectorId: c.id,
      refs: held,
    });
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
        409: err('CONNECTOR_ALREADY_ACTIVE: a second active tracker or codehost connector'),
      },
      async handler({ body }, rc) {
        assertConfigUsable(ctx.plugins, body.type, body.config);
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
          async (connectors) => {
            await assertSingleActive(connectors, connector);
            await bindSecretRefs(rc, connectors, connector);
            await connectors.insert(connector);
          },
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
    defineRoute({
      method: 'PATCH',
      path: '/connectors/{id}',
      operationId: 'updateConnector',
      summary:
        'Change a connector (extension): config as a JSON merge patch, credentials_secret_ref, status (active or disabled), or rotate the webhook secret (webhook_secret_ref; the previous one stays valid for rotation_window_seconds, default 86400)',
      auth: 'required',
      roles: CONNECTOR_ADMINS,
      rateLimit: 'admin',
      params: IdParams,
      body: ConnectorPatchSchema,
      responses: {
        200: { description: 'The connector after the change', schema: ConnectorOut },
        400: err('missing_type / invalid_type'),
        404: err('NOT_FOUND'),
        409: err('CONNECTOR_ALREADY_ACTIVE: re-activating a second tracker or codehost connector'),
      },
      async handler({ params, body }, rc) {
        const changed = await audited(
          ctx,
          rc,
          {
            tool: 'connector.update',
            connectorId: params.id,
            fields: Object.keys(body).sort(),
            ...(body.webhook_secret_ref !== undefined ? { rotation: true } : {}),
          },
          async (connectors) => {
            const c = await connectors.get(rc.tenantId, params.id);
            if (!c) throw errorOf('NOT_FOUND', `Connector ${params.id} not found`);
            const next = applyConnectorPatch(c, body, rc.clock.now());
            if (body.status === 'disabled') next.status = 'disabled';
            if (body.status === 'active' && c.status === 'disabled') {
              next.status = 'active';
              next.errorDetails = null;
            }
            if (next.status !== 'disabled') {
              // A config that changes, or comes back into use, must be one the plugins can use.
              if (body.config || body.webhook_secret_ref !== undefined || c.status === 'disabled')
                assertConfigUsable(ctx.plugins, next.type, next.config);
              await assertSingleActive(connectors, next);
            }
            await bindSecretRefs(rc, connectors, next, c);
            await connectors.update(next);
            // A changed config, credentials or re-activation is tried at the next scheduled round
            // instead of after the remaining backoff.
            if (body.config || body.credentials_secret_ref !== undefined || body.status === 'active')
              await connectors.scheduleSync(c.tenantId, c.id, rc.clock.now().toISOString());
            return next;
          },
        );
        return { status: 200, body: connectorView(changed) };
      },
    }),
  ];
}
