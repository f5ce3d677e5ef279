/**
 * `auditRoutes(...)`: the audit domain's gateway plugin (spec: Endpoints, Audit): filtered,
 * paginated query, single entry, and a streamed JSON/CSV export. The reading itself — query
 * parsing in both spellings, visibility, the streamed export with its CSV rules — is the
 * AuditService; the plugin adds the caller's read scope (enterprise_admin: the tenant; org_admin:
 * the users of their org and themselves; everyone else: their own entries), roles, rate limits,
 * an audit entry (`data_access`) for every read, and the log's counters for /metrics
 * (`auditEntries`, `policyEvaluations`).
 */
import {
  AuditEntrySchema,
  type AuditStore,
  type AuthenticatedContext,
  type Clock,
  defineRoute,
  errorSpec as err,
  type GatewayPlugin,
  guardPort,
  hasRole,
  IdParams,
  type OrgDirectory,
  queryObject,
  type RunAudited,
  type SecretStore,
} from '@agentgov/core';
import { z } from 'zod';
import { type AuditLog, createAuditLog } from '../log';
import { AuditExportQueryParams, AuditQueryParams, toAuditExportQuery, toAuditQuery } from '../query';
import { isAnonymizedPlaceholder } from '../records';
import { type AuditService, type AuditVisibility, createAuditService } from '../service';

export interface AuditRoutesOptions {
  store: AuditStore;
  /** Holds the commitment and checkpoint keys (see `ensureAuditKeysOrThrow`). */
  secrets: SecretStore;
  /** The org tree: an org_admin reads the entries of the users of their org. */
  directory: OrgDirectory;
  clock?: Clock;
  /** The log the other plugins and the kernel append to (default: a new one over `store`). */
  log?: AuditLog;
  /** GDPR erasure and its entry in one transaction (see `AuditServiceOptions.transaction`). */
  transaction?: RunAudited;
}

/** The audit plugin, with the service it serves (for in-process use beside HTTP). */
export interface AuditPlugin extends GatewayPlugin {
  readonly service: AuditService;
}

/** Whose entries a principal reads: the tenant (enterprise_admin), their org's users and themselves (org_admin), or their own. */
export async function auditVisibility(
  directory: OrgDirectory,
  rc: Pick<AuthenticatedContext, 'principal'>,
): Promise<AuditVisibility> {
  const p = rc.principal;
  if (hasRole(p, 'enterprise_admin')) return { tenantId: p.tenantId };
  if (hasRole(p, 'org_admin') && p.orgUnit) {
    const users = await directory.users(p.tenantId, { scope: 'org', scopeId: p.orgUnit });
    return { tenantId: p.tenantId, userIds: [...new Set([...users, p.userId])] };
  }
  return { tenantId: p.tenantId, userIds: [p.userId] };
}

const AuditEntryOut = AuditEntrySchema.meta({ id: 'AuditEntry' });
/** A tree size in a query: a positive decimal integer. */
const Size = z
  .string()
  .regex(/^[1-9][0-9]{0,14}$/, 'must be a positive integer')
  .transform(Number);
const Hex = z.string().regex(/^[0-9a-f]{64}$/);
const CheckpointOut = z
  .object({
    tenantId: z.string(),
    treeSize: z.number().int(),
    rootHash: Hex,
    issuedAt: z.string(),
    jws: z.string(),
    origin: z.string(),
    note: z.string(),
    verifierKey: z.string(),
  })
  .meta({ id: 'AuditCheckpoint' });
const InclusionOut = z
  .object({
    entryId: z.string(),
    seq: z.number().int(),
    leafIndex: z.number().int(),
    leafHash: Hex,
    treeSize: z.number().int(),
    rootHash: Hex,
    proof: z.array(Hex),
  })
  .meta({ id: 'InclusionProof' });
const ConsistencyOut = z
  .object({ size1: z.number().int(), size2: z.number().int(), root1: Hex, root2: Hex, proof: z.array(Hex) })
  .meta({ id: 'ConsistencyProof' });
