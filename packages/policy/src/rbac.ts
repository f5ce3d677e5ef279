/**
 * Who may see and who may write a policy, by role and by where its target sits in the org tree
 * (spec: Authentication, roles table). Pure functions over scope chains, and the check that a
 * policy's target node exists in the org tree.
 */
import { type OrgDirectory, type Role, type ScopeRef, ValidationError } from '@agentgov/core';
import { err, ok, type Result } from 'neverthrow';

/**
 * The caller whose rights are checked: the fields of `@agentgov/core`'s Principal that policy
 * decisions use, so the gateway's request context principal is passed as it is.
 */
export interface Principal {
  userId: string;
  tenantId: string;
  roles: readonly Role[];
  orgUnit?: string | null | undefined;
  team?: string | null | undefined;
}

const has = (
  chain: readonly ScopeRef[],
  scope: ScopeRef['scope'],
  scopeId: string | null | undefined,
): boolean => scopeId != null && chain.some((r) => r.scope === scope && r.scopeId === scopeId);

/**
 * The principal's own chain: enterprise, org, team, user. Claims (`orgUnit`, `team`) win over the
 * directory; missing ones are looked up there.
 */
export async function principalChain(directory: OrgDirectory, principal: Principal): Promise<ScopeRef[]> {
  const known = await directory.ancestry(principal.tenantId, { scope: 'user', scopeId: principal.userId });
  const org = principal.orgUnit ?? known.find((r) => r.scope === 'org')?.scopeId;
  const team = principal.team ?? known.find((r) => r.scope === 'team')?.scopeId;
  const chain: ScopeRef[] = [{ scope: 'enterprise', scopeId: principal.tenantId }];
  if (org) chain.push({ scope: 'org', scopeId: org });
  if (team) chain.push({ scope: 'team', scopeId: team });
  chain.push({ scope: 'user', scopeId: principal.userId });
  return chain;
}

/**
 * Visibility (list, get): enterprise_admin sees everything; everyone sees the policies on their
 * own chain (enterprise, their org, their team, themselves); an org_admin also sees everything
 * inside their org; a team_lead everything inside their team.
 */
export function canSee(
  principal: Principal,
  target: ScopeRef,
  targetChain: readonly ScopeRef[],
  ownChain: readonly ScopeRef[],
): boolean {
  const roles = principal.roles;
  if (roles.includes('enterprise_admin')) return true;
  if (has(ownChain, target.scope, target.scopeId)) return true;
  if (roles.includes('org_admin') && has(targetChain, 'org', principal.orgUnit)) return true;
  if (roles.includes('team_lead') && has(targetChain, 'team', principal.team)) return true;
  return false;
}

/**
 * Writes (create, update, deprecate), by scope: enterprise_admin any scope; org_admin org, team
 * and user policies inside their org; team_lead team and user policies inside their team; user
 * their own user-scope policies (they can only restrict further, like every child).
 */
export function canManage(principal: Principal, target: ScopeRef, targetChain: readonly ScopeRef[]): boolean {
  const roles = principal.roles;
  if (roles.includes('enterprise_admin')) return true;
  if (
    roles.includes('org_admin') &&
    target.scope !== 'enterprise' &&
    has(targetChain, 'org', principal.orgUnit)
  )
    return true;
  if (
    roles.includes('team_lead') &&
    (target.scope === 'team' || target.scope === 'user') &&
    has(targetChain, 'team', principal.team)
  )
    return true;
  if (roles.includes('user') && target.scope === 'user' && target.scopeId === principal.userId) return true;
  return false;
}

/**
 * Checks that a target node exists: enterprise = the tenant; others known to the directory when it
 * knows the tenant. With `acceptUnseenOrgs` (a directory learned from sign-ins, which knows an org
 * only once one of its people has signed in) an org it has not seen is accepted: an org's parent is
 * always the enterprise, so its place is known. A team or user it has not seen is still refused
 * (its org, which the hierarchy and the roles need, is unknown).
 */
export async function checkTarget(
  directory: OrgDirectory,
  tenantId: string,
  ref: ScopeRef,
  options: { acceptUnseenOrgs?: boolean } = {},
): Promise<Result<ScopeRef[], ValidationError>> {
  if (ref.scope === 'enterprise') {
    return ref.scopeId === tenantId
      ? ok([ref])
      : err(
          ValidationError.invalid(
            'scopeId',
            `an enterprise policy's scopeId must be the tenant id '${tenantId}'`,
          ),
        );
  }
  const chain = await directory.ancestry(tenantId, ref);
  const orgs = await directory.children(tenantId, { scope: 'enterprise', scopeId: tenantId });
  if (orgs.length === 0) return ok(chain); // the directory does not know this tenant's tree (yet)
  const known =
    ref.scope === 'org'
      ? options.acceptUnseenOrgs === true || orgs.some((o) => o.scopeId === ref.scopeId)
      : ref.scope === 'team'
        ? chain.some((r) => r.scope === 'org')
        : (await directory.users(tenantId)).includes(ref.scopeId);
  return known
    ? ok(chain)
    : err(
        ValidationError.invalid('scopeId', `unknown ${ref.scope} '${ref.scopeId}' in tenant '${tenantId}'`),
      );
}
