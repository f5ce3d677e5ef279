/**
 * The effective permissions of a principal, as GET /auth/userinfo reports them (spec: roles table).
 * The domains enforce them (policy scopes in @agentgov/policy, audit read scopes in @agentgov/audit).
 */
import { hasRole, type Principal, type Scope } from '@agentgov/core';

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
