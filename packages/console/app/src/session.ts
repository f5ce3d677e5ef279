/**
 * Who is signed in (GET /auth/userinfo), and what the console offers them. The API decides: the
 * console follows what userinfo reports (`effectivePermissions`, and the spec's roles table for
 * the few admin routes userinfo does not describe), never a role list of its own for policies.
 */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { components, paths } from './api/schema';

export type Me = paths['/api/v1/auth/userinfo']['get']['responses'][200]['content']['application/json'];
type Scope = components['schemas']['Policy']['scope'];

export const MeContext = createContext<Me | undefined>(undefined);

export function useMe(): Me {
  const me = useContext(MeContext);
  if (!me) throw new Error('useMe outside a signed-in console');
  return me;
}

/** Audit export and checkpoints, and the tenants list (spec: enterprise_admin). */
export const isEnterpriseAdmin = (me: Me) => me.roles.includes('enterprise_admin');
/** GET /metrics (spec: enterprise_admin or org_admin). */
export const canReadMetrics = (me: Me) =>
  me.roles.includes('enterprise_admin') || me.roles.includes('org_admin');

const DEPTH: Record<Scope, number> = { enterprise: 0, org: 1, team: 2, user: 3 };

/**
 * The node whose policies the caller manages (and everything below it), from userinfo's
 * `effectivePermissions`: `policyScope` at the caller's own tenant, org, team or user id.
 * Undefined when userinfo says the caller manages no policy (or names a scope the console does
 * not know, or one the caller has no node at).
 */
export function policyHome(me: Me): { scope: Scope; scopeId: string } | undefined {
  const { canManagePolicies, policyScope } = me.effectivePermissions;
  if (!canManagePolicies) return undefined;
  const id: Record<Scope, string | null | undefined> = {
    enterprise: me.tenantId,
    org: me.orgUnit,
    team: me.team,
    user: me.userId,
  };
  if (!Object.hasOwn(DEPTH, policyScope)) return undefined;
  const scopeId = id[policyScope as Scope];
  return scopeId ? { scope: policyScope as Scope, scopeId } : undefined;
}

/**
 * Whether the console offers to change (edit, deprecate) a policy the caller sees: one at the
 * caller's own node, or below it. The API lists the caller only policies on their own path and
 * inside their node, so a visible policy below the caller's scope is inside their node. The API
 * still decides each write (a refusal is shown as "your role does not allow this").
 */
export function mayManage(me: Me, target: { scope: Scope; scopeId: string }): boolean {
  const home = policyHome(me);
  if (!home || DEPTH[target.scope] < DEPTH[home.scope]) return false;
  return target.scope !== home.scope || target.scopeId === home.scopeId;
}
