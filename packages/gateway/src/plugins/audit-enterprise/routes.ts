/**
 * Routes of the audit-enterprise plugin (spec: Endpoints, Audit): filtered, paginated query,
 * single entry, and a streamed JSON/CSV export. Reads are tenant-scoped and role-scoped
 * (enterprise_admin: the tenant; org_admin: the users of their org and themselves; everyone
 * else: their own entries); each read is itself audited as `data_access`.
 */
import {
  ActionTypeSchema,
  type AuditEntry,
  AuditEntrySchema,
  type AuditFilter,
  POLICY_RESULTS,
} from '@agentgov/core';
import { z } from 'zod';
import type { Principal } from '../../auth/principal';
import type { GatewayContext } from '../../context';
import { errorOf } from '../../http';
import { auditReadScope } from '../../rbac';
import { defineRoute } from '../../routes';
import { ErrorBodySchema, type GovernancePlugin, IdParams, principalOf } from '../shared';

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const Instant = z
  .string()
  .max(64)
  .refine(
    (v) =>
      (DATE_ONLY.test(v) || z.iso.datetime({ offset: true }).safeParse(v).success) &&
      !Number.isNaN(Date.parse(v)),
    {
      message: 'must be an ISO 8601 date or date-time',
    },
  );
const Id = z.string().min(1).max(255);
const PositiveInt = (max: number) =>
  z
    .string()
    .regex(/^\d{1,9}$/, 'must be a positive integer')
    .transform(Number)
    .pipe(z.number().int().min(1).max(max));

const Filters = {
  user_id: Id.optional(),
  userId: Id.optional(),
  action_type: ActionTypeSchema.optional(),
  actionType: ActionTypeSchema.optional(),
  policyResult: z.enum(POLICY_RESULTS).optional(),
  policy_result: z.enum(POLICY_RESULTS).optional(),
  requestId: Id.optional(),
  request_id: Id.optional(),
  from: Instant.optional(),
  to: Instant.optional(),
};

/** GET /audit query: both spellings of every filter (snake_case wins when both are given). */
export const AuditQuerySchema = z.object({
  ...Filters,
  page: PositiveInt(1_000_000).optional(),
  page_size: PositiveInt(1000).optional(),
  pageSize: PositiveInt(1000).optional(),
});
export type AuditQuery = z.infer<typeof AuditQuerySchema>;

export const AuditExportQuerySchema = z.object({ ...Filters, format: z.enum(['json', 'csv']).optional() });

const bound = (v: string | undefined, end: boolean): string | undefined => {
  if (v === undefined) return undefined;
  if (DATE_ONLY.test(v)) return `${v}T${end ? '23:59:59.999' : '00:00:00.000'}Z`;
  return new Date(v).toISOString();
};

function filterOf(q: z.infer<typeof AuditExportQuerySchema>): AuditFilter {
  const f: AuditFilter = {};
  const userId = q.user_id ?? q.userId;
  const actionType = q.action_type ?? q.actionType;
  const policyResult = q.policy_result ?? q.policyResult;
  const requestId = q.request_id ?? q.requestId;
  if (userId !== undefined) f.userId = userId;
  if (actionType !== undefined) f.actionType = actionType;
  if (policyResult !== undefined) f.policyResult = policyResult;
  if (requestId !== undefined) f.requestId = requestId;
  const from = bound(q.from, false);
  const to = bound(q.to, true);
  if (from !== undefined) f.from = from;
  if (to !== undefined) f.to = to;
  return f;
}

/** Narrows a filter to the caller's read scope; undefined when nothing can match. */
async function scoped(
  ctx: GatewayContext,
  p: Principal,
  filter: AuditFilter,
): Promise<AuditFilter | undefined> {
  const scope = await auditReadScope(ctx.directory, p);
  if (scope.all) return filter;
  if (filter.userId !== undefined) return scope.userIds.includes(filter.userId) ? filter : undefined;
  return { ...filter, userIds: scope.userIds };
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

export const CSV_COLUMNS = [
  'id',
  'tenant_id',
  'user_id',
  'timestamp',
  'action_type',
  'data_classification',
  'policy_applied',
  'policy_result',
  'outcome',
  'request_id',
] as const;

function csvCell(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

export function csvRow(e: AuditEntry): string {
  return `${[
    e.id,
    e.tenantId,
    e.userId,
    e.timestamp,
    e.actionType,
    e.dataClassification,
    e.policyApplied,
    e.policyResult,
    e.outcome,
    e.requestId,
  ]
    .map(csvCell)
    .join(',')}\r\n`;
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
        async handler({ principal, query, requestId }) {
          const p = principalOf(principal);
          const page = query.page ?? 1;
          const size = query.page_size ?? query.pageSize ?? 100;
          const filter = await scoped(ctx, p, filterOf(query));
          let out: { entries: AuditEntry[]; total: number } = { entries: [], total: 0 };
          if (filter) {
            const r = await ctx.stores.audit.query(p.tenantId, filter, {
              offset: (page - 1) * size,
              limit: size,
              order: 'desc',
            });
            out = { entries: r.records.map((x) => x.entry), total: r.total };
          }
          await recordAccess(ctx, p, requestId, {
            operation: 'audit.query',
            filter: filterOf(query),
            page,
            pageSize: size,
            returned: out.entries.length,
          });
          return { status: 200, body: out };
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
        async handler({ principal, query, requestId, signal }) {
          const p = principalOf(principal);
          const format = query.format ?? 'json';
          const filter = filterOf(query);
          const records = ctx.stores.audit
            .scan(p.tenantId, { filter, batchSize: 500, signal })
            [Symbol.asyncIterator]();
          const enc = new TextEncoder();
          let total = 0;
          let phase: 'head' | 'rows' | 'done' = 'head';
          const stream = new ReadableStream<Uint8Array>({
            async pull(controller) {
              try {
                if (phase === 'head') {
                  phase = 'rows';
                  controller.enqueue(
                    enc.encode(format === 'csv' ? `${CSV_COLUMNS.join(',')}\r\n` : '{"entries":['),
                  );
                  return;
                }
                if (phase === 'rows') {
                  const next = await records.next();
                  if (!next.done) {
                    const e = next.value.entry;
                    controller.enqueue(
                      enc.encode(
                        format === 'csv' ? csvRow(e) : `${total > 0 ? ',' : ''}${JSON.stringify(e)}`,
                      ),
                    );
                    total++;
                    return;
                  }
                  phase = 'done';
                  if (format === 'json') controller.enqueue(enc.encode(`],"total":${total}}`));
                  await recordAccess(ctx, p, requestId, {
                    operation: 'audit.export',
                    format,
                    filter,
                    exported: total,
                  });
                  controller.close();
                }
              } catch (error) {
                controller.error(error);
              }
            },
            async cancel() {
              await records.return?.();
            },
          });
          const headers: Record<string, string> =
            format === 'csv'
              ? {
                  'content-type': 'text/csv; charset=utf-8',
                  'content-disposition': 'attachment; filename=audit-export.csv',
                }
              : { 'content-type': 'application/json; charset=utf-8' };
          return new Response(stream, { status: 200, headers });
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
          const record = await ctx.stores.audit.get(p.tenantId, params.id);
          const scope = await auditReadScope(ctx.directory, p);
          if (!record || (!scope.all && !scope.userIds.includes(record.entry.userId))) {
            throw errorOf('NOT_FOUND', `Audit entry ${params.id} not found`);
          }
          await recordAccess(ctx, p, requestId, { operation: 'audit.get', entryId: params.id });
          return { status: 200, body: record.entry };
        },
      }),
    ],
  };
}
