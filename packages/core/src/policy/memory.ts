import { byKeys, copy, TenantMap } from '../memory-util';
import type { PolicyFilter, PolicyStore } from './port';
import type { Policy } from './schema';

export function matchesPolicyFilter(p: Policy, filter: PolicyFilter = {}): boolean {
  if (filter.scope && p.scope !== filter.scope) return false;
  if (filter.domain && p.domain !== filter.domain) return false;
  if (filter.status !== undefined) {
    const statuses: readonly string[] = typeof filter.status === 'string' ? [filter.status] : filter.status;
    if (!statuses.includes(p.status)) return false;
  }
  if (filter.targets && !filter.targets.some((t) => t.scope === p.scope && t.scopeId === p.scopeId))
    return false;
  return true;
}

export class InMemoryPolicyStore implements PolicyStore {
  readonly #rows = new TenantMap<Policy>();
  async insert(policy: Policy): Promise<void> {
    if (this.#rows.has(policy.tenantId, policy.id)) throw new Error(`policy ${policy.id} already exists`);
    this.#rows.set(policy.tenantId, policy.id, copy(policy));
  }
  async update(policy: Policy): Promise<boolean> {
    if (!this.#rows.has(policy.tenantId, policy.id)) return false;
    this.#rows.set(policy.tenantId, policy.id, copy(policy));
    return true;
  }
  async get(tenantId: string, id: string): Promise<Policy | undefined> {
    const p = this.#rows.get(tenantId, id);
    return p && copy(p);
  }
  async list(tenantId: string, filter?: PolicyFilter): Promise<Policy[]> {
    return this.#rows
      .values(tenantId)
      .filter((p) => matchesPolicyFilter(p, filter))
      .sort(
        byKeys(
          (p) => p.createdAt,
          (p) => p.id,
        ),
      )
      .map(copy);
  }
  async count(tenantId: string, filter?: PolicyFilter): Promise<number> {
    return this.#rows.values(tenantId).filter((p) => matchesPolicyFilter(p, filter)).length;
  }
}
