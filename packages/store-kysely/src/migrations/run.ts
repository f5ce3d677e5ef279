/** The migration runner: kysely's `Migrator` over our provider, confined to the store's schema. */
import {
  type DatabaseIntrospector,
  type DatabaseMetadata,
  type Kysely,
  Migrator,
  type SchemaMetadata,
  sql,
  type TableMetadata,
} from 'kysely';
import type { Database } from '../schema';
import { assertSchemaName, DEFAULT_SCHEMA } from '../sql-util';
import { MIGRATIONS, migrationProvider } from './index';

/**
 * kysely's Migrator looks for its own tables by listing the tables of EVERY schema; a schema that
 * another session drops during that listing fails it (3F000) although nothing of ours is wrong —
 * parallel test files, or other tenants' tooling on a shared server, do exactly that. The
 * migrator gets the same database with an introspector that reads only our schema, straight from
 * pg_catalog.
 */
function withSchemaIntrospection(db: Kysely<Database>, schema: string): Kysely<Database> {
  const introspector: DatabaseIntrospector = {
    async getSchemas(): Promise<SchemaMetadata[]> {
      const { rows } = await sql<{ name: string }>`SELECT nspname AS name FROM pg_namespace`.execute(db);
      return rows;
    },
    async getTables(): Promise<TableMetadata[]> {
      const { rows } = await sql<{ name: string; kind: string }>`
        SELECT c.relname AS name, c.relkind AS kind FROM pg_class c
        JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = ${schema} AND c.relkind IN ('r', 'p', 'v', 'm')`.execute(db);
      return rows.map((r) => ({
        name: r.name,
        schema,
        isView: r.kind === 'v' || r.kind === 'm',
        columns: [],
      }));
    },
    async getMetadata(): Promise<DatabaseMetadata> {
      return { tables: await this.getTables() };
    },
  };
  return new Proxy(db, {
    get(target, prop) {
      if (prop === 'introspection') return introspector;
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * True when the schema records exactly our migrations as applied — one query, the usual case at
 * start-up (kysely's Migrator would create its tables, take its lock and list every migration,
 * a dozen statements). Anything else (no schema yet, a migration missing, one we do not know) is
 * false: the Migrator runs and decides.
 */
async function upToDate(db: Kysely<Database>, schema: string): Promise<boolean> {
  const known = Object.keys(MIGRATIONS);
  try {
    const { rows } = await sql<{
      name: string;
    }>`SELECT name FROM ${sql.id(schema, 'kysely_migration')}`.execute(db);
    const applied = new Set(rows.map((r) => r.name));
    return applied.size === known.length && known.every((name) => applied.has(name));
  } catch {
    return false;
  }
}

/** Runs every pending migration (idempotent; serialized across processes by kysely's migration lock). */
export async function migrateToLatest(
  db: Kysely<Database>,
  schema: string = DEFAULT_SCHEMA,
): Promise<string[]> {
  assertSchemaName(schema);
  if (await upToDate(db, schema)) return [];
  try {
    await sql`CREATE SCHEMA IF NOT EXISTS ${sql.id(schema)}`.execute(db);
  } catch (error) {
    // Two processes creating the schema at once: the loser sees a unique violation; the schema exists.
    const exists = await sql<{
      n: number;
    }>`SELECT 1 AS n FROM pg_namespace WHERE nspname = ${schema}`.execute(db);
    if (exists.rows.length === 0) throw error;
  }
  const migrator = new Migrator({
    db: withSchemaIntrospection(db, schema),
    provider: migrationProvider,
    migrationTableSchema: schema,
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    throw new Error(
      `migration ${failed ?? ''} failed: ${error instanceof Error ? error.message : String(error)}`,
      {
        cause: error,
      },
    );
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
