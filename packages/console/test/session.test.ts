/**
 * What the console offers for policies follows what the API says (`effectivePermissions` of
 * GET /auth/userinfo), checked against the API's own rules: for each dev account of the reference
 * server, userinfo as the gateway computes it, and every target of a small org tree — the console
 * offers a change (edit, deprecate) only where the policy service would allow it, and offers every
 * change it allows that the caller can see (as long as userinfo says the caller manages policies).
 */
import type { Role, ScopeRef } from '@agentgov/core';
import { effectivePermissions } from '@agentgov/gateway';
import { canManage, canSee } from '@agentgov/policy';
import { describe, expect, it } from 'vitest';
import { DEV_ACCOUNTS } from '../../../examples/server/src/dev-issuer';
import { type Me, mayManage, policyHome } from '../app/src/session';

/** The org tree: enterprise acme → orgs eng, sales → teams platform (eng), emea (sales) → users. */
const TEAM_OF: Record<string, [org: string, team: string]> = {
  alice: ['eng', 'platform'],
  bob: ['eng', 'platform'],
  dave: ['eng', 'platform'],
  carol: ['sales', 'emea'],
  erin: ['sales', 'emea'],
};
const chainOf = (t: ScopeRef): ScopeRef[] => {
  const e: ScopeRef = { scope: 'enterprise', scopeId: 'acme' };
  if (t.scope === 'enterprise') return [e];
  if (t.scope === 'org') return [e, t];
  if (t.scope === 'team') return [e, { scope: 'org', scopeId: t.scopeId === 'emea' ? 'sales' : 'eng' }, t];
  const [org, team] = TEAM_OF[t.scopeId] ?? ['eng', 'platform'];
  return [e, { scope: 'org', scopeId: org }, { scope: 'team', scopeId: team }, t];
};
const TARGETS: ScopeRef[] = [
  { scope: 'enterprise', scopeId: 'acme' },
  { scope: 'org', scopeId: 'eng' },
  { scope: 'org', scopeId: 'sales' },
  { scope: 'team', scopeId: 'platform' },
  { scope: 'team', scopeId: 'emea' },
  ...Object.keys(TEAM_OF).map((u): ScopeRef => ({ scope: 'user', scopeId: u })),
];

function signedIn(sub: string) {
  const a = DEV_ACCOUNTS.find((x) => x.sub === sub);
  if (!a) throw new Error(sub);
  const principal = {
    userId: a.sub,
    email: a.email,
    roles: a.roles as Role[],
    tenantId: a.tenant_id,
    orgUnit: a.org_unit ?? null,
    team: a.team ?? null,
    via: 'session' as const,
  };
  // GET /auth/userinfo's body, as the gateway answers it.
  const me: Me = {
    userId: a.sub,
    email: a.email,
    roles: a.roles,
    orgUnit: principal.orgUnit,
    tenantId: a.tenant_id,
    team: principal.team,
    effectivePermissions: effectivePermissions(principal),
  };
  return { principal, me };
}

describe('policy actions follow effectivePermissions', () => {
  it('a team_lead (carol) manages team and user policies of her team, nothing above it', () => {
    const { me } = signedIn('carol');
    expect(me.effectivePermissions).toMatchObject({ canManagePolicies: true, policyScope: 'team' });
    expect(policyHome(me)).toEqual({ scope: 'team', scopeId: 'emea' });
    expect(mayManage(me, { scope: 'team', scopeId: 'emea' })).toBe(true);
    expect(mayManage(me, { scope: 'user', scopeId: 'erin' })).toBe(true);
    expect(mayManage(me, { scope: 'org', scopeId: 'sales' })).toBe(false);
    expect(mayManage(me, { scope: 'enterprise', scopeId: 'acme' })).toBe(false);
  });

  it('an org_admin (bob) manages his org and below, not the enterprise policy', () => {
    const { me } = signedIn('bob');
    expect(policyHome(me)).toEqual({ scope: 'org', scopeId: 'eng' });
    expect(mayManage(me, { scope: 'org', scopeId: 'eng' })).toBe(true);
    expect(mayManage(me, { scope: 'team', scopeId: 'platform' })).toBe(true);
    expect(mayManage(me, { scope: 'enterprise', scopeId: 'acme' })).toBe(false);
  });

  it('a user (dave) is offered exactly what userinfo says: own policies only if it says he manages any', () => {
    const { me } = signedIn('dave');
    const manages = me.effectivePermissions.canManagePolicies;
    // The spec's POST /policies is for enterprise_admin, org_admin or team_lead: not a user.
    expect(manages).toBe(false);
    expect(policyHome(me)).toEqual(manages ? { scope: 'user', scopeId: 'dave' } : undefined);
    expect(mayManage(me, { scope: 'user', scopeId: 'dave' })).toBe(manages);
    expect(mayManage(me, { scope: 'team', scopeId: 'platform' })).toBe(false);
    // Had userinfo said so, the console would offer his own policies (and no one else's).
    const would = { ...me, effectivePermissions: { ...me.effectivePermissions, canManagePolicies: true } };
    expect(policyHome(would)).toEqual({ scope: 'user', scopeId: 'dave' });
    expect(mayManage(would, { scope: 'user', scopeId: 'dave' })).toBe(true);
    expect(mayManage(would, { scope: 'user', scopeId: 'erin' })).toBe(false);
  });

  it('for every account and visible target: offered ⇒ the policy service allows it; allowed ⇒ offered when userinfo says the caller manages policies', () => {
    for (const a of DEV_ACCOUNTS) {
      const { principal, me } = signedIn(a.sub);
      const own = chainOf({ scope: 'user', scopeId: a.sub });
      for (const target of TARGETS) {
        if (!canSee(principal, target, chainOf(target), own)) continue;
        const allowed = canManage(principal, target, chainOf(target));
        const offered = mayManage(me, target);
        const at = `${a.sub} → ${target.scope} ${target.scopeId}`;
        if (offered) expect(allowed, at).toBe(true);
        if (allowed && me.effectivePermissions.canManagePolicies) expect(offered, at).toBe(true);
      }
    }
  });
});
