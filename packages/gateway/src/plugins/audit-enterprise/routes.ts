/**
 * Routes of the audit-enterprise plugin (spec: Endpoints, Audit): filtered, paginated query,
 * single entry, and a streamed JSON/CSV export. The reading itself — query parsing in both
 * spellings, visibility, the streamed export with its CSV rules — is `@agentgov/audit`'s
 * AuditService; this plugin adds what HTTP needs: the caller's read scope (enterprise_admin: the
 * tenant; org_admin: the users of their org and themselves; everyone else: their own entries),
 * routing, roles, rate limits, and an audit entry (`data_access`) for every read.
 */
import { AuditExportQuerySchema, AuditQuerySchema, type AuditVisibility } from '@agentgov/audit';
import { AuditEntrySchema } from '@agentgov/core';
import { z } from 'zod';
import type { Principal } from '../../auth/principal';
import type { GatewayContext } from '../../context';
import { queryObject } from '../../http';
import { auditReadScope } from '../../rbac';
import { defineRoute } from '../../routes';
import { ErrorBodySchema, type GovernancePlugin, IdParams, principalOf } from '../shared';

export { AuditExportQuerySchema, AuditQuerySchema, CSV_COLUMNS } from '@agentgov/audit';

async function visibilityOf(ctx: GatewayContext, p: Principal): Promise<AuditVisibility> {
  const scope = await auditReadScope(ctx.directory, p);
  return scope.all ? { tenantId: p.tenantId } : { tenantId: p.tenantId, userIds: scope.userIds };
}

async function recordAccess(
  ctx: GatewayContext,
  p: Principal,
  requestId: string,
  detail: Record<string, unknown>,
): Promise<void> {
  const r = await ctx.audit.append({
    tenantId: p.tenantId,
    userId: p.userId,
    actionType: 'data_access',
    actionDetail: detail,
    dataAccessed: [{ source: 'audit', classification: 'confidential', purpose: String(detail.operation) }],
    dataClassification: 'confidential',
    policyApplied: 'rbac:audit',
    policyResult: 'allow',
    outcome: 'success',
    requestId,
  });
  if (r.isErr()) throw r.error;
}

const AuditEntryOut = AuditEntrySchema.meta({ id: 'AuditEntry' });
const Page = z.object({ entries: z.array(AuditEntryOut), total: z.number().int() });
const err = (description: string) => ({ description, schema: ErrorBodySchema });

export function auditPlugin(ctx: GatewayContext): GovernancePlugin {
  return {
    name: 'audit-enterprise',
    routes: [
      defineRoute({
        method: 'GET',
        path: '/audit',
        plugin: 'audit-enterprise',
        operationId: 'queryAudit',
        summary: 'Filtered, paginated audit query (newest first), scoped by tenant and role',
        auth: 'required',
        rateLimit: 'audit_queries',
        query: AuditQuerySchema,
        responses: {
          200: { description: 'A page of entries and the total', schema: Page },
          400: err('invalid_type'),
        },
        async handler({ principal, url, query, requestId }) {
          const p = principalOf(principal);
          const page = await ctx.auditService.query(await visibilityOf(ctx, p), queryObject(url));
          if (page.isErr()) throw page.error;
          await recordAccess(ctx, p, requestId, {
            operation: 'audit.query',
            filter: query.filter,
            page: query.page,
            pageSize: query.pageSize,
            returned: page.value.entries.length,
          });
          return { status: 200, body: page.value };
        },
      }),
      defineRoute({
        method: 'GET',
        path: '/audit/export',
        plugin: 'audit-enterprise',
        operationId: 'exportAudit',
        summary: 'Compliance export of the tenant, streamed as JSON {entries, total} or CSV',
        auth: 'required',
        roles: ['enterprise_admin'],
        rateLimit: 'audit_export',
        query: AuditExportQuerySchema,
        responses: {
          200: { description: 'The export (application/json or text/csv)', schema: Page },
          403: err('forbidden'),
        },
        async handler({ principal, url, query, requestId, signal }) {
          const p = principalOf(principal);
          const exported = await ctx.auditService.export(await visibilityOf(ctx, p), queryObject(url), {
            signal,
          });
          if (exported.isErr()) throw exported.error;
          // Recorded when the export starts: a client that stops reading has still been served data.
          await recordAccess(ctx, p, requestId, {
            operation: 'audit.export',
            format: query.format,
            filter: query.filter,
          });
          return new Response(exported.value.body, { status: 200, headers: exported.value.headers });
        },
      }),
      defineRoute({
        method: 'GET',
        path: '/audit/{id}',
        plugin: 'audit-enterprise',
        operationId: 'getAuditEntry',
        summary: 'One audit entry of the tenant (visible to the caller)',
        auth: 'required',
        rateLimit: 'audit_queries',
        params: IdParams,
        responses: { 200: { description: 'The entry', schema: AuditEntryOut }, 404: err('NOT_FOUND') },
        async handler({ principal, params, requestId }) {
          const p = principalOf(principal);
          const entry = await ctx.auditService.get(await visibilityOf(ctx, p), params.id);
          if (entry.isErr()) throw entry.error;
          await recordAccess(ctx, p, requestId, { operation: 'audit.get', entryId: params.id });
          return { status: 200, body: entry.value };
        },
      }),
    ],
  };
}
