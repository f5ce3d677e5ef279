import { byKeys, copy } from '../memory-util';
import type { UndoJournal } from '../unit-of-work/journal';
import type { TenantStore } from './port';
import type { Tenant } from './schema';

export class InMemoryTenantStore implements TenantStore {
  readonly #tenants = new Map<string, Tenant>();
  async ensure(tenant: { id: string; name?: string }, now: Date): Promise<Tenant> {
    let stored = this.#tenants.get(tenant.id);
    if (!stored) {
      stored = {
        id: tenant.id,
        name: tenant.name ?? tenant.id,
        status: 'active',
        createdAt: now.toISOString(),
      };
      this.#tenants.set(tenant.id, stored);
    }
    return copy(stored);
  }
  async get(id: string): Promise<Tenant | undefined> {
    const t = this.#tenants.get(id);
    return t && copy(t);
  }
  async list(): Promise<Tenant[]> {
    return [...this.#tenants.values()].sort(byKeys((t) => t.id)).map(copy);
  }
  /** This store as seen by an in-memory transaction: a tenant it registers is removed on rollback. */
  journaled(journal: UndoJournal): TenantStore {
    return {
      ensure: async (tenant, now) => {
        const known = this.#tenants.has(tenant.id);
        const stored = await this.ensure(tenant, now);
        if (!known) journal.record(() => this.#tenants.delete(tenant.id));
        return stored;
      },
      get: (id) => this.get(id),
      list: () => this.list(),
    };
  }
}
