/**
 * Role-based access as in the spec's role table. Who may manage which policy and read which audit
 * entries is decided here, from the principal's roles and the org tree (OrgDirectory).
 */
import type { OrgDirectory, Role, Scope } from '@agentgov/core';
import type { Principal } from './auth/principal';

export function hasRole(p: Principal, ...roles: readonly Role[]): boolean {
  return p.roles.some((r) => roles.includes(r));
}

/** Spec: "effectivePermissions" of GET /auth/userinfo. */
export interface EffectivePermissions {
  canManagePolicies: boolean;
  /** Highest scope whose policies (and everything below it, within the caller's node) the caller manages or reads. */
  policyScope: Scope;
  canQueryAudit: boolean;
  /** Whose audit entries the caller reads: the whole tenant, their org, or only their own. */
  auditScope: 'enterprise' | 'org' | 'user';
  canExportAudit: boolean;
  canManageConnectors: boolean;
  canManageTenants: boolean;
  canReadMetrics: boolean;
}

export function effectivePermissions(p: Principal): EffectivePermissions {
  const ea = hasRole(p, 'enterprise_admin');
  const oa = hasRole(p, 'org_admin') && p.orgUnit !== null;
  const tl = hasRole(p, 'team_lead') && p.team !== null;
  return {
    canManagePolicies: ea || oa || tl,
    policyScope: ea ? 'enterprise' : oa ? 'org' : tl ? 'team' : 'user',
    canQueryAudit: true,
    auditScope: ea ? 'enterprise' : oa ? 'org' : 'user',
    canExportAudit: ea,
    canManageConnectors: ea || hasRole(p, 'org_admin'),
    canManageTenants: ea,
    canReadMetrics: ea || hasRole(p, 'org_admin'),
  };
}

/**
 * The audit read scope of a principal: all entries of the tenant, those of a set of users
 * (org_admin: the users of their org, plus themselves), or only their own.
 */
export async function auditReadScope(
  dir: OrgDirectory,
  p: Principal,
): Promise<{ all: true } | { all: false; userIds: string[] }> {
  if (hasRole(p, 'enterprise_admin')) return { all: true };
  if (hasRole(p, 'org_admin') && p.orgUnit) {
    const users = await dir.users(p.tenantId, { scope: 'org', scopeId: p.orgUnit });
    return { all: false, userIds: [...new Set([...users, p.userId])] };
  }
  return { all: false, userIds: [p.userId] };
}
