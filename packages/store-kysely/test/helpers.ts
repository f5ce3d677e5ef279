/**
 * Test backends for the store-kysely tests.
 *
 * - `AGENTGOV_TEST_BACKENDS=pglite,postgres` narrows the backends (default: both; CONVENTIONS #7).
 * - PostgreSQL tests read `TEST_DATABASE_URL`; without it (or with the server unreachable) they are
 *   skipped with the reason — unless `AGENTGOV_REQUIRE_SERVICES=1`, under which they FAIL.
 * - Every test file (and every conformance case) gets its own fresh schema `agentgov_t_<random>`,
 *   dropped in cleanup, so concurrent runs sharing the database never see each other.
 */
import { randomBytes } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import { type Kysely, Migrator, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, it } from 'vitest';
import {
  createPGliteKysely,
  createPostgresKysely,
  createSqlStores,
  type Database,
  MIGRATIONS,
  type PGliteLike,
  type SqlStores,
} from '../src/index';

type Backend = 'pglite' | 'postgres';

const ALL: Backend[] = ['pglite', 'postgres'];
const BACKENDS: Backend[] = (process.env.AGENTGOV_TEST_BACKENDS ?? ALL.join(','))
  .split(',')
  .map((s) => s.trim())
  .filter((s): s is Backend => (ALL as string[]).includes(s));

const REQUIRE_SERVICES = process.env.AGENTGOV_REQUIRE_SERVICES === '1';
const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL;

export const freshSchema = (): string => `agentgov_t_${randomBytes(6).toString('hex')}`;

type PostgresStatus = { ok: true; url: string } | { ok: false; reason: string };

let status: Promise<PostgresStatus> | undefined;
/** Whether PostgreSQL is usable (checked once per file). */
function postgresStatus(): Promise<PostgresStatus> {
  status ??= (async (): Promise<PostgresStatus> => {
    const url = TEST_DATABASE_URL;
    if (!url) return { ok: false, reason: 'TEST_DATABASE_URL is not set' };
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
    try {
      await client.connect();
      await client.query('SELECT 1');
      return { ok: true, url };
    } catch (error) {
      return {
        ok: false,
        reason: `PostgreSQL at TEST_DATABASE_URL is unreachable: ${(error as Error).message}`,
      };
    } finally {
      await client.end().catch(() => {});
    }
  })();
  return status;
}

/**
 * Registers PostgreSQL tests: runs `body(url)` when PostgreSQL is usable; otherwise a skipped
 * block naming the reason, or — under AGENTGOV_REQUIRE_SERVICES=1 — a failing test.
 */
export async function describePostgres(name: string, body: (url: string) => void): Promise<void> {
  if (!BACKENDS.includes('postgres')) {
    describe.skip(`${name} — skipped: postgres not in AGENTGOV_TEST_BACKENDS`, () => {
      it('not run', () => {});
    });
    return;
  }
  const s = await postgresStatus();
  if (s.ok) {
    body(s.url);
    return;
  }
  if (REQUIRE_SERVICES) {
    describe(name, () => {
      it('needs PostgreSQL (AGENTGOV_REQUIRE_SERVICES=1)', () => {
        throw new Error(s.reason);
      });
    });
    return;
  }
  describe.skip(`${name} — skipped: ${s.reason}`, () => {
    it('not run', () => {});
  });
}

/** Registers PGlite tests unless AGENTGOV_TEST_BACKENDS leaves PGlite out. */
export function describePGlite(name: string, body: () => void): void {
  if (BACKENDS.includes('pglite')) body();
  else
    describe.skip(`${name} — skipped: pglite not in AGENTGOV_TEST_BACKENDS`, () => {
      it('not run', () => {});
    });
}

/** Stores over a fresh, migrated schema on PostgreSQL; `cleanup` drops the schema. */
export async function postgresStores(
  url: string,
  options: { max?: number; migrate?: boolean } = {},
): Promise<SqlStores & { cleanup: () => Promise<void> }> {
  const schema = freshSchema();
  const pool = new pg.Pool({ connectionString: url, max: options.max ?? 4 });
  return freshStores(createPostgresKysely({ pool, schema }), schema, 'postgres', options.migrate);
}

