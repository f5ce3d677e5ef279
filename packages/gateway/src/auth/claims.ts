/** ID-token claims → the principal (spec: `sub`, `email`, `roles`, `tenant_id`, `org_unit`; plus `team`). */
import { type Principal, ROLES, type Role } from '@agentgov/core';

const ROLE_SET = new Set<string>(ROLES);

/** `roles` claim → known roles (an array, or one space/comma separated string); unknown roles are dropped; none → ['user']. */
export function rolesFromClaim(value: unknown): Role[] {
  const raw: unknown[] = Array.isArray(value)
    ? value
    : typeof value === 'string'
      ? value.split(/[\s,]+/)
      : [];
  const roles = [...new Set(raw.filter((r): r is Role => typeof r === 'string' && ROLE_SET.has(r)))];
  return roles.length > 0 ? roles : ['user'];
}

function optionalString(value: unknown): string | null {
  return typeof value === 'string' && value.length > 0 && value.length <= 255 ? value : null;
}

export type ClaimsResult = { ok: true; principal: Principal } | { ok: false; reason: string };

/** Maps ID-token claims (`sub`, `email`, `roles`, `tenant_id`, `org_unit`, `team`) to a principal. */
export function principalFromClaims(claims: Record<string, unknown>, via: Principal['via']): ClaimsResult {
  const sub = claims.sub;
  const tenant = claims.tenant_id;
  if (typeof sub !== 'string' || sub.length === 0 || sub.length > 255)
    return { ok: false, reason: 'the token has no usable sub claim' };
  if (typeof tenant !== 'string' || tenant.length === 0 || tenant.length > 255)
    return { ok: false, reason: 'the token has no tenant_id claim' };
  return {
    ok: true,
    principal: {
      userId: sub,
      email: typeof claims.email === 'string' ? claims.email : '',
      roles: rolesFromClaim(claims.roles),
      tenantId: tenant,
      orgUnit: optionalString(claims.org_unit),
      team: optionalString(claims.team),
      via,
    },
  };
}
