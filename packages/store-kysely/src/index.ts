/**
 * `@agentgov/store-kysely`: the agentgov store ports on SQL through kysely — PostgreSQL (`pg`)
 * and embedded PGlite, one migration set, monthly audit partitions, append-only triggers.
 * Both drivers are optional peer dependencies, imported only when a database of their kind opens.
 */

/** kysely's raw SQL tag, re-exported so callers (scripts, benches) need no direct kysely dependency. */
export { type Kysely, sql } from 'kysely';
export { KyselyAuditStore, type KyselyAuditStoreOptions } from './audit-store';
export { KyselyBriefingStore } from './briefing-store';
export { KyselyClassificationStore } from './classification-store';
export {
  createSqlStores,
  databaseKind,
  type MigrateResult,
  type OpenStoreOptions,
  openStore,
  type SqlStores,
} from './connect';
export { KyselyConnectorStore } from './connector-store';
export { createPGliteKysely, createPostgresKysely, type PgPoolLike } from './create-kysely';
export { type PostgresTlsOptions, preparePGliteTemplate } from './drivers';
export { KyselyExchangeStore } from './exchange-store';
export { KyselyIdempotencyStore } from './idempotency-store';
export { KyselyInstanceRegistry } from './instance-registry';
export { MIGRATIONS, migrationProvider } from './migrations/index';
export {
  type EnsurePartitionsResult,
  ensurePartitions,
  PARTITION_MONTHS_AHEAD,
} from './migrations/partitions';
export { migrateToLatest } from './migrations/run';
export { KyselyOrgDirectory } from './org-directory';
export { PGliteDialect, type PGliteDialectConfig, type PGliteLike } from './pglite-dialect';
export { KyselyPolicyStore } from './policy-store';
export { KyselyScheduledRunStore } from './scheduled-run-store';
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
  ScheduledRunsTable,
  SessionsTable,
  TasksTable,
  TenantsTable,
  ToolApprovalsTable,
  ToolNoticesTable,
  TrackerWritesTable,
  WebhookDeliveriesTable,
  WorkActivitiesTable,
  WorkCountersTable,
} from './schema';
export { KyselySessionStore } from './session-store';
export { DEFAULT_SCHEMA } from './sql-util';
export { KyselyTaskStore } from './task-store';
export { KyselyTenantStore } from './tenant-store';
export { KyselyToolCallInbox } from './tool-call-inbox';
export { KyselyUnitOfWork } from './unit-of-work';
export { KyselyWorkTrackingStore } from './work-tracking-store';
