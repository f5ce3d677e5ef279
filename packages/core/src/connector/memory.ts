import { byKeys, copy, TenantMap } from '../memory-util';
import type { UndoJournal } from '../unit-of-work/journal';
import type { ConnectorStore } from './port';
import type { Connector, ConnectorStatus } from './schema';

export class InMemoryConnectorStore implements ConnectorStore {
  readonly #rows = new TenantMap<Connector>();
  async insert(connector: Connector): Promise<void> {
    if (this.#rows.has(connector.tenantId, connector.id))
      throw new Error(`connector ${connector.id} already exists`);
    this.#rows.set(connector.tenantId, connector.id, copy(connector));
  }
  async update(connector: Connector): Promise<boolean> {
    if (!this.#rows.has(connector.tenantId, connector.id)) return false;
    this.#rows.set(connector.tenantId, connector.id, copy(connector));
    return true;
  }
  async get(tenantId: string, id: string): Promise<Connector | undefined> {
    const c = this.#rows.get(tenantId, id);
    return c && copy(c);
  }
  async list(
    tenantId: string,
    filter: { status?: ConnectorStatus; type?: Connector['type'] } = {},
  ): Promise<Connector[]> {
    return this.#rows
      .values(tenantId)
      .filter(
        (c) => (!filter.status || c.status === filter.status) && (!filter.type || c.type === filter.type),
      )
      .sort(
        byKeys(
          (c) => c.createdAt,
          (c) => c.id,
        ),
      )
      .map(copy);
  }
  /** This store as seen by an in-memory transaction: each write records its undo (`InMemoryUnitOfWork`). */
  journaled(journal: UndoJournal): ConnectorStore {
    const rows = this.#rows;
    return {
      insert: async (connector) => {
        await this.insert(connector);
        journal.record(() => rows.delete(connector.tenantId, connector.id));
      },
      update: async (connector) => {
        const before = rows.get(connector.tenantId, connector.id);
        const updated = await this.update(connector);
        if (updated && before) journal.record(() => rows.set(connector.tenantId, connector.id, before));
        return updated;
      },
      get: (tenantId, id) => this.get(tenantId, id),
      list: (tenantId, filter) => this.list(tenantId, filter),
    };
  }
}
