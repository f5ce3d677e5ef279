/**
 * kysely instances on a driver the caller brings (as a structural type or an async factory), each
 * connection confined to the store's schema.
 */
import { CompiledQuery, type DatabaseConnection, Kysely, PostgresDialect, type PostgresPool } from 'kysely';
import { PGliteDialect, type PGliteLike } from './pglite-dialect';
import type { Database } from './schema';
import { assertSchemaName, DEFAULT_SCHEMA } from './sql-util';

const searchPath = (schema: string) => async (connection: DatabaseConnection) => {
  await connection.executeQuery(CompiledQuery.raw(`SET search_path TO "${schema}"`));
};

/** A pg `Pool` (structurally) plus the optional `end()`/`on()` it has. */
export type PgPoolLike = PostgresPool & {
  on?: (event: 'error' | 'connect', listener: (arg: unknown) => void) => unknown;
};

const absorbed = new WeakSet<object>();
const ignore = () => {};

type Client = Awaited<ReturnType<PostgresPool['connect']>>;

/**
 * Whether a query error means the connection itself is gone (socket errors have no SQLSTATE;
 * classes 08 connection exception and 57P operator intervention, e.g. `pg_terminate_backend`).
 */
function connectionLost(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return true;
  return code.startsWith('08') || code.startsWith('57P');
}

/**
 * Makes a database outage survivable: pg emits 'error' on a client when its connection drops —
 * on the pool for an idle client, on the client itself while it is checked out (a query running,
 * a transaction open). Without a listener that event is an unhandled 'error' and ends the
 * process. Here every client gets a listener, and a client whose query failed because its
 * connection was lost is released as broken (pg-pool discards it), so the next checkout opens a
 * new connection instead of getting the dead one back. The failed call still rejects (→ 503).
 * Pools without `on` (structural fakes) are returned as they are.
 */
function absorbConnectionErrors(pool: PgPoolLike): PgPoolLike {
  if (typeof pool.on !== 'function') return pool;
  if (!absorbed.has(pool)) {
    absorbed.add(pool);
    pool.on('error', ignore);
    pool.on('connect', (client) => {
      (client as { on?: (event: 'error', l: () => void) => unknown }).on?.('error', ignore);
    });
  }
  const wrapped: PgPoolLike = {
    connect: async () => {
      const client: Client = await pool.connect();
      let lost = false;
      return {
        query: ((...args: Parameters<Client['query']>) => {
          const result = (client.query as (...a: unknown[]) => unknown)(...args);
          if (result && typeof (result as Promise<unknown>).then === 'function') {
            return (result as Promise<unknown>).catch((error: unknown) => {
              if (connectionLost(error)) lost = true;
              throw error;
            });
          }
          return result;
        }) as Client['query'],
        release: () => {
          (client.release as (error?: Error) => void)(lost ? new Error('connection lost') : undefined);
        },
      };
    },
    end: () => pool.end?.() ?? Promise.resolve(),
  };
  absorbed.add(wrapped);
  return wrapped;
}

/**
 * A kysely instance on PostgreSQL whose every connection uses `schema` (via `SET search_path` when
 * the connection is created). The pool comes in as a structural type or an async factory.
 */
export function createPostgresKysely(options: {
  pool: PgPoolLike | (() => Promise<PgPoolLike>);
  schema?: string;
}): Kysely<Database> {
  const schema = options.schema ?? DEFAULT_SCHEMA;
  assertSchemaName(schema);
  const given = options.pool;
  const pool =
    typeof given === 'function'
      ? async () => absorbConnectionErrors(await given())
      : absorbConnectionErrors(given);
  return new Kysely<Database>({
    dialect: new PostgresDialect({ pool, onCreateConnection: searchPath(schema) }),
  });
}

/**
 * A kysely instance on PGlite (single session, serialized by the dialect) using `schema`.
 * The PGlite instance comes in as a structural type or an async factory.
 */
export function createPGliteKysely(options: {
  client: PGliteLike | (() => Promise<PGliteLike>);
  schema?: string;
  closeOnDestroy?: boolean;
}): Kysely<Database> {
  const schema = options.schema ?? DEFAULT_SCHEMA;
  assertSchemaName(schema);
  return new Kysely<Database>({
    dialect: new PGliteDialect({
      client: options.client,
      onCreateConnection: searchPath(schema),
      ...(options.closeOnDestroy === undefined ? {} : { closeOnDestroy: options.closeOnDestroy }),
    }),
  });
}
