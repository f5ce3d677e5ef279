/**
 * How `createPostgresKysely` confines a pg pool's clients to a schema: `SET search_path` once per
 * connection (not once per query), the right schema when two instances share one pool, and no
 * client left checked out when the `SET` itself fails (the pool's `end()` would wait for ever:
 * the reference server could not shut down after a database outage).
 */
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresKysely, type PgPoolLike } from '../src/index';
import { describePostgres, freshSchema } from './helpers';

/** A real pg pool whose clients count the `SET search_path` statements they run. */
function countingPool(url: string, max: number) {
  const pool = new pg.Pool({ connectionString: url, max });
  const sets: string[] = [];
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: unknown }).query = (...args: unknown[]) => {
      if (typeof args[0] === 'string' && args[0].startsWith('SET search_path')) sets.push(args[0]);
      return query(...args);
    };
  });
  return { pool, sets };
}

await describePostgres('createPostgresKysely: the schema of pooled clients (postgres)', (url) => {
  const a = freshSchema();
  const b = freshSchema();
  let admin: pg.Client;
  beforeAll(async () => {
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
    for (const [schema, value] of [
      [a, 'a'],
      [b, 'b'],
    ] as const) {
      await admin.query(`CREATE SCHEMA "${schema}"`);
      await admin.query(`CREATE TABLE "${schema}".marker (v text)`);
      await admin.query(`INSERT INTO "${schema}".marker VALUES ($1)`, [value]);
    }
  });
  afterAll(async () => {
    await admin.query(`DROP SCHEMA IF EXISTS "${a}" CASCADE`);
    await admin.query(`DROP SCHEMA IF EXISTS "${b}" CASCADE`);
    await admin.end();
  });

  const marker = async (db: ReturnType<typeof createPostgresKysely>) =>
    (await sql<{ v: string }>`SELECT v FROM marker`.execute(db)).rows[0]?.v;

  it('sets search_path once per connection, not once per query', async () => {
    const { pool, sets } = countingPool(url, 1);
    const db = createPostgresKysely({ pool, schema: a });
    try {
      for (let i = 0; i < 5; i++) expect(await marker(db)).toBe('a');
      await db.transaction().execute(async (trx) => {
        expect(await marker(trx as unknown as typeof db)).toBe('a');
      });
      expect(sets).toHaveLength(1);
    } finally {
      await db.destroy();
    }
  });

  it('two instances sharing one pool each read their own schema', async () => {
    const { pool, sets } = countingPool(url, 1);
    const dbA = createPostgresKysely({ pool, schema: a });
    const dbB = createPostgresKysely({ pool, schema: b });
    try {
      for (let i = 0; i < 3; i++) {
        expect(await marker(dbA)).toBe('a');
        expect(await marker(dbA)).toBe('a');
        expect(await marker(dbB)).toBe('b');
      }
      // One connection, switched A → B → A … : a SET at each switch, none in between.
      expect(sets).toHaveLength(6);
    } finally {
      await dbA.destroy();
      await dbB.destroy().catch(() => {}); // the shared pool has already ended
    }
  });

  describe('a connection lost while its search_path is being set', () => {
    it('the query rejects, the client is released, the next query reconnects and end() returns', async () => {
      const real = new pg.Pool({ connectionString: url, max: 1 });
      let killNext = true;
      // The real pool, except that the first client handed out has had its backend terminated.
      const pool: PgPoolLike = {
        connect: async () => {
          const client = await real.connect();
          if (killNext) {
            killNext = false;
            client.on('error', () => {});
            await admin.query('SELECT pg_terminate_backend($1)', [
              (client as unknown as { processID: number }).processID,
            ]);
            await new Promise((r) => setTimeout(r, 100));
          }
          return client;
        },
        end: () => real.end(),
        on: (event, listener) => real.on(event, listener as () => void),
      };
      const db = createPostgresKysely({ pool, schema: a });
      await expect(marker(db)).rejects.toThrow();
      expect(real.totalCount - real.idleCount).toBe(0); // nothing left checked out
      expect(await marker(db)).toBe('a');
      const ended = await Promise.race([
        db.destroy().then(() => true),
        new Promise<boolean>((r) => setTimeout(() => r(false), 5_000)),
      ]);
      expect(ended).toBe(true);
    });
  });
});
