/**
 * The race-sensitive store operations on real PostgreSQL connections: 20 callers of `ensure` for
 * one tenant, and N writers of one exchange round, spread over two pools (as two server processes
 * sharing the database would be), each with enough connections for every caller to hold its own.
 */
import { makeExchange } from '@agentgov/core/testing';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresKysely, createSqlStores, type SqlStores } from '../src/index';
import { describePostgres, postgresStores } from './helpers';

const CALLERS = 20;

await describePostgres('SQL stores under concurrency (postgres)', (url) => {
  describe('two pools on one fresh schema', () => {
    let a: SqlStores & { cleanup: () => Promise<void> };
    let b: SqlStores;

    beforeAll(async () => {
      a = await postgresStores(url, { max: CALLERS });
      b = createSqlStores(
        createPostgresKysely({
          pool: new pg.Pool({ connectionString: url, max: CALLERS }),
          schema: a.schema,
        }),
        { schema: a.schema, kind: 'postgres' },
      );
      // Open every connection up front, so the callers below start their statements together.
      await Promise.all(
        [a, b].flatMap((s) =>
          Array.from({ length: CALLERS }, () => sql`SELECT pg_sleep(0.05)`.execute(s.db)),
        ),
      );
    });
    afterAll(async () => {
      await b?.close();
      await a?.cleanup();
    });

    const stores = (i: number): SqlStores => (i % 2 === 0 ? a : b);

    it(`ensure: ${CALLERS} concurrent callers of one new tenant → one row, every caller gets it`, async () => {
      for (const id of ['race-1', 'race-2', 'race-3']) {
        const results = await Promise.all(
          Array.from({ length: CALLERS }, (_, i) =>
            stores(i).tenants.ensure({ id, name: `name ${i}` }, new Date(Date.UTC(2025, 0, 1, 0, 0, i))),
          ),
        );
        const { rows } = await sql<{
          n: number;
        }>`SELECT count(*)::int AS n FROM tenants WHERE id = ${id}`.execute(a.db);
        expect(rows[0]?.n).toBe(1);
        const first = results[0];
        for (const r of results) expect(r).toEqual(first);
        // The stored record is one caller's input, whole (not one caller's name and another's time).
        const i = Number(first?.name.slice('name '.length));
        expect(first?.createdAt).toBe(new Date(Date.UTC(2025, 0, 1, 0, 0, i)).toISOString());
        expect(await b.tenants.get(id)).toEqual(first);
      }
      expect((await a.tenants.list()).map((t) => t.id)).toEqual(['race-1', 'race-2', 'race-3']);
    });

    it(`exchange update: of ${CALLERS} concurrent writers expecting the same round exactly one wins, round after round`, async () => {
      const x = makeExchange({ tenantId: 'acme', currentRound: 0, maxRounds: 10 });
      await a.exchanges.insert(x);
      for (let round = 0; round < 5; round++) {
        const attempts = Array.from({ length: CALLERS }, (_, i) => ({
          ...x,
          currentRound: round + 1,
          escalationReason: `round ${round + 1} writer ${i}`,
        }));
        const results = await Promise.all(attempts.map((e, i) => stores(i).exchanges.update(e, round)));
        expect(results.filter(Boolean)).toHaveLength(1);
        expect(await b.exchanges.get('acme', x.exchangeId)).toEqual(attempts[results.indexOf(true)]);
      }
      expect((await a.exchanges.get('acme', x.exchangeId))?.currentRound).toBe(5);
    });

    it('instance registry: each pool heartbeats its instance; both count 2; a removal is seen by the other', async () => {
      const now = new Date();
      await a.instances.heartbeat('process-a', now, 30_000);
      await b.instances.heartbeat('process-b', now, 30_000);
      expect(await a.instances.countLive(now)).toBe(2);
      expect(await b.instances.countLive(now)).toBe(2);
      await b.instances.remove('process-b');
      expect(await a.instances.countLive(now)).toBe(1);
    });
  });
});
