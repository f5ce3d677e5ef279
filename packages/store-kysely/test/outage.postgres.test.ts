/**
 * Issue 12 item 1: a PostgreSQL connection dropped while a client is checked out (a transaction
 * open, a query running) must not crash the process — pg emits 'error' on that client, and without
 * a listener it was an unhandled 'error' event (vitest reports it and fails the run; a server
 * process died). The failing call rejects, and the next query reconnects by itself.
 */
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlStores } from '../src/index';
import { describePostgres, postgresStores } from './helpers';

await describePostgres('PostgreSQL connections terminated under the stores (postgres)', (url) => {
  describe('a checked-out client whose backend is terminated', () => {
    let stores: SqlStores & { cleanup: () => Promise<void> };
    let admin: pg.Client;
    const crashes: unknown[] = [];
    const onUncaught = (error: unknown) => crashes.push(error);
    beforeAll(async () => {
      stores = await postgresStores(url, { max: 2 });
      admin = new pg.Client({ connectionString: url });
      await admin.connect();
      process.on('uncaughtException', onUncaught);
    });
    afterAll(async () => {
      process.off('uncaughtException', onUncaught);
      await admin.end().catch(() => {});
      await stores.cleanup();
    });

    const terminate = (pid: number) => admin.query('SELECT pg_terminate_backend($1)', [pid]);

    it('inside an open transaction: the transaction rejects, the process lives, the next query works', async () => {
      const failed = stores.db.transaction().execute(async (trx) => {
        const { rows } = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(trx);
        await terminate(rows[0]?.pid ?? 0);
        await new Promise((r) => setTimeout(r, 200)); // the FATAL message arrives while idle in transaction
        await sql`SELECT 1`.execute(trx);
      });
      await expect(failed).rejects.toThrow();
      await stores.ping();
      expect(crashes).toEqual([]);
    });

    it('during a running query: it rejects, the process lives, the store recovers', async () => {
      // Settled into a value at once: the rejection may arrive while the test awaits the terminate
      // call, and an unobserved rejection at that moment would be reported as unhandled.
      const running = sql`SELECT pg_sleep(10)`.execute(stores.db).then(
        () => undefined,
        (error: unknown) => error,
      );
      let pid: number | undefined;
      for (let i = 0; i < 50 && pid === undefined; i++) {
        await new Promise((r) => setTimeout(r, 50));
        const { rows } = await admin.query(
          `SELECT pid FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(10)' AND pid <> pg_backend_pid()`,
        );
        pid = rows[0]?.pid;
      }
      expect(pid).toBeDefined();
      await terminate(pid ?? 0);
      expect(await running).toBeInstanceOf(Error);
      await stores.ping();
      expect(await stores.policies.count('t-none')).toBe(0);
      expect(crashes).toEqual([]);
    });
  });
});
