import { byKeys, copy, TenantMap } from '../memory-util';
import type { UndoJournal } from '../unit-of-work/journal';
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
  /** This store as seen by an in-memory transaction: each write records its undo (`InMemoryUnitOfWork`). */
  journaled(journal: UndoJournal): PolicyStore {
    const rows = this.#rows;
    return {
      insert: async (policy) => {
        await this.insert(policy);
        journal.record(() => rows.delete(policy.tenantId, policy.id));
      },
      update: async (policy) => {
        const before = rows.get(policy.tenantId, policy.id);
        const updated = await this.update(policy);
        if (updated && before) journal.record(() => rows.set(policy.tenantId, policy.id, before));
        return updated;
      },
      get: (tenantId, id) => this.get(tenantId, id),
      list: (tenantId, filter) => this.list(tenantId, filter),
      count: (tenantId, filter) => this.count(tenantId, filter),
    };
  }
}
