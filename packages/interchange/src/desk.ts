/**
 * What humans do with stored exchanges, independent of any agent runtime: list and read the
 * exchanges they may see (the humans involved; the tenant's enterprise_admin; an org_admin, those
 * of their org), and approve or reject a request that waits for a human. A decision is recorded durably (who, when, which request) with
 * a compare-and-set, so it is single-use; it is only valid before the request's `expiresAt`.
 * The responder's node turns an approval into the signed reply when it is next asked.
 */
import {
  type AuditSink,
  type Clock,
  type Exchange,
  type ExchangeListFilter,
  type ExchangeStore,
  errorOf,
  newId,
  type OrgDirectory,
  type Role,
} from '@agentgov/core';
import { writeAudit } from './audit';
import { policyDenied } from './context';
import { appended, casUpdate, ended, pendingApproval } from './record';

/** Roles that read every exchange of their tenant; an `org_admin` reads those of their org (see `exchangeVisibility`). */
export const EXCHANGE_ADMIN_ROLES: readonly Role[] = ['enterprise_admin'];

export interface Viewer {
  tenantId: string;
  userId: string;
  roles: readonly Role[];
  /** The viewer's org unit (an org_admin reads the exchanges of its users). */
  orgUnit?: string | null;
}

export const isExchangeAdmin = (v: Pick<Viewer, 'roles'>): boolean =>
  v.roles.some((r) => EXCHANGE_ADMIN_ROLES.includes(r));

/**
 * Whose exchanges a viewer reads, as the audit routes scope their reads (spec: roles table):
 * enterprise_admin the whole tenant (`userIds` absent); org_admin the exchanges in which a user
 * of their org (its teams included, from the org directory) or they themselves take part; everyone
 * else the exchanges they take part in. Without a directory an org_admin reads only their own.
 */
export async function exchangeVisibility(
  viewer: Viewer,
  directory?: Pick<OrgDirectory, 'users'>,
): Promise<{ userIds?: readonly string[] }> {
  if (isExchangeAdmin(viewer)) return {};
  if (directory && viewer.orgUnit && viewer.roles.includes('org_admin')) {
    const users = await directory.users(viewer.tenantId, { scope: 'org', scopeId: viewer.orgUnit });
    return { userIds: [...new Set([...users, viewer.userId])] };
  }
  return { userIds: [viewer.userId] };
}

const visible = (x: Exchange, scope: { userIds?: readonly string[] }): boolean =>
  scope.userIds === undefined ||
  scope.userIds.includes(x.initiatorUserId) ||
  scope.userIds.includes(x.responderUserId);

/**
 * A page of the exchanges the viewer may see (see `exchangeVisibility`), newest first. For the
 * admins `filter.userId` narrows to one participant inside their scope; anyone else always gets
 * the exchanges they take part in (`userId` is ignored, as it would only narrow their own list).
 */
export async function listExchanges(
  store: ExchangeStore,
  viewer: Viewer,
  filter: Omit<ExchangeListFilter, 'userIds'>,
  page: { offset: number; limit: number },
  directory?: Pick<OrgDirectory, 'users'>,
): Promise<{ exchanges: Exchange[]; total: number }> {
  const scope = await exchangeVisibility(viewer, directory);
  const own = scope.userIds?.length === 1 && scope.userIds[0] === viewer.userId;
  const { userId, ...rest } = filter;
  return store.list(
    viewer.tenantId,
    { ...rest, ...scope, ...(userId !== undefined && !own ? { userId } : {}) },
    page,
  );
}

/** One exchange, or NOT_FOUND when it does not exist in the viewer's tenant or the viewer may not see it. */
export async function readExchange(
  store: ExchangeStore,
  viewer: Viewer,
  exchangeId: string,
  directory?: Pick<OrgDirectory, 'users'>,
): Promise<Exchange> {
  const x = await store.get(viewer.tenantId, exchangeId);
  if (!x || !visible(x, await exchangeVisibility(viewer, directory))) {
    throw errorOf('NOT_FOUND', 'The exchange does not exist');
  }
  return x;
}

export interface HumanDecisionInput {
  tenantId: string;
  exchangeId: string;
  /** The human deciding: must be the responder's human (the one asked to commit). */
  by: string;
  decision: 'approved' | 'rejected';
  /** When given, must name the pending request (binds the decision to it). */
  approvalId?: string;
  note?: string;
  requestId?: string;
}

/** Records a human's decision on the open request of an exchange. */
export async function recordHumanDecision(
  deps: { store: ExchangeStore; audit: AuditSink; clock: Clock },
  input: HumanDecisionInput,
): Promise<Exchange> {
  const { store, clock } = deps;
  const first = await store.get(input.tenantId, input.exchangeId);
  if (!first) throw errorOf('NOT_FOUND', 'The exchange does not exist');
  if (first.responderUserId !== input.by) {
    throw errorOf('forbidden', 'Only the human whose assistant was asked may decide');
  }
  let expired = false;
  const x = await casUpdate(store, input.tenantId, input.exchangeId, (c) => {
    expired = false;
    const open = pendingApproval(c);
    if (!open || open.decision || c.outcome !== 'in_progress') {
      throw errorOf('NOT_FOUND', 'No request of this exchange awaits a human decision', {
        reason: 'nothing_pending',
      });
    }
    if (input.approvalId !== undefined && input.approvalId !== open.request.approvalId) {
      throw errorOf('NOT_FOUND', 'No request with this approval id awaits a decision', {
        reason: 'approval_mismatch',
      });
    }
    const now = clock.now();
    if (now.getTime() >= Date.parse(open.request.expiresAt)) {
      expired = true;
      return ended(c, 'expired', now.toISOString(), 'the human decision window passed');
    }
    const decided = appended(c, {
      kind: 'human_decision',
      round: open.request.round,
      approvalId: open.request.approvalId,
      decision: input.decision,
      by: input.by,
      at: now.toISOString(),
      ...(input.note ? { note: input.note } : {}),
    });
    return input.decision === 'rejected'
      ? ended(decided, 'denied', now.toISOString(), 'rejected by a human')
      : decided;
  });
  const who = { tenantId: input.tenantId, userId: input.by, policyApplied: 'interchange:human-approval' };
  await writeAudit(
    deps.audit,
    {
      side: 'responder',
      event: expired ? 'expired' : input.decision,
      requestId: input.requestId ?? newId(),
      result: expired || input.decision === 'rejected' ? 'deny' : 'allow',
      outcome: expired || input.decision === 'rejected' ? 'denied' : 'success',
      // Who decided is the entry's userId (a committed identifier, erasable); never in the text.
      reason: expired ? 'the human decision window passed' : `${input.decision} by the human asked`,
      exchange: x,
    },
    who,
  );
  if (expired) throw policyDenied('the human decision window passed', { outcome: 'expired' });
  return x;
}
