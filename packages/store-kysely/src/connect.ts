import type {
  AuditStore,
  BriefingStore,
  ClassificationStore,
  ConnectorStore,
  ExchangeStore,
  InstanceRegistry,
  OrgDirectory,
  PolicyStore,
  SessionStore,
  TaskStore,
  TenantStore,
} from '@agentgov/core';
import {
  CompiledQuery,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type DatabaseMetadata,
  Kysely,
  Migrator,
  PostgresDialect,
  type PostgresPool,
  type SchemaMetadata,
  sql,
  type TableMetadata,
} from 'kysely';
import { KyselyAuditStore } from './audit-store';
import { KyselyBriefingStore } from './briefing-store';
import { KyselyClassificationStore } from './classification-store';
import { KyselyConnectorStore } from './connector-store';
import { KyselyExchangeStore } from './exchange-store';
import { KyselyInstanceRegistry } from './instance-registry';
import { migrationProvider, PARTITION_MONTHS_AHEAD } from './migrations';
import { KyselyOrgDirectory } from './org-directory';
import { PGliteDialect, type PGliteLike } from './pglite-dialect';
import { KyselyPolicyStore } from './policy-store';
import type { Database } from './schema';
import { KyselySessionStore } from './session-store';
import { assertSchemaName } from './sql-util';
import { KyselyTaskStore } from './task-store';
import { KyselyTenantStore } from './tenant-store';

/** Schema used when none is given. */
export const DEFAULT_SCHEMA = 'agentgov';

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

export interface MigrateResult {
  /** Migrations applied by this call (empty when already up to date). */
  applied: string[];
  /** Partitions created by this call's `ensurePartitions()`. */
  partitions: EnsurePartitionsResult;
}

export interface EnsurePartitionsResult {
  /** Monthly partitions created by this call (`audit_entries_pYYYYMM`). */
  created: string[];
  /**
   * Months not created because the default partition already holds entries of that month
   * (PostgreSQL cannot attach a range the default partition overlaps; those entries stay there).
   */
  blocked: string[];
}

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

