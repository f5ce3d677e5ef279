/**
 * The SQL backends the in-process store tests of the reference server run on: PGlite always,
 * PostgreSQL (a throwaway schema, dropped by `drop`) when TEST_DATABASE_URL is set — and required
 * under AGENTGOV_REQUIRE_SERVICES=1.
 */
import { randomBytes } from 'node:crypto';
import { servicesRequired } from '@agentgov/core/testing';
import { openStore, type SqlStores, sql } from '@agentgov/store-kysely';

export interface SqlBackend {
  name: 'PGlite' | 'PostgreSQL';
  open(): Promise<SqlStores & { drop?: () => Promise<void> }>;
}

export function sqlBackends(schemaPrefix: string): SqlBackend[] {
  const databaseUrl = process.env.TEST_DATABASE_URL;
  if (!databaseUrl && servicesRequired())
    throw new Error('TEST_DATABASE_URL required (AGENTGOV_REQUIRE_SERVICES=1)');
  const backends: SqlBackend[] = [{ name: 'PGlite', open: () => openStore({ database: 'memory://' }) }];
  if (databaseUrl)
    backends.push({
      name: 'PostgreSQL',
      open: async () => {
        const schema = `${schemaPrefix}_${randomBytes(5).toString('hex')}`;
        const stores = await openStore({ database: databaseUrl, schema });
        return Object.assign(stores, {
          drop: async () => {
            await sql`DROP SCHEMA IF EXISTS ${sql.id(schema)} CASCADE`.execute(stores.db);
          },
        });
      },
    });
  return backends;
}
