/**
 * `UnitOfWork` on PostgreSQL / PGlite: one database transaction; the stores given to the work run
 * their queries in it, so a write and its audit entry commit together or not at all. A `lock`
 * takes a transaction-scoped advisory lock (`pg_advisory_xact_lock` on a 64-bit hash of the name),
 * released by the commit or rollback — serialising, say, one tenant's policy writes across every
 * process sharing the database. The audit chain is locked by its head row as in a plain append.
 */
import type { TransactionOptions, TransactionStores, UnitOfWork } from '@agentgov/core';
import { type Kysely, sql } from 'kysely';
import { KyselyAuditStore } from './audit-store';
import { KyselyConnectorStore } from './connector-store';
import { KyselyOrgDirectory } from './org-directory';
import { KyselyPolicyStore } from './policy-store';
import type { Database } from './schema';
import { KyselyTenantStore } from './tenant-store';

export class KyselyUnitOfWork implements UnitOfWork {
  readonly #db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  transaction<T>(
    work: (stores: TransactionStores) => Promise<T>,
    options: TransactionOptions = {},
  ): Promise<T> {
    return this.#db.transaction().execute(async (trx) => {
      if (options.lock !== undefined) {
        await sql`SELECT pg_advisory_xact_lock(hashtextextended(${options.lock}, 0))`.execute(trx);
      }
      return work({
        policies: new KyselyPolicyStore(trx),
        audit: new KyselyAuditStore(trx, { lockMode: 'transaction' }),
        connectors: new KyselyConnectorStore(trx),
        tenants: new KyselyTenantStore(trx),
        directory: new KyselyOrgDirectory(trx),
      });
    });
  }
}
