/**
 * kysely instances on a driver the caller brings (as a structural type or an async factory), each
 * connection confined to the store's schema.
 */
import { CompiledQuery, type DatabaseConnection, Kysely, PostgresDialect, type PostgresPool } from 'kysely';
import { PGliteDialect, type PGliteLike } from './pglite-dialect';
import { preparedName } from './prepared';
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
 * The `search_path` each pooled pg client was last set to. A client keeps its session settings
 * while the pool keeps it, so the `SET` runs once per connection — and again only when another
 * kysely instance sharing the pool set another schema on it.
 */
const searchPathOf = new WeakMap<object, string>();

/**
 * Whether a query error means the connection itself is gone (socket errors have no SQLSTATE;
 * classes 08 connection exception and 57P operator intervention, e.g. `pg_terminate_backend`).
 */
function connectionLost(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return true;
  return code.startsWith('08') || code.startsWith('57P');
}

/** A named statement the server does not have (26000) or already has under that name (42P05). */
function statementNameLost(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '26000' || code === '42P05';
}

/** One checked-out client as kysely sees it: the same object for every checkout of a client. */
interface Checkout {
  readonly client: Client;
  /** Set when a query of this checkout failed because the connection was lost. */
  lost: boolean;
  readonly view: Client;
}

/**
 * A pool whose clients are confined to `schema` and survive a database outage.
 *
 * - **Schema.** `SET search_path` runs when a client is checked out with another (or no) schema
 *   than `schema` — in practice once per connection. When that `SET` fails, the client is
 *   released as broken and the checkout fails: a client is never left checked out (kysely's own
 *   `onCreateConnection` hook would keep it for ever, and `pool.end()` would then wait for ever).
 *   Each client is handed to kysely as the same object every time, so kysely keeps one
 *   connection per client instead of one per query.
 * - **Outages.** pg emits 'error' on a client when its connection drops — on the pool for an idle
 *   client, on the client itself while it is checked out (a query running, a transaction open).
 *   Without a listener that event is an unhandled 'error' and ends the process. Here every client
 *   gets a listener, and a client whose query failed because its connection was lost is released
 *   as broken (pg-pool discards it), so the next checkout opens a new connection instead of
 *   getting the dead one back. The failed call still rejects (→ 503).
 *
 * - **Prepared statements.** A query whose text is registered in `prepared.ts` (the audit append's
 *   calls) is sent as a named statement, `{ name, text, values }`: pg parses it once per
 *   connection and PostgreSQL keeps its plan. When the server does not have the statement, or has
 *   another of that name (a pooler that moves sessions between server connections), the query is
 *   run again unnamed.
 *
 * Pools without `on` (structural fakes) get no listeners; the rest applies to them too.
 */
function schemaPool(pool: PgPoolLike, schema: string): PgPoolLike {
  if (typeof pool.on === 'function' && !absorbed.has(pool)) {
    absorbed.add(pool);
    pool.on('error', ignore);
    pool.on('connect', (client) => {
      (client as { on?: (event: 'error', l: () => void) => unknown }).on?.('error', ignore);
    });
  }
  const checkouts = new WeakMap<object, Checkout>();
  const checkoutOf = (client: Client): Checkout => {
    let checkout = checkouts.get(client);
    if (!checkout) {
      const c: Checkout = {
        client,
        lost: false,
        view: {
          query: ((...args: unknown[]) => {
            // A registered statement (`prepared.ts`) goes as a named one: planned once per connection.
            const name =
              typeof args[0] === 'string' && Array.isArray(args[1]) && args.length === 2
                ? preparedName(args[0], schema)
                : undefined;
            const query = client.query as (...a: unknown[]) => unknown;
            let result = query.apply(
              client,
              name === undefined ? args : [{ name, text: args[0], values: args[1] }],
            );
            if (name !== undefined && result && typeof (result as Promise<unknown>).then === 'function') {
              // The server lost the statement or has another of that name (a pooler between them,
              // e.g. PgBouncer in transaction mode): the same query unnamed.
              result = (result as Promise<unknown>).catch((error: unknown) => {
                if (!statementNameLost(error)) throw error;
                return query.apply(client, args);
              });
            }
            if (result && typeof (result as Promise<unknown>).then === 'function') {
              return (result as Promise<unknown>).catch((error: unknown) => {
                if (connectionLost(error)) c.lost = true;
                throw error;
              });
            }
            return result;
          }) as Client['query'],
          release: () => {
            (client.release as (error?: Error) => void)(c.lost ? new Error('connection lost') : undefined);
          },
        },
      };
      checkout = c;
      checkouts.set(client, checkout);
    }
    checkout.lost = false;
    return checkout;
  };
  return {
    connect: async () => {
      const client: Client = await pool.connect();
      if (searchPathOf.get(client) !== schema) {
        try {
          await client.query(`SET search_path TO "${schema}"`, []);
        } catch (error) {
          searchPathOf.delete(client);
          (client.release as (error?: Error) => void)(
            error instanceof Error ? error : new Error('SET search_path failed'),
          );
          throw error;
        }
        searchPathOf.set(client, schema);
      }
      return checkoutOf(client).view;
    },
    end: () => pool.end?.() ?? Promise.resolve(),
  };
}

/**
 * A kysely instance on PostgreSQL whose every connection uses `schema` (via `SET search_path` when
 * a connection is first checked out, see `schemaPool`). The pool comes in as a structural type or
 * an async factory.
 */
export function createPostgresKysely(options: {
  pool: PgPoolLike | (() => Promise<PgPoolLike>);
  schema?: string;
}): Kysely<Database> {
  const schema = options.schema ?? DEFAULT_SCHEMA;
  assertSchemaName(schema);
  const given = options.pool;
  const pool =
    typeof given === 'function' ? async () => schemaPool(await given(), schema) : schemaPool(given, schema);
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
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
