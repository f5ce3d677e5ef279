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

/** Control characters (C0 with NUL, DEL, C1): no identifier or address carries them. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * Text that can be an identifier everywhere it goes (audit entries, the database, canonical JSON,
 * logs): well-formed UTF-16 (no lone surrogate) and no control character.
 */
export function isCleanText(value: string): boolean {
  return (value as string & { isWellFormed(): boolean }).isWellFormed() && !CONTROL.test(value);
}

export type ClaimsResult = { ok: true; principal: Principal } | { ok: false; reason: string };

/** The claims a principal is made of, as they are named in the token. */
const TEXT_CLAIMS = ['sub', 'tenant_id', 'email', 'org_unit', 'team'] as const;

/**
 * Maps ID-token claims (`sub`, `email`, `roles`, `tenant_id`, `org_unit`, `team`) to a principal.
 * A claim it reads that holds a NUL or another control character, or a lone surrogate, refuses the
 * token (at authentication: a 401, never a principal whose id a store or the audit log refuses
 * later).
 */
export function principalFromClaims(claims: Record<string, unknown>, via: Principal['via']): ClaimsResult {
  const sub = claims.sub;
  const tenant = claims.tenant_id;
  if (typeof sub !== 'string' || sub.length === 0 || sub.length > 255)
    return { ok: false, reason: 'the token has no usable sub claim' };
  if (typeof tenant !== 'string' || tenant.length === 0 || tenant.length > 255)
    return { ok: false, reason: 'the token has no tenant_id claim' };
  for (const name of TEXT_CLAIMS) {
    const value = claims[name];
    if (typeof value === 'string' && !isCleanText(value))
      return { ok: false, reason: `the ${name} claim holds a control character or a lone surrogate` };
  }
  const roles = claims.roles;
  const roleList = Array.isArray(roles) ? roles : [roles];
  if (roleList.some((r) => typeof r === 'string' && !isCleanText(r)))
    return { ok: false, reason: 'the roles claim holds a control character or a lone surrogate' };
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
