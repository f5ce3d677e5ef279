/** Who may act for whom: a user for themself; admins for users in their scope. */
import {
  type AuthenticatedContext,
  errorOf,
  hasRole,
  type OrgDirectory,
  type ScopeRef,
} from '@agentgov/core';

/**
 * Passes when the caller may read or act for `userId`: themself always; an enterprise_admin for any
 * known user of the tenant; an org_admin for users of their org; a team_lead for users of their
 * team. A user the tenant does not know → 400 invalid_type; a known user outside the caller's scope
 * (or any other user, for a plain user) → 403 forbidden.
 */
export async function assertMayActFor(
  rc: AuthenticatedContext,
  userId: string,
  directory: OrgDirectory,
): Promise<void> {
  const p = rc.principal;
  if (userId === p.userId) return;
  let within: ScopeRef | 'tenant' | undefined;
  if (hasRole(p, 'enterprise_admin')) within = 'tenant';
  else if (hasRole(p, 'org_admin') && p.orgUnit) within = { scope: 'org', scopeId: p.orgUnit };
  else if (hasRole(p, 'team_lead') && p.team) within = { scope: 'team', scopeId: p.team };
  if (!within) throw errorOf('forbidden', 'You may only ask for yourself');
  const known = await directory.users(rc.tenantId);
  if (!known.includes(userId))
    throw errorOf('invalid_type', `Unknown user ${userId}`, [{ path: 'userId', message: 'unknown user' }]);
  if (within !== 'tenant' && !(await directory.users(rc.tenantId, within)).includes(userId))
    throw errorOf('forbidden', `User ${userId} is outside your ${within.scope}`);
}
