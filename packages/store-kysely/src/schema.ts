/**
 * The kysely type of the SQL schema: one interface per table (the DDL is in `migrations/`, the
 * design in the README). Column names are snake_case; every tenant-scoped row carries its tenant.
 *
 * These interfaces are the only description of the columns in TypeScript: what a store writes is
 * `Insertable<…Table>` / `Updateable<…Table>`, what it reads is `StoredRow<…Table>` (below).
 */
import type { AuditEntry, Briefing, Exchange, Role, Task, WorkActivity } from '@agentgov/core';
import type { ColumnType, Generated, RawBuilder, Selectable } from 'kysely';

/** A timestamptz column: written as an ISO 8601 string; the driver reads it as `Date` (or string). */
type Timestamptz = ColumnType<Date | string, string, string>;
/** A nullable timestamptz column. */
type NullableTimestamptz = ColumnType<Date | string | null, string | null, string | null>;
/** A bigint column: drivers read it as string (pg), number, or bigint beyond 2^53 (PGlite). */
type BigIntColumn = ColumnType<string | number | bigint, number, number>;

/**
 * A jsonb column: read back parsed as `T`, written as the expression `jsonb(value)` of `sql-util`
 * (JSON text cast to jsonb). A bare JS value does not type-check as the written value, because
 * node-pg would turn an array into a PostgreSQL array literal.
 */
type Jsonb<T> = ColumnType<T, RawBuilder<T>, RawBuilder<T>>;

/** Columns that the stores read as text: timestamps (microseconds kept) and bigints. */
type TextColumn<Table> = {
  [K in keyof Table]: Table[K] extends Timestamptz | NullableTimestamptz | BigIntColumn ? K : never;
}[keyof Table];

/**
 * A row of a table as the stores select it: a timestamptz column `c` as ISO text
 * `isoText('c') AS c_text` (see `sql-util`: a driver `Date` would drop the microseconds), a bigint
 * `c` as `c::text AS c_text`, every other column as stored. The aliases differ from the column
 * names so that `ORDER BY c` keeps ordering by the column, not by its text.
 */
export type StoredRow<Table> = {
  [K in keyof Selectable<Table> as K extends TextColumn<Table>
    ? `${K & string}_text`
    : K]: K extends TextColumn<Table>
    ? null extends Selectable<Table>[K]
      ? string | null
      : string
    : Selectable<Table>[K];
};

export interface AuditEntriesTable {
  tenant_id: string;
  seq: BigIntColumn;
  id: string;
  user_id: string;
  timestamp: Timestamptz;
  action_type: string;
  action_detail: Jsonb<AuditEntry['actionDetail']>;
  data_accessed: Jsonb<AuditEntry['dataAccessed']>;
  model_used: string | null;
  model_tokens: Jsonb<AuditEntry['modelTokens']>;
  data_classification: string;
  policy_applied: string;
  policy_result: string;
  policy_reason: string;
  outcome: string;
  request_id: string;
  prev_hash: string;
  hash: string;
  commitments: Jsonb<Record<string, string>>;
  /** The exact text the hash covers (migration 0009); NULL for rows stored before it. */
  leaf: string | null;
}

export interface AuditChainHeadsTable {
  tenant_id: string;
  seq: BigIntColumn;
  hash: string;
  /** `DEFAULT now()`; moved to `now()` by every append. */
  updated_at: Generated<Date | string>;
}

export interface AuditCheckpointsTable {
  tenant_id: string;
  tree_size: BigIntColumn;
  root_hash: string;
  issued_at: Timestamptz;
  jws: string;
}

export interface PoliciesTable {
  tenant_id: string;
  id: string;
  scope: string;
  scope_id: string;
  domain: string;
  name: string;
  version: string;
  content: string;
  status: string;
  created_by: string;
  created_at: Timestamptz;
  updated_at: Timestamptz;
  change_reason: string;
}

export interface TenantsTable {
  id: string;
  name: string;
  status: string;
  created_at: Timestamptz;
}

export interface ConnectorsTable {
  tenant_id: string;
  id: string;
  type: string;
  user_id: string | null;
  permissions: string;
  default_classification: string;
  status: string;
  credentials_ref: string;
  last_sync_at: NullableTimestamptz;
  error_details: string | null;
  config: Jsonb<Record<string, unknown>>;
  created_at: Timestamptz;
  /** Consecutive failed pulls (0008). */
  sync_failures: Generated<number>;
  /** When the next pull is due, or the lease of one in progress; null: never pulled (0008). */
  next_sync_at: ColumnType<Date | string | null, string | null | undefined, string | null>;
}

/** Which tenant holds a secret reference, by `secretRefKey` (0012). */
interface SecretRefOwnersTable {
  ref_key: string;
  tenant_id: string;
  bound_at: Generated<Date | string>;
}

export interface ScheduledRunsTable {
  tenant_id: string;
  job: string;
  run_key: string;
  owner: string;
  claimed_at: Timestamptz;
}

export interface SessionsTable {
  id_hash: string;
  tenant_id: string;
  user_id: string;
  email: string;
  roles: Jsonb<Role[]>;
  org_unit: string | null;
  team: string | null;
  created_at: Timestamptz;
  expires_at: Timestamptz;
  last_seen_at: Timestamptz;
  absolute_expires_at: Timestamptz;
  user_agent: string | null;
  ip: string | null;
}

