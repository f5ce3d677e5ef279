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
   * org if known, else under the enterprise).
   */
  ancestry(tenantId: string, node: ScopeRef): Promise<ScopeRef[]>;
  /** Direct children of a node: orgs of the enterprise, teams of an org, users of a team. */
  children(tenantId: string, node: ScopeRef): Promise<ScopeRef[]>;
  /** Records where a user sits (learned from ID-token claims `org_unit` and `team`). */
  place(tenantId: string, userId: string, placement: UserPlacement): Promise<void>;
  /** Users known in the tenant, optionally only those inside an org or a team. */
  users(tenantId: string, within?: ScopeRef): Promise<string[]>;
}
