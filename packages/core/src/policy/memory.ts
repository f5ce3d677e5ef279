import { byKeys, TenantMap } from '../memory-util';
import { frozenClonePlain } from '../plain-clone';
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

/** A frozen copy of a policy: what the store keeps, and hands out as it is. */
const frozen = (policy: Policy): Policy => frozenClonePlain(policy) as Policy;

/**
 * Policies in memory. Each record is copied in and kept frozen, and reads hand out that frozen
 * record itself (no copy per read; writing to it throws): the same object for every read until it
 * is replaced, so what it serializes to can be kept (the gateway reuses the JSON of a frozen body).
 */
export class InMemoryPolicyStore implements PolicyStore {
  readonly #rows = new TenantMap<Policy>();
  async insert(policy: Policy): Promise<void> {
    if (this.#rows.has(policy.tenantId, policy.id)) throw new Error(`policy ${policy.id} already exists`);
    this.#rows.set(policy.tenantId, policy.id, frozen(policy));
  }
  async update(policy: Policy): Promise<boolean> {
    if (!this.#rows.has(policy.tenantId, policy.id)) return false;
    this.#rows.set(policy.tenantId, policy.id, frozen(policy));
    return true;
  }
  async get(tenantId: string, id: string): Promise<Policy | undefined> {
    return this.#rows.get(tenantId, id);
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
      );
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
