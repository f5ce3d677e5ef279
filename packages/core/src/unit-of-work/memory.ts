/**
 * The in-memory unit of work: the same all-or-nothing guarantee as a database transaction. Each
 * write through a transaction's store view records its undo in a journal, replayed newest first
 * when the work throws. A transaction appending to a tenant's audit chain holds that chain (as the
 * database's row lock does) until it ends, so no other append can link onto a record that may
 * still be rolled back. Transactions naming the same `lock` are queued.
 */
import type { InMemoryAuditStore } from '../audit/memory';
import type { InMemoryConnectorStore } from '../connector/memory';
import { KeyedMutex } from '../mutex';
import type { OrgDirectory } from '../org-directory/port';
import type { InMemoryPolicyStore } from '../policy/memory';
import type { InMemoryTenantStore } from '../tenant/memory';
import { UndoJournal } from './journal';
import type { TransactionOptions, TransactionStores, UnitOfWork } from './port';

export interface InMemoryUnitOfWorkStores {
  policies: InMemoryPolicyStore;
  audit: InMemoryAuditStore;
  connectors: InMemoryConnectorStore;
  tenants: InMemoryTenantStore;
  directory: OrgDirectory;
}

export class InMemoryUnitOfWork implements UnitOfWork {
  readonly #stores: InMemoryUnitOfWorkStores;
  readonly #locks = new KeyedMutex();

  constructor(stores: InMemoryUnitOfWorkStores) {
    this.#stores = stores;
  }

  transaction<T>(
    work: (stores: TransactionStores) => Promise<T>,
    options: TransactionOptions = {},
  ): Promise<T> {
    const run = async () => {
      const journal = new UndoJournal();
      const s = this.#stores;
      const views: TransactionStores = {
        policies: s.policies.journaled(journal),
        audit: s.audit.journaled(journal),
        connectors: s.connectors.journaled(journal),
        tenants: s.tenants.journaled(journal),
        directory: s.directory,
      };
      let result: T;
      try {
        result = await work(views);
      } catch (error) {
        journal.rollback();
        throw error;
      }
      journal.commit();
      return result;
    };
    return options.lock === undefined ? run() : this.#locks.run(options.lock, run);
  }
}
