/**
 * The store bundle: every store over one kysely instance (`createSqlStores`), and `openStore`,
 * which opens PostgreSQL or PGlite from a URL or directory, checks it and migrates it.
 */
import type {
  AuditStore,
  BriefingStore,
  ClassificationStore,
  ConnectorStore,
  ExchangeStore,
  IdempotencyStore,
  InstanceRegistry,
  OrgDirectory,
  PolicyStore,
  SessionStore,
  TaskStore,
  TenantStore,
  ToolCallInbox,
  UnitOfWork,
  WorkTrackingStore,
} from '@agentgov/core';
import { type Kysely, sql } from 'kysely';
import { KyselyAuditStore } from './audit-store';
import { KyselyBriefingStore } from './briefing-store';
import { KyselyClassificationStore } from './classification-store';
import { KyselyConnectorStore } from './connector-store';
import { createPGliteKysely, createPostgresKysely } from './create-kysely';
import { openPGlite, openPostgresPool, type PostgresTlsOptions } from './drivers';
import { KyselyExchangeStore } from './exchange-store';
import { KyselyIdempotencyStore } from './idempotency-store';
import { KyselyInstanceRegistry } from './instance-registry';
import { auditPartitions, type EnsurePartitionsResult, ensurePartitions } from './migrations/partitions';
import { migrateToLatest } from './migrations/run';
import { KyselyOrgDirectory } from './org-directory';
import { KyselyPolicyStore } from './policy-store';
import type { Database } from './schema';
import { KyselySessionStore } from './session-store';
import { assertSchemaName, DEFAULT_SCHEMA } from './sql-util';
import { KyselyTaskStore } from './task-store';
import { KyselyTenantStore } from './tenant-store';
import { KyselyToolCallInbox } from './tool-call-inbox';
import { KyselyUnitOfWork } from './unit-of-work';
import { KyselyWorkTrackingStore } from './work-tracking-store';

/** The migration that creates a schema's tables and its first audit partitions. */
const FIRST_MIGRATION = '0001_initial';

export interface MigrateResult {
  /** Migrations applied by this call (empty when already up to date). */
  applied: string[];
  /** Partitions created by this call's `ensurePartitions()`. */
  partitions: EnsurePartitionsResult;
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
  /** Webhook deliveries, work activity, the tracker-write outbox and counters (`@agentgov/work-tracking`). */
  workTracking: WorkTrackingStore;
  /** The org directory learned from ID-token claims (`place`), persisted per tenant. */
  directory: OrgDirectory;
  /** Live server processes sharing this database (`gatewayInstances`). */
  instances: InstanceRegistry;
  /** Responses kept for `Idempotency-Key` retries (the kernel's `GovernanceConfig.idempotency`). */
  idempotency: IdempotencyStore;
  /** Tool calls of `@agentgov/mcp` waiting for a human, and the notices of `notify` tools. */
  toolCalls: ToolCallInbox;
  /** Writes that commit together (a write and its audit entry): one database transaction. */
  unitOfWork: UnitOfWork;
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
    workTracking: new KyselyWorkTrackingStore(db),
    directory: new KyselyOrgDirectory(db),
    instances: new KyselyInstanceRegistry(db),
    idempotency: new KyselyIdempotencyStore(db),
    toolCalls: new KyselyToolCallInbox(db),
    unitOfWork: new KyselyUnitOfWork(db),
    async migrate() {
      const applied = await migrateToLatest(db, schema);
      const partitions = await ensurePartitions(db);
      // A new schema gets its partitions from the first migration: created by this call too.
      if (!applied.includes(FIRST_MIGRATION)) return { applied, partitions };
      const made = await auditPartitions(db, schema);
      return {
        applied,
        partitions: { ...partitions, created: [...new Set([...made, ...partitions.created])].sort() },
      };
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
  /**
   * PostgreSQL over TLS: CA, client certificate and key, and the name to verify (see
   * `PostgresTlsOptions`); the server's certificate and name are always verified. Not with TLS
   * parameters in the URL (`sslmode`, `sslrootcert` …): one or the other.
   */
  tls?: PostgresTlsOptions;
  /** Rows per `scan` round trip (default 500). */
  scanBatchSize?: number;
  /**
   * PGlite directory only: a cache directory for the template an empty data directory starts
   * from — a database created and migrated once, loaded instead of running `initdb` (seconds of
   * a first start). Made there on first use; keyed by the PGlite version, the schema and this
   * package's code, checked by its SHA-256. Default: none (`initdb`).
   */
  pgliteTemplateDir?: string;
}

/** What kind of database a `--database` / `database` value names. */
export function databaseKind(database: string): 'postgres' | 'pglite-memory' | 'pglite-dir' {
  if (/^postgres(ql)?:\/\//i.test(database)) return 'postgres';
  if (database === 'memory://' || database === 'memory:') return 'pglite-memory';
  return 'pglite-dir';
}

/**
 * Opens the stores on PostgreSQL or PGlite. The drivers are loaded on demand (`pg` only for
 * PostgreSQL URLs, `@electric-sql/pglite` only for PGlite; a missing one fails with an error
 * naming the package to install), and the connection is checked before this resolves.
 */
export async function openStore(options: OpenStoreOptions): Promise<SqlStores> {
  const schema = options.schema ?? DEFAULT_SCHEMA;
  assertSchemaName(schema);
  const kind = databaseKind(options.database);
  const db =
    kind === 'postgres'
      ? createPostgresKysely({
          pool: await openPostgresPool(options.database, {
            ...options.pool,
            ...(options.tls ? { tls: options.tls } : {}),
          }),
          schema,
        })
      : createPGliteKysely({
          client: await openPGlite(
            kind === 'pglite-memory' ? undefined : options.database,
            undefined,
            options.pgliteTemplateDir ? { dir: options.pgliteTemplateDir, schema } : undefined,
          ),
          schema,
        });
  const stores = createSqlStores(db, {
    schema,
    kind: kind === 'postgres' ? 'postgres' : 'pglite',
    ...(options.scanBatchSize === undefined ? {} : { scanBatchSize: options.scanBatchSize }),
  });
  try {
    await stores.ping();
    if (options.migrate !== false) await stores.migrate();
  } catch (error) {
    await stores.close().catch(() => {});
    throw error;
  }
  return stores;
}
