/**
 * What humans do with stored exchanges, independent of any agent runtime: list and read the
 * exchanges they may see (the humans involved; the tenant's admins), and approve or reject a
 * request that waits for a human. A decision is recorded durably (who, when, which request) with
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
  type Role,
} from '@agentgov/core';
import { writeAudit } from './audit';
import { policyDenied } from './context';
import { appended, casUpdate, ended, pendingApproval } from './record';

/** Roles that read every exchange of their tenant (the tenant's admins); everyone else reads the exchanges they take part in. */
export const EXCHANGE_ADMIN_ROLES: readonly Role[] = ['enterprise_admin'];

export interface Viewer {
  tenantId: string;
  userId: string;
  roles: readonly Role[];
}

export const isExchangeAdmin = (v: Pick<Viewer, 'roles'>): boolean =>
  v.roles.some((r) => EXCHANGE_ADMIN_ROLES.includes(r));

const involves = (x: Exchange, userId: string) =>
  x.initiatorUserId === userId || x.responderUserId === userId;

/** A page of the exchanges the viewer may see (admins: the tenant's; others: their own). */
export async function listExchanges(
  store: ExchangeStore,
  viewer: Viewer,
  filter: Omit<ExchangeListFilter, 'userId'> & { userId?: string },
  page: { offset: number; limit: number },
): Promise<{ exchanges: Exchange[]; total: number }> {
  const userId = isExchangeAdmin(viewer) ? filter.userId : viewer.userId;
  return store.list(viewer.tenantId, { ...filter, ...(userId !== undefined ? { userId } : {}) }, page);
}

/** One exchange, or NOT_FOUND when it does not exist or the viewer may not see it. */
export async function readExchange(
  store: ExchangeStore,
  viewer: Viewer,
  exchangeId: string,
): Promise<Exchange> {
  const x = await store.get(viewer.tenantId, exchangeId);
  if (!x || !(isExchangeAdmin(viewer) || involves(x, viewer.userId))) {
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
  await writeAudit(deps.audit, {
    tenantId: input.tenantId,
    userId: input.by,
    side: 'responder',
    event: expired ? 'expired' : input.decision,
    requestId: input.requestId ?? newId(),
    policyApplied: 'interchange:human-approval',
    result: expired || input.decision === 'rejected' ? 'deny' : 'allow',
    outcome: expired || input.decision === 'rejected' ? 'denied' : 'success',
    reason: expired ? 'the human decision window passed' : `${input.decision} by ${input.by}`,
    exchange: x,
  });
  if (expired) throw policyDenied('the human decision window passed', { outcome: 'expired' });
  return x;
}
