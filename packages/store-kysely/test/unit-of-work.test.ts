/**
 * KyselyUnitOfWork against the UnitOfWork conformance suite on PGlite and PostgreSQL: writes of a
 * transaction (a policy, a connector, a tenant, audit records) commit together or not at all, and
 * transactions naming one lock (an advisory lock) never overlap.
 */
import { describeUnitOfWorkConformance } from '@agentgov/core/testing';
import { afterAll } from 'vitest';
import { KyselyUnitOfWork } from '../src/unit-of-work';
import { closePGlite, describePGlite, describePostgres, pgliteStores, postgresStores } from './helpers';

afterAll(closePGlite);

const subject = async (stores: Awaited<ReturnType<typeof pgliteStores>>) => ({
  store: { uow: new KyselyUnitOfWork(stores.db), stores },
  cleanup: stores.cleanup,
});

describePGlite('unit of work (pglite)', () => {
  describeUnitOfWorkConformance('kysely/pglite', async () => subject(await pgliteStores()));
});

await describePostgres('unit of work (postgres)', (url) => {
  describeUnitOfWorkConformance('kysely/postgres', async () => subject(await postgresStores(url)));
});
