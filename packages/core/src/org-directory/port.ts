/** Org directory: which users are in which team, which teams in which org, in one tenant. */
import type { ScopeRef } from '../vocabulary';

export interface UserPlacement {
  orgUnit?: string | undefined;
  team?: string | undefined;
}

export interface OrgDirectory {
  /**
   * The chain of scope nodes from the enterprise (scopeId = tenant id) down to and including
   * `node`, e.g. [enterprise acme, org eng, team platform, user alice]. Nodes the directory does
   * not know are placed directly under the enterprise (a user with no known team under their
   * org if known, else under the enterprise): check `knowsNode` before deciding on such a chain.
   */
  ancestry(tenantId: string, node: ScopeRef): Promise<ScopeRef[]>;
  /** Direct children of a node: orgs of the enterprise, teams of an org, users of a team. */
  children(tenantId: string, node: ScopeRef): Promise<ScopeRef[]>;
  /** Records where a user sits (learned from ID-token claims `org_unit` and `team`). */
  place(tenantId: string, userId: string, placement: UserPlacement): Promise<void>;
  /** Users known in the tenant, optionally only those inside an org or a team. */
  users(tenantId: string, within?: ScopeRef): Promise<string[]>;
  /**
   * Optional fast path of `knowsNode`: true when the directory knows the node (a placed user, an
   * org or team that has been named in a placement or definition; the tenant's own enterprise).
   */
  knows?(tenantId: string, node: ScopeRef): Promise<boolean>;
}

/**
 * Whether `directory` knows `node` in `tenantId`: its own `knows` when it has one, otherwise
 * derived from `users`, `children` and `ancestry`. Decisions are only computed for known nodes:
 * `ancestry` places unknown ones under the enterprise, a partial chain that must not decide.
 */
export async function knowsNode(directory: OrgDirectory, tenantId: string, node: ScopeRef): Promise<boolean> {
  if (node.scope === 'enterprise') return node.scopeId === tenantId;
  if (directory.knows) return directory.knows(tenantId, node);
  if (node.scope === 'user') return (await directory.users(tenantId, node)).includes(node.scopeId);
  if ((await directory.users(tenantId, node)).length > 0) return true;
  if (node.scope === 'org') {
    const orgs = await directory.children(tenantId, { scope: 'enterprise', scopeId: tenantId });
    return orgs.some((r) => r.scopeId === node.scopeId);
  }
  return (await directory.ancestry(tenantId, node)).length > 2;
}
