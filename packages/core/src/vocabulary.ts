/**
 * Vocabulary shared by every domain (spec: "Resources and their fields"): timestamps, ids,
 * semantic versions, tenants, scopes and roles, and the two types every port method uses.
 * Timestamps are ISO 8601 strings.
 */
import { z } from 'zod';

export const Timestamp = z.iso.datetime({ offset: true });
export const Uuid = z.uuid();

/** Semantic version 2.0.0 (the regex published by semver.org). */
export const SEMVER_RE =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;
export const SemVer = z.string().max(255).regex(SEMVER_RE, 'must be a semantic version such as 1.0.0');

// ---------------------------------------------------------------------------------------------
// Tenancy, scopes and roles

export const SCOPES = ['enterprise', 'org', 'team', 'user'] as const;
export type Scope = (typeof SCOPES)[number];
export const ScopeSchema = z.enum(SCOPES);
/** Depth of a scope in the hierarchy: enterprise 0 … user 3. */
export const SCOPE_DEPTH: Readonly<Record<Scope, number>> = { enterprise: 0, org: 1, team: 2, user: 3 };

export const ROLES = ['enterprise_admin', 'org_admin', 'team_lead', 'user'] as const;
export type Role = (typeof ROLES)[number];
export const RoleSchema = z.enum(ROLES);

export const TenantIdSchema = z.string().min(1).max(255);

/** A node of the scope hierarchy: the enterprise (scopeId = tenant id), an org, a team or a user. */
export interface ScopeRef {
  scope: Scope;
  scopeId: string;
}

// ---------------------------------------------------------------------------------------------
// Ports

/**
 * Options every port method that may do I/O accepts.
 *
 * Conventions shared by every store port (`<domain>/port.ts`):
 * - every method is tenant-scoped: a record of another tenant is invisible (`undefined`/absent);
 * - records go in and come out as the zod-validated resource types of `<domain>/schema.ts` (ISO
 *   strings for timestamps), and what comes out equals what went in;
 * - a store never validates business rules — services do — but it never half-writes: a method
 *   either applies completely or throws.
 */
export interface CallOptions {
  signal?: AbortSignal;
}
