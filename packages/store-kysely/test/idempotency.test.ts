/**
 * The IdempotencyStore conformance suite against KyselyIdempotencyStore on PGlite and PostgreSQL
 * (a fresh schema per case), plus concurrent claims from two pools on PostgreSQL.
 */
import { describeIdempotencyStoreConformance } from '@agentgov/core/testing';
import { afterAll, expect, it } from 'vitest';
import { KyselyIdempotencyStore } from '../src/index';
import { closePGlite, describePGlite, describePostgres, pgliteStores, postgresStores } from './helpers';

afterAll(closePGlite);

describePGlite('kysely/pglite idempotency', () => {
  describeIdempotencyStoreConformance('kysely/pglite', async () => {
    const s = await pgliteStores();
    return { store: s.idempotency, cleanup: s.cleanup };
  });
});

await describePostgres('kysely/postgres idempotency', (url) => {
  describeIdempotencyStoreConformance('kysely/postgres', async () => {
    const s = await postgresStores(url, { max: 8 });
    return { store: s.idempotency, cleanup: s.cleanup };
  });

  it('two processes (two pools) claiming one key: exactly one holds it', async () => {
    const a = await postgresStores(url, { max: 4 });
    const { createPostgresKysely } = await import('../src/index');
    const pg = (await import('pg')).default;
    const pool = new pg.Pool({ connectionString: url, max: 4 });
    const other = createPostgresKysely({ pool, schema: a.schema });
    try {
      const stores = [new KyselyIdempotencyStore(a.db), new KyselyIdempotencyStore(other)];
      const scope = { tenantId: 'acme', principalId: 'ea-1', key: 'k-1' };
      const now = new Date();
      const later = new Date(now.getTime() + 60_000);
      const results = await Promise.all(
        Array.from({ length: 16 }, (_, i) =>
          (stores[i % 2] as KyselyIdempotencyStore).begin(scope, `fp-${i}`, now, later),
        ),
      );
      expect(results.filter((r) => r.state === 'started')).toHaveLength(1);
      expect(results.filter((r) => r.state === 'in_flight')).toHaveLength(15);
    } finally {
      await other.destroy();
      await a.cleanup();
    }
  });
});
