import type { ScopeRef } from '../vocabulary';
import type { OrgDirectory, UserPlacement } from './port';
import { type OrgDirectoryDefinition, OrgDirectoryDefinitionSchema } from './schema';

interface TenantTree {
  orgs: Set<string>;
  teamOrg: Map<string, string | undefined>;
  userOrg: Map<string, string | undefined>;
  userTeam: Map<string, string | undefined>;
}

/** An org directory held in memory: loaded from a static definition and/or learned from claims. */
export class InMemoryOrgDirectory implements OrgDirectory {
  readonly #tenants = new Map<string, TenantTree>();

  static fromDefinitions(...definitions: OrgDirectoryDefinition[]): InMemoryOrgDirectory {
    const dir = new InMemoryOrgDirectory();
    for (const raw of definitions) {
      const def = OrgDirectoryDefinitionSchema.parse(raw);
      const tree = dir.#tree(def.tenant);
      for (const [org, body] of Object.entries(def.orgs)) {
        tree.orgs.add(org);
        for (const [team, users] of Object.entries(body?.teams ?? {})) {
          tree.teamOrg.set(team, org);
          for (const u of users ?? []) dir.#placeSync(def.tenant, u, { orgUnit: org, team });
        }
        for (const u of body?.users ?? []) dir.#placeSync(def.tenant, u, { orgUnit: org });
      }
    }
    return dir;
  }

  #tree(tenantId: string): TenantTree {
    let t = this.#tenants.get(tenantId);
    if (!t) {
      t = { orgs: new Set(), teamOrg: new Map(), userOrg: new Map(), userTeam: new Map() };
      this.#tenants.set(tenantId, t);
    }
    return t;
  }

  #placeSync(tenantId: string, userId: string, placement: UserPlacement): void {
    const t = this.#tree(tenantId);
    const team = placement.team || undefined;
    const org = placement.orgUnit || (team ? t.teamOrg.get(team) : undefined);
    if (org) t.orgs.add(org);
    if (team && (org || !t.teamOrg.has(team))) t.teamOrg.set(team, org);
    t.userOrg.set(userId, org);
    t.userTeam.set(userId, team);
  }

  async place(tenantId: string, userId: string, placement: UserPlacement): Promise<void> {
    this.#placeSync(tenantId, userId, placement);
  }

  async ancestry(tenantId: string, node: ScopeRef): Promise<ScopeRef[]> {
    const t = this.#tenants.get(tenantId);
    const chain: ScopeRef[] = [{ scope: 'enterprise', scopeId: tenantId }];
    if (node.scope === 'enterprise') return node.scopeId === tenantId ? chain : [...chain];
    if (node.scope === 'org') return [...chain, node];
    if (node.scope === 'team') {
      const org = t?.teamOrg.get(node.scopeId);
      if (org) chain.push({ scope: 'org', scopeId: org });
      return [...chain, node];
    }
    const team = t?.userTeam.get(node.scopeId);
    const org = t?.userOrg.get(node.scopeId) ?? (team ? t?.teamOrg.get(team) : undefined);
    if (org) chain.push({ scope: 'org', scopeId: org });
    if (team) chain.push({ scope: 'team', scopeId: team });
    return [...chain, node];
  }

  async knows(tenantId: string, node: ScopeRef): Promise<boolean> {
    const t = this.#tenants.get(tenantId);
    switch (node.scope) {
      case 'enterprise':
        return node.scopeId === tenantId;
      case 'org':
        return t?.orgs.has(node.scopeId) ?? false;
      case 'team':
        return t?.teamOrg.has(node.scopeId) ?? false;
      default:
        return t?.userOrg.has(node.scopeId) ?? false;
    }
  }

  async children(tenantId: string, node: ScopeRef): Promise<ScopeRef[]> {
    const t = this.#tenants.get(tenantId);
    if (!t) return [];
    const sorted = (ids: Iterable<string>) => [...new Set(ids)].sort();
    switch (node.scope) {
      case 'enterprise':
        return node.scopeId === tenantId ? sorted(t.orgs).map((scopeId) => ({ scope: 'org', scopeId })) : [];
      case 'org': {
        const teams = sorted([...t.teamOrg].filter(([, o]) => o === node.scopeId).map(([team]) => team));
        const loose = sorted(
          [...t.userOrg].filter(([u, o]) => o === node.scopeId && !t.userTeam.get(u)).map(([u]) => u),
        );
        return [
          ...teams.map((scopeId): ScopeRef => ({ scope: 'team', scopeId })),
          ...loose.map((scopeId): ScopeRef => ({ scope: 'user', scopeId })),
        ];
      }
      case 'team':
        return sorted([...t.userTeam].filter(([, team]) => team === node.scopeId).map(([u]) => u)).map(
          (scopeId) => ({
            scope: 'user',
            scopeId,
          }),
        );
      default:
        return [];
    }
  }

  async users(tenantId: string, within?: ScopeRef): Promise<string[]> {
    const t = this.#tenants.get(tenantId);
    if (!t) return [];
    const all = [...t.userOrg.keys()];
    const keep = (u: string): boolean => {
      if (!within || within.scope === 'enterprise') return true;
      const team = t.userTeam.get(u);
      if (within.scope === 'team') return team === within.scopeId;
      if (within.scope === 'org')
        return (t.userOrg.get(u) ?? (team ? t.teamOrg.get(team) : undefined)) === within.scopeId;
      return u === within.scopeId;
    };
    return all.filter(keep).sort();
  }
}
