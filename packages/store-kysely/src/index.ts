/**
 * `@agentgov/store-kysely`: the agentgov store ports on SQL through kysely — PostgreSQL (`pg`)
 * and embedded PGlite, one migration set, monthly audit partitions, append-only triggers.
 */

/** kysely's raw SQL tag, re-exported so callers (scripts, benches) need no direct kysely dependency. */
export { type Kysely, sql } from 'kysely';
export { KyselyAuditStore, type KyselyAuditStoreOptions } from './audit-store';
export { KyselyBriefingStore } from './briefing-store';
export { KyselyClassificationStore } from './classification-store';
export {
  createPGliteKysely,
  createPostgresKysely,
  createSqlStores,
  DEFAULT_SCHEMA,
  databaseKind,
  type EnsurePartitionsResult,
  ensurePartitions,
  type MigrateResult,
  migrateToLatest,
  type OpenStoreOptions,
  openStore,
  type PgPoolLike,
  type SqlStores,
} from './connect';
export { KyselyConnectorStore } from './connector-store';
export { KyselyExchangeStore } from './exchange-store';
export { KyselyInstanceRegistry } from './instance-registry';
export { MIGRATIONS, migrationProvider, PARTITION_MONTHS_AHEAD } from './migrations';
export { KyselyOrgDirectory } from './org-directory';
export { PGliteDialect, type PGliteDialectConfig, type PGliteLike } from './pglite-dialect';
export { KyselyPolicyStore } from './policy-store';
export type {
  AuditChainHeadsTable,
  AuditCheckpointsTable,
  AuditEntriesTable,
  BriefingsTable,
  ClassificationsTable,
  ConnectorsTable,
  Database,
  DirectoryOrgsTable,
  DirectoryTeamsTable,
  DirectoryUsersTable,
  ExchangesTable,
  GatewayInstancesTable,
  PoliciesTable,
  SessionsTable,
  TasksTable,
  TenantsTable,
} from './schema';
export { KyselySessionStore } from './session-store';
export { KyselyTaskStore } from './task-store';
export { KyselyTenantStore } from './tenant-store';