const PROOF_READERS = ['enterprise_admin'] as const;
const Page = z.object({ entries: z.array(AuditEntryOut), total: z.number().int() });

/**
 * A read's filter as its `data_access` entry keeps it: the user it asked about as
 * `subjectUserId`, one of the log's committed identifier paths (PERSONAL_IDENTIFIER_PATHS), so a
 * GDPR erasure of that user reaches it — never in clear inside `filter`.
 */
function accessFilter(filter: object | undefined): Record<string, unknown> {
  if (!filter) return {};
  const { userId, ...rest } = filter as Record<string, unknown>;
  // An erased user's placeholder (`anon:…`) is no person's id, and no identifier path takes it.
  if (typeof userId !== 'string' || isAnonymizedPlaceholder(userId)) return { filter };
  return { filter: rest, subjectUserId: userId };
}

export function auditRoutes(options: AuditRoutesOptions): AuditPlugin {
  const store = guardPort(options.store, 'audit store');
  const directory = guardPort(options.directory, 'org directory');
  const log = options.log ?? createAuditLog({ ...options, store });
  const service = createAuditService({ ...options, store, log });

  async function recordAccess(rc: AuthenticatedContext, detail: Record<string, unknown>): Promise<void> {
    const r = await log.append({
      tenantId: rc.tenantId,
      userId: rc.principal.userId,
      actionType: 'data_access',
      actionDetail: detail,
      dataAccessed: [{ source: 'audit', classification: 'confidential', purpose: String(detail.operation) }],
      dataClassification: 'confidential',
      policyApplied: 'rbac:audit',
      policyResult: 'allow',
      outcome: 'success',
      requestId: rc.requestId,
    });
    if (r.isErr()) throw r.error;
  }

  const total = async (tenantId: string, filter: Parameters<AuditStore['query']>[1]) =>
    (await store.query(tenantId, filter, { offset: 0, limit: 1 })).total;

  return {
    name: 'audit',
    service,
    async metrics(tenantId) {
      const [auditEntries, policyEvaluations] = await Promise.all([
        store.count(tenantId),
        total(tenantId, { actionType: 'policy_decision' }),
      ]);
      return { auditEntries, policyEvaluations };
    },
    routes: [
      defineRoute({
        method: 'GET',
        path: '/audit',
        operationId: 'queryAudit',
        summary: 'Filtered, paginated audit query (newest first), scoped by tenant and role',
        auth: 'required',
        rateLimit: 'audit_queries',
        query: AuditQueryParams,
        responses: {
          200: { description: 'A page of entries and the total', schema: Page },
          400: err('invalid_type'),
        },
        async handler({ url, query: params }, rc) {
          const query = toAuditQuery(params);
          const page = await service.query(await auditVisibility(directory, rc), queryObject(url));
          if (page.isErr()) throw page.error;
          await recordAccess(rc, {
            operation: 'audit.query',
            ...accessFilter(query.filter),
            page: query.page,
            pageSize: query.pageSize,
            returned: page.value.entries.length,
          });
          const { snapshot, ...body } = page.value;
          return { status: 200, body, headers: { 'x-audit-snapshot': String(snapshot) } };
        },
      }),
      defineRoute({
        method: 'GET',
        path: '/audit/export',
        operationId: 'exportAudit',
        summary: 'Compliance export of the tenant, streamed as JSON {entries, total} or CSV',
        auth: 'required',
        roles: ['enterprise_admin'],
        rateLimit: 'audit_export',
        query: AuditExportQueryParams,
        responses: {
          200: { description: 'The export (application/json or text/csv)', schema: Page },
          403: err('forbidden'),
        },
        async handler({ url, query: params, request }, rc) {
          const query = toAuditExportQuery(params);
          const exported = await service.export(await auditVisibility(directory, rc), queryObject(url), {
            signal: rc.signal,
          });
          if (exported.isErr()) throw exported.error;
          // A HEAD (answered by this GET route) is served no entries: the stream is let go unread,
          // and there is no access to record.
          if (request.method === 'HEAD') {
            await exported.value.body.cancel();
            return new Response(null, { status: 200, headers: exported.value.headers });
          }
          // Recorded when the export starts: a client that stops reading has still been served data.
          await recordAccess(rc, {
            operation: 'audit.export',
            format: query.format,
            ...accessFilter(query.filter),
          });
          return new Response(exported.value.body, { status: 200, headers: exported.value.headers });
        },
      }),
      defineRoute({
        method: 'GET',
        path: '/audit/checkpoint',
        operationId: 'getAuditCheckpoint',
        summary:
          'The latest signed checkpoint: JWS and C2SP tlog-checkpoint signed note (text/plain with Accept: text/plain)',
        auth: 'required',
        roles: PROOF_READERS,
        rateLimit: 'audit_queries',
        responses: {
          200: { description: 'The checkpoint', schema: CheckpointOut },
          404: err('NOT_FOUND: no checkpoint yet'),
        },
        async handler({ request }, rc) {
          const latest = await log.latestCheckpoint(rc.tenantId);
          if (latest.isErr()) throw latest.error;
          await recordAccess(rc, { operation: 'audit.checkpoint', treeSize: latest.value.treeSize });
          const accept = request.headers.get('accept') ?? '';
          if (accept.includes('text/plain') && !accept.includes('application/json')) {
            return new Response(latest.value.note, {
              status: 200,
              headers: { 'content-type': 'text/plain; charset=utf-8' },
            });
          }
          return { status: 200, body: latest.value };
        },
      }),
      defineRoute({
        method: 'GET',
        path: '/audit/consistency',
        operationId: 'proveAuditConsistency',
        summary: 'RFC 9162 consistency proof between the trees of `from` and `to` entries',
        auth: 'required',
        roles: PROOF_READERS,
        rateLimit: 'audit_queries',
        query: z.object({ from: Size, to: Size }),
        responses: {
          200: { description: 'The proof', schema: ConsistencyOut },
          400: err('invalid_type: sizes out of range'),
        },
        async handler({ query }, rc) {
          const proof = await log.proveConsistency(rc.tenantId, query.from, query.to);
          if (proof.isErr()) throw proof.error;
          await recordAccess(rc, { operation: 'audit.consistency', from: query.from, to: query.to });
          return { status: 200, body: proof.value };
        },
      }),
      defineRoute({
        method: 'GET',
        path: '/audit/{id}/proof',
        operationId: 'proveAuditInclusion',
        summary: 'RFC 9162 inclusion proof of one entry (tree size: `treeSize`, else the latest checkpoint)',
        auth: 'required',
        roles: PROOF_READERS,
        rateLimit: 'audit_queries',
        params: IdParams,
        query: z.object({ treeSize: Size.optional() }),
        responses: {
          200: { description: 'The proof', schema: InclusionOut },
          400: err('invalid_type: tree size out of range, or no checkpoint yet'),
          404: err('NOT_FOUND'),
        },
        async handler({ params, query }, rc) {
          const proof = await log.proveInclusion(rc.tenantId, params.id, query.treeSize);
          if (proof.isErr()) throw proof.error;
          await recordAccess(rc, {
            operation: 'audit.proof',
            entryId: params.id,
            treeSize: proof.value.treeSize,
          });
          const { checkpoint: _checkpoint, ...body } = proof.value;
          return { status: 200, body };
        },
      }),
      defineRoute({
        method: 'GET',
        path: '/audit/{id}',
        operationId: 'getAuditEntry',
        summary: 'One audit entry of the tenant (visible to the caller)',
        auth: 'required',
        rateLimit: 'audit_queries',
        params: IdParams,
        responses: { 200: { description: 'The entry', schema: AuditEntryOut }, 404: err('NOT_FOUND') },
        async handler({ params }, rc) {
          const entry = await service.get(await auditVisibility(directory, rc), params.id);
          if (entry.isErr()) throw entry.error;
          await recordAccess(rc, { operation: 'audit.get', entryId: params.id });
          return { status: 200, body: entry.value };
        },
      }),
    ],
  };
}
