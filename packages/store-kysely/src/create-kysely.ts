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
  on?: (event: 'error', listener: (error: Error) => void) => unknown;
};

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
  return new Kysely<Database>({
    dialect: new PostgresDialect({ pool: options.pool, onCreateConnection: searchPath(schema) }),
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