/** Runs every pending migration (idempotent; serialized across processes by kysely's migration lock). */
export async function migrateToLatest(
  db: Kysely<Database>,
  schema: string = DEFAULT_SCHEMA,
): Promise<string[]> {
  assertSchemaName(schema);
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

/**
 * Creates the monthly audit partitions of the month of `now` and the 12 following ones when they
 * do not exist yet. Idempotent and safe to run concurrently (an advisory lock serializes it).
 */
export async function ensurePartitions(
  db: Kysely<Database>,
  now: Date = new Date(),
): Promise<EnsurePartitionsResult> {
  const { rows } = await sql<{ partition_name: string; status: string }>`
    SELECT partition_name, status FROM audit_ensure_partitions(${now.toISOString()}::timestamptz, ${PARTITION_MONTHS_AHEAD})`.execute(
    db,
  );
  return {
    created: rows.filter((r) => r.status === 'created').map((r) => r.partition_name),
    blocked: rows.filter((r) => r.status === 'blocked').map((r) => r.partition_name),
  };
}

/** Everything `openStore` returns. */
export interface SqlStores {
  db: Kysely<Database>;
  /** `postgres` or `pglite`. */
  kind: 'postgres' | 'pglite';
  schema: string;
  audit: AuditStore;
  policies: PolicyStore;
  tenants: TenantStore;
  connectors: ConnectorStore;
  sessions: SessionStore;
  exchanges: ExchangeStore;
  tasks: TaskStore;
  briefings: BriefingStore;
  classifications: ClassificationStore;
  /** The org directory learned from ID-token claims (`place`), persisted per tenant. */
  directory: OrgDirectory;
  /** Live server processes sharing this database (`gatewayInstances`). */
  instances: InstanceRegistry;
  /** Applies pending migrations, then `ensurePartitions()`. Idempotent. */
  migrate(): Promise<MigrateResult>;
  ensurePartitions(now?: Date): Promise<EnsurePartitionsResult>;
  /** Resolves when the database answers `SELECT 1`. */
  ping(): Promise<void>;
  /** Closes the pool / the PGlite instance. */
  close(): Promise<void>;
}

/** Builds the store bundle over an existing kysely instance (its connections must use `schema`). */
export function createSqlStores(
  db: Kysely<Database>,
  options: { schema?: string; kind: 'postgres' | 'pglite'; scanBatchSize?: number },
): SqlStores {
  const schema = options.schema ?? DEFAULT_SCHEMA;
  assertSchemaName(schema);
  return {
    db,
    kind: options.kind,
    schema,
    audit: new KyselyAuditStore(db, {
      lockMode: options.kind === 'pglite' ? 'process' : 'row',
      ...(options.scanBatchSize === undefined ? {} : { scanBatchSize: options.scanBatchSize }),
    }),
    policies: new KyselyPolicyStore(db),
    tenants: new KyselyTenantStore(db),
    connectors: new KyselyConnectorStore(db),
    sessions: new KyselySessionStore(db),
    exchanges: new KyselyExchangeStore(db),
    tasks: new KyselyTaskStore(db),
    briefings: new KyselyBriefingStore(db),
    classifications: new KyselyClassificationStore(db),
    directory: new KyselyOrgDirectory(db),
    instances: new KyselyInstanceRegistry(db),
    async migrate() {
      const applied = await migrateToLatest(db, schema);
      const partitions = await ensurePartitions(db);
      return { applied, partitions };
    },
    ensurePartitions: (now?: Date) => ensurePartitions(db, now),
    async ping() {
      await sql`SELECT 1`.execute(db);
    },
    close: () => db.destroy(),
  };
}

export interface OpenStoreOptions {
  /**
   * `postgres://…` or `postgresql://…` for PostgreSQL; `memory://` (or `memory:`) for an in-memory
   * PGlite; anything else is a PGlite data directory (created when missing).
   */
  database: string;
  /** Schema holding every table (default `agentgov`); created by `migrate()`. */
  schema?: string;
  /** Run `migrate()` (migrations + `ensurePartitions()`) before returning (default true). */
  migrate?: boolean;
  /** PostgreSQL pool size (default 10) and connection timeout in ms (default 10,000). */
  pool?: { max?: number; connectionTimeoutMillis?: number };
  /** Rows per `scan` round trip (default 500). */
  scanBatchSize?: number;
}

/** What kind of database a `--database` / `database` value names. */
export function databaseKind(database: string): 'postgres' | 'pglite-memory' | 'pglite-dir' {
  if (/^postgres(ql)?:\/\//i.test(database)) return 'postgres';
  if (database === 'memory://' || database === 'memory:') return 'pglite-memory';
  return 'pglite-dir';
}

/**
 * Opens the stores on PostgreSQL or PGlite. The drivers are loaded on demand (`pg` only for
 * PostgreSQL URLs, `@electric-sql/pglite` only for PGlite), and the connection is checked before
 * this resolves.
 */
export async function openStore(options: OpenStoreOptions): Promise<SqlStores> {
  const schema = options.schema ?? DEFAULT_SCHEMA;
  assertSchemaName(schema);
  const kind = databaseKind(options.database);
  let stores: SqlStores;
  if (kind === 'postgres') {
    const pg = await import('pg');
    const Pool = (pg.default?.Pool ?? (pg as unknown as typeof pg.default).Pool) as typeof pg.default.Pool;
    const pool = new Pool({
      connectionString: options.database,
      max: options.pool?.max ?? 10,
      connectionTimeoutMillis: options.pool?.connectionTimeoutMillis ?? 10_000,
    });
    // An idle client dropped by the server must not crash the process; the next query reconnects.
    pool.on('error', () => {});
    const db = createPostgresKysely({ pool, schema });
    stores = createSqlStores(db, { schema, kind: 'postgres', ...scan(options) });
  } else {
    const { PGlite } = await import('@electric-sql/pglite');
    const client = kind === 'pglite-memory' ? await PGlite.create() : await PGlite.create(options.database);
    const db = createPGliteKysely({ client: client as unknown as PGliteLike, schema });
    stores = createSqlStores(db, { schema, kind: 'pglite', ...scan(options) });
  }
  try {
    await stores.ping();
    if (options.migrate !== false) await stores.migrate();
  } catch (error) {
    await stores.close().catch(() => {});
    throw error;
  }
  return stores;
}

const scan = (o: OpenStoreOptions) =>
  o.scanBatchSize === undefined ? {} : { scanBatchSize: o.scanBatchSize };