let sharedPGlite: Promise<PGlite> | undefined;
/** One PGlite instance per test file (starting one takes seconds); each caller gets its own schema. */
export function pgliteInstance(): Promise<PGlite> {
  sharedPGlite ??= PGlite.create();
  return sharedPGlite;
}

export async function closePGlite(): Promise<void> {
  const p = sharedPGlite;
  sharedPGlite = undefined;
  if (p) await (await p).close();
}

/** Stores over a fresh, migrated schema on the file's PGlite instance; `cleanup` drops the schema. */
export async function pgliteStores(
  options: { migrate?: boolean } = {},
): Promise<SqlStores & { cleanup: () => Promise<void> }> {
  const schema = freshSchema();
  const client = (await pgliteInstance()) as unknown as PGliteLike;
  return freshStores(
    createPGliteKysely({ client, schema, closeOnDestroy: false }),
    schema,
    'pglite',
    options.migrate,
  );
}

/** The stores over `db` (migrated unless `migrate` is false); `cleanup` drops the schema and closes. */
async function freshStores(
  db: Kysely<Database>,
  schema: string,
  kind: SqlStores['kind'],
  migrate: boolean | undefined,
): Promise<SqlStores & { cleanup: () => Promise<void> }> {
  const stores = createSqlStores(db, { schema, kind });
  if (migrate !== false) await stores.migrate();
  return {
    ...stores,
    cleanup: async () => {
      await dropSchema(db, schema);
      await stores.close();
    },
  };
}

export async function dropSchema(db: Kysely<Database>, schema: string): Promise<void> {
  const { sql } = await import('kysely');
  await sql`DROP SCHEMA IF EXISTS ${sql.id(schema)} CASCADE`.execute(db);
}

/** Collects an async iterable. */
export async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of iterable) out.push(x);
  return out;
}

/** The stores a backend test opens: over a fresh schema, with `cleanup` dropping it. */
export type TestStores = SqlStores & { cleanup: () => Promise<void> };

/**
 * The stores of the enclosing describe block: opened before its tests, dropped after them. The
 * object is filled in `beforeAll` (read it only inside hooks and tests).
 */
export function storesFor(open: () => Promise<TestStores>): TestStores {
  const s = {} as TestStores;
  beforeAll(async () => {
    Object.assign(s, await open());
  });
  afterAll(async () => {
    await s.cleanup?.();
  });
  return s;
}

/** Opens fresh stores on one backend (`migrate: false` leaves the schema empty). */
export type OpenStores = (options?: { migrate?: boolean }) => Promise<TestStores>;

/**
 * Registers `suite` on both SQL backends: `<title> (pglite)` on the file's PGlite instance (closed
 * after the block), and `<title> (postgres)` when PostgreSQL is usable (see `describePostgres`),
 * where `postgresOnly(url)` registers what needs a real server (several pools, several processes).
 */
export async function describeSqlBackends(
  title: string,
  suite: (name: string, open: OpenStores) => void,
  postgresOnly?: (url: string) => void,
): Promise<void> {
  describePGlite(`${title} (pglite)`, () => {
    afterAll(closePGlite);
    suite(`${title}: pglite`, (o) => pgliteStores(o));
  });
  await describePostgres(`${title} (postgres)`, (url) => {
    suite(`${title}: postgres`, (o) => postgresStores(url, o));
    postgresOnly?.(url);
  });
}

/**
 * An upgrade test's migrations: creates the schema of `s` (opened with `migrate: false`) and
 * returns `up(before)`, which runs the migrations named below `before` not yet run and answers
 * their names (throwing on a failure), and `down(before)`, which reverts the last of them.
 */
export async function partialMigrations(s: { db: Kysely<Database>; schema: string }) {
  await sql`CREATE SCHEMA ${sql.id(s.schema)}`.execute(s.db);
  const migrator = (before: string) =>
    new Migrator({
      db: s.db,
      migrationTableSchema: s.schema,
      provider: {
        getMigrations: async () => Object.fromEntries(Object.entries(MIGRATIONS).filter(([n]) => n < before)),
      },
    });
  return {
    async up(before: string): Promise<string[]> {
      const r = await migrator(before).migrateToLatest();
      if (r.error) throw r.error;
      return (r.results ?? []).map((x) => x.migrationName);
    },
    async down(before: string): Promise<void> {
      const r = await migrator(before).migrateDown();
      if (r.error) throw r.error;
    },
  };
}
