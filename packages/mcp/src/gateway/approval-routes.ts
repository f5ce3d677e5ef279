/**
 * The inbox routes of the MCP plugin (mounted by `./routes`): `GET /mcp/approvals`,
 * `POST /mcp/approvals/{id}/approve|reject` and `GET /mcp/notices` — the tool calls waiting for
 * (or decided by) a human, and the `notify` calls users were told about. What a caller sees is
 * scoped: their own calls; an org_admin's org (with a directory); the enterprise_admin's tenant.
 * The approver is the user whose call it is or an admin over them; every decision is audited.
 * Every approval answered carries `arguments`, the canonical JSON of the call's arguments (the text
 * `argumentsDigest` is the SHA-256 of), so the approver sees what they approve rather than what the
 * assistant says it is; an approval recorded before the arguments were kept has none.
 */
import {
  type AuditSink,
  type AuthenticatedContext,
  type Clock,
  defineRoute,
  errorSpec as err,
  ForbiddenError,
  GovernanceError,
  hasRole,
  IdParams,
  NotFoundError,
  type OrgDirectory,
  type ToolApproval,
  ToolApprovalSchema,
  ToolApprovalStatusSchema,
  type ToolCallInbox,
  ToolNoticeSchema,
} from '@agentgov/core';
import { z } from 'zod';

const ApprovalOut = ToolApprovalSchema.meta({ id: 'ToolApproval' });
const NoticeOut = ToolNoticeSchema.meta({ id: 'ToolNotice' });

export const ApprovalListQuery = z.object({
  status: ToolApprovalStatusSchema.optional(),
  userId: z.string().min(1).max(255).optional(),
});

export const ApprovalDecisionBody = z.strictObject({ note: z.string().max(4096).optional() });

/** Most approvals or notices one list answers (the newest). */
const LIST_LIMIT = 500;

/** The inbox's routes, over `inbox`, auditing decisions to `audit`. */
export function approvalRoutes(deps: {
  inbox: ToolCallInbox;
  audit: AuditSink;
  directory: OrgDirectory | undefined;
  clock: Clock;
}) {
  const { inbox, audit, directory, clock } = deps;

  /** The user the users' list of `viewer` covers: undefined = the whole tenant. */
  const scopeOf = async (rc: AuthenticatedContext): Promise<readonly string[] | undefined> => {
    const p = rc.principal;
    if (hasRole(p, 'enterprise_admin')) return undefined;
    if (directory && p.orgUnit && hasRole(p, 'org_admin')) {
      const users = await directory.users(rc.tenantId, { scope: 'org', scopeId: p.orgUnit });
      return [...new Set([...users, p.userId])];
    }
    return [p.userId];
  };
  const decide = (approved: boolean) =>
    defineRoute({
      method: 'POST',
      path: `/mcp/approvals/{id}/${approved ? 'approve' : 'reject'}`,
      operationId: approved ? 'approveToolCall' : 'rejectToolCall',
      summary: approved
        ? 'Approve one pending tool call (this tool, these arguments, once); the assistant calls again to run it'
        : 'Reject one pending tool call',
      auth: 'required',
      rateLimit: 'mcp_decisions',
      params: IdParams,
      body: ApprovalDecisionBody,
      responses: {
        200: {
          description: 'The approval with the decision recorded (and the arguments it was for)',
          schema: ApprovalOut,
        },
        403: err('forbidden (neither the user nor an admin over them)'),
        404: err('NOT_FOUND (no such approval, or it is no longer pending)'),
      },
      async handler({ params, body }, rc) {
        const a = await inbox.get(rc.tenantId, params.id, clock.now());
        const scope = await scopeOf(rc);
        if (!a || (scope && !scope.includes(a.userId)))
          throw new NotFoundError(`Tool-call approval ${params.id}`);
        if (a.userId !== rc.principal.userId && !hasRole(rc.principal, 'enterprise_admin', 'org_admin'))
          throw new ForbiddenError('Only the user or an admin over them decides this call');
        const decided = await inbox.decide(
          rc.tenantId,
          params.id,
          { approved, by: rc.principal.userId, ...(body.note ? { note: body.note } : {}) },
          clock.now(),
        );
        // Decided, used or expired meanwhile: gone from the inbox (404, as the console expects).
        if (!decided)
          throw new GovernanceError(
            'NOT_FOUND',
            `Tool-call approval ${params.id} is ${a.status}, no longer pending`,
          );
        const audited = await audit.append(decisionAudit(decided, rc.requestId));
        if (audited.isErr()) throw audited.error;
        return { status: 200, body: decided };
      },
    });
  return [
    defineRoute({
      method: 'GET',
      path: '/mcp/approvals',
      operationId: 'listToolCallApprovals',
      summary:
        'Tool calls waiting for (or decided by) a human: the caller’s own; an org_admin’s org; the enterprise_admin’s tenant',
      auth: 'required',
      rateLimit: 'mcp_reads',
      query: ApprovalListQuery,
      responses: {
        200: {
          description:
            'Approvals, newest first, each with the canonical JSON of its arguments (`arguments`, absent on one recorded before they were kept)',
          schema: z.object({ approvals: z.array(ApprovalOut) }),
        },
      },
      async handler({ query }, rc) {
        const scope = await scopeOf(rc);
        const userIds = query.userId ? (scope && !scope.includes(query.userId) ? [] : [query.userId]) : scope;
        const approvals = await inbox.list(rc.tenantId, clock.now(), {
          ...(userIds ? { userIds } : {}),
          ...(query.status ? { status: query.status } : {}),
          limit: LIST_LIMIT,
        });
        return { status: 200, body: { approvals } };
      },
    }),
    decide(true),
    decide(false),
    defineRoute({
      method: 'GET',
      path: '/mcp/notices',
      operationId: 'listToolCallNotices',
      summary: 'Calls of `notify` tools the users were told about (scoped as the approvals)',
      auth: 'required',
      rateLimit: 'mcp_reads',
      responses: {
        200: { description: 'Notices, newest first', schema: z.object({ notices: z.array(NoticeOut) }) },
      },
      async handler(_input, rc) {
        const scope = await scopeOf(rc);
        return {
          status: 200,
          body: {
            notices: await inbox.notices(rc.tenantId, {
              ...(scope ? { userIds: scope } : {}),
              limit: LIST_LIMIT,
            }),
          },
        };
      },
    }),
  ];
}

/** The audit entry of a human's decision on a tool call. */
function decisionAudit(a: ToolApproval, requestId: string) {
  return {
    tenantId: a.tenantId,
    userId: a.userId,
    actionType: 'tool_invocation' as const,
    actionDetail: {
      event: a.status === 'approved' ? 'approval_granted' : 'approval_rejected',
      approvalId: a.id,
      tool: a.tool,
      upstream: a.upstream,
      argumentsDigest: a.argumentsDigest,
      approverUserId: a.decidedBy,
    },
    policyApplied: 'actions',
    policyResult: 'require_approval' as const,
    policyReason: a.reason.slice(0, 2000),
    outcome: a.status === 'approved' ? ('success' as const) : ('denied' as const),
    requestId,
  };
}
