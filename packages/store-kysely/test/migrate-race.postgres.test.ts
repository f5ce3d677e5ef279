/**
 * Migrations while other sessions create and drop schemas (as parallel test files, or other
 * tenants' tooling, do): kysely's Migrator lists the tables of every schema first, and a schema
 * dropped during that listing must not fail our migration.
 */
import { expect, it } from 'vitest';
import { describePostgres, dropSchema, freshSchema, postgresStores } from './helpers';

await describePostgres('migrations beside concurrent schema churn (postgres)', (url) => {
  it('every migration succeeds while 200 other schemas come and go', async () => {
    const churn = await postgresStores(url, { migrate: false, max: 4 });
    let stop = false;
    const churning = (async () => {
      for (let i = 0; i < 200 && !stop; i++) {
        const other = freshSchema();
        await churn.db.schema.createSchema(other).execute();
        await churn.db.schema.createTable(`${other}.t`).addColumn('x', 'integer').execute();
        await dropSchema(churn.db, other);
      }
    })();
    try {
      const migrated: string[][] = [];
      for (let i = 0; i < 8; i++) {
        const stores = await postgresStores(url, { migrate: false, max: 2 });
        try {
          migrated.push(await stores.migrate().then((r) => r.applied));
        } finally {
          await stores.cleanup();
        }
      }
      expect(migrated).toHaveLength(8);
      for (const applied of migrated) expect(applied.length).toBeGreaterThan(0);
    } finally {
      stop = true;
      await churning;
      await churn.cleanup();
    }
  }, 120_000);
});
