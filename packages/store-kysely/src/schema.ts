/**
 * Table types of the SQL schema (see `migrations.ts` for the DDL and the README for the design).
 * Column names are snake_case; every row carries its tenant.
 */
import type { ColumnType } from 'kysely';

/** A timestamptz column: written as an ISO 8601 string, read back as `Date` or string by the driver. */
type Timestamptz = ColumnType<Date | string, string, string>;
/** A bigint column: drivers return it as string (pg) or number (PGlite). */
type BigIntColumn = ColumnType<string | number, number, number>;
/** A jsonb column: written as JSON text (cast to jsonb), read back parsed. */
type Jsonb<T> = ColumnType<T, string, string>;

export interface AuditEntriesTable {
  tenant_id: string;
  seq: BigIntColumn;
  id: string;
  user_id: string;
  timestamp: Timestamptz;
  action_type: string;
  action_detail: Jsonb<Record<string, unknown>>;
  data_accessed: Jsonb<unknown[]>;
  model_used: string | null;
  model_tokens: Jsonb<{ input: number; output: number } | null>;
  data_classification: string;
  policy_applied: string;
  policy_result: string;
  policy_reason: string;
  outcome: string;
  request_id: string;
  prev_hash: string;
  hash: string;
  commitments: Jsonb<Record<string, string>>;
}

export interface AuditChainHeadsTable {
  tenant_id: string;
  seq: BigIntColumn;
  hash: string;
  updated_at: ColumnType<Date | string, string | undefined, string>;
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

/** A nullable timestamptz column. */
type NullableTimestamptz = ColumnType<Date | string | null, string | null, string | null>;

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
}

export interface SessionsTable {
  id_hash: string;
  tenant_id: string;
  user_id: string;
  email: string;
  roles: Jsonb<string[]>;
  org_unit: string | null;
  team: string | null;
  created_at: Timestamptz;
  expires_at: Timestamptz;
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
  data_shared: Jsonb<unknown[]>;
  data_withheld: Jsonb<unknown[]>;
  policy_applied: string;
  transcript: Jsonb<Record<string, unknown>[]>;
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
  sources: Jsonb<unknown[]>;
  correlation_id: string | null;
  correlation_confidence: number | null;
  deadline: NullableTimestamptz;
  urgency_signals: Jsonb<Record<string, unknown>>;
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
  tasks: Jsonb<unknown[]>;
  time_blocks: Jsonb<unknown[]>;
  auto_response_summary: Jsonb<Record<string, unknown>>;
  org_news_items: Jsonb<unknown[]>;
  doc_change_alerts: Jsonb<unknown[]>;
  alerts: Jsonb<unknown[]>;
  connector_status: Jsonb<Record<string, string>>;
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

/** The kysely database type of every agentgov table. */
export interface Database {
  audit_entries: AuditEntriesTable;
  audit_chain_heads: AuditChainHeadsTable;
  audit_checkpoints: AuditCheckpointsTable;
  policies: PoliciesTable;
  tenants: TenantsTable;
  connectors: ConnectorsTable;
  sessions: SessionsTable;
  exchanges: ExchangesTable;
  tasks: TasksTable;
  briefings: BriefingsTable;
  classifications: ClassificationsTable;
  directory_orgs: DirectoryOrgsTable;
  directory_teams: DirectoryTeamsTable;
  directory_users: DirectoryUsersTable;
  gateway_instances: GatewayInstancesTable;
}
