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

/** The kysely database type of every agentgov table. */
export interface Database {
  audit_entries: AuditEntriesTable;
  audit_chain_heads: AuditChainHeadsTable;
  audit_checkpoints: AuditCheckpointsTable;
  policies: PoliciesTable;
}