export interface ExchangesTable {
  tenant_id: string;
  exchange_id: string;
  conversation_id: string;
  initiator_agent_id: string;
  initiator_user_id: string;
  responder_agent_id: string;
  responder_user_id: string;
  exchange_type: string;
  current_round: number;
  max_rounds: number;
  classification_level: string;
  outcome: string;
  escalation_reason: string | null;
  data_shared: Jsonb<Exchange['dataShared']>;
  data_withheld: Jsonb<Exchange['dataWithheld']>;
  policy_applied: string;
  transcript: Jsonb<Exchange['transcript']>;
  channel: string;
  started_at: Timestamptz;
  ended_at: NullableTimestamptz;
}

export interface TasksTable {
  tenant_id: string;
  id: string;
  user_id: string;
  title: string;
  description: string;
  priority_score: number;
  status: string;
  sources: Jsonb<Task['sources']>;
  correlation_id: string | null;
  correlation_confidence: number | null;
  deadline: NullableTimestamptz;
  urgency_signals: Jsonb<Task['urgencySignals']>;
  classification: string;
  discovered_at: Timestamptz;
  completed_at: NullableTimestamptz;
  archived_at: NullableTimestamptz;
  purge_at: NullableTimestamptz;
}

export interface BriefingsTable {
  tenant_id: string;
  id: string;
  user_id: string;
  generated_at: Timestamptz;
  tasks: Jsonb<Briefing['tasks']>;
  time_blocks: Jsonb<Briefing['timeBlocks']>;
  auto_response_summary: Jsonb<Briefing['autoResponseSummary']>;
  org_news_items: Jsonb<Briefing['orgNewsItems']>;
  doc_change_alerts: Jsonb<Briefing['docChangeAlerts']>;
  alerts: Jsonb<Briefing['alerts']>;
  connector_status: Jsonb<Briefing['connectorStatus']>;
  delivery_channel: string;
  delivered_at: NullableTimestamptz;
}

export interface ClassificationsTable {
  tenant_id: string;
  data_ref: string;
  level: string;
  assigned_by: string;
  original_level: string | null;
  override_by: string | null;
  override_reason: string | null;
  assessed_at: Timestamptz;
}

export interface WebhookDeliveriesTable {
  tenant_id: string;
  source: string;
  delivery_id: string;
  event: string;
  received_at: Timestamptz;
}

export interface WorkActivitiesTable {
  tenant_id: string;
  id: string;
  user_id: string;
  kind: string;
  occurred_at: Timestamptz;
  source: string;
  delivery_id: string;
  subject: string;
  title: string;
  url: string;
  tickets: Jsonb<WorkActivity['tickets']>;
  detail: Jsonb<WorkActivity['detail']>;
}

export interface TrackerWritesTable {
  tenant_id: string;
  id: string;
  tool: string;
  ticket_id: string;
  comment: string | null;
  transition_name: string | null;
  state: string;
  attempts: number;
  next_attempt_at: Timestamptz;
  last_error: string | null;
  created_at: Timestamptz;
  delivered_at: NullableTimestamptz;
  user_id: string;
  request_id: string;
  delivery_id: string;
  policy_applied: string;
  policy_reason: string;
}

export interface WorkCountersTable {
  tenant_id: string;
  name: string;
  value: BigIntColumn;
}

export interface DirectoryOrgsTable {
  tenant_id: string;
  org_id: string;
}

export interface DirectoryTeamsTable {
  tenant_id: string;
  team_id: string;
  org_id: string | null;
}

export interface DirectoryUsersTable {
  tenant_id: string;
  user_id: string;
  org_id: string | null;
  team_id: string | null;
}

export interface GatewayInstancesTable {
  instance_id: string;
  expires_at: Timestamptz;
}

export interface ToolApprovalsTable {
  tenant_id: string;
  id: string;
  seq: Generated<BigIntColumn>;
  user_id: string;
  tool: string;
  policy_tool: string;
  upstream: string;
  arguments_digest: string;
  /** The canonical JSON whose SHA-256 is `arguments_digest` (migration 0011; null before it). */
  arguments: string | null;
  reason: string;
  status: string;
  created_at: Timestamptz;
  expires_at: Timestamptz;
  decided_at: NullableTimestamptz;
  decided_by: string | null;
  note: string | null;
  consumed_at: NullableTimestamptz;
}

export interface ToolNoticesTable {
  tenant_id: string;
  id: string;
  seq: Generated<BigIntColumn>;
  user_id: string;
  tool: string;
  upstream: string;
  arguments_digest: string;
  outcome: string;
  at: Timestamptz;
}

/** The kysely database type of every agentgov table. */
export interface Database {
  audit_entries: AuditEntriesTable;
  audit_chain_heads: AuditChainHeadsTable;
  audit_checkpoints: AuditCheckpointsTable;
  policies: PoliciesTable;
  tenants: TenantsTable;
  connectors: ConnectorsTable;
  secret_ref_owners: SecretRefOwnersTable;
  sessions: SessionsTable;
  exchanges: ExchangesTable;
  tasks: TasksTable;
  briefings: BriefingsTable;
  classifications: ClassificationsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  work_activities: WorkActivitiesTable;
  tracker_writes: TrackerWritesTable;
  work_counters: WorkCountersTable;
  directory_orgs: DirectoryOrgsTable;
  directory_teams: DirectoryTeamsTable;
  directory_users: DirectoryUsersTable;
  gateway_instances: GatewayInstancesTable;
  tool_approvals: ToolApprovalsTable;
  tool_notices: ToolNoticesTable;
  scheduled_runs: ScheduledRunsTable;
}
