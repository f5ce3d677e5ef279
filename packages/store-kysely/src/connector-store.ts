import type { Connector, ConnectorStatus, ConnectorStore } from '@agentgov/core';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database } from './schema';
import { affected, isoFromText, isoFromTextOrNull, isoText, jsonb, ts } from './sql-util';

interface ConnectorRow {
  tenant_id: string;
  id: string;
  type: string;
  user_id: string | null;
  permissions: string;
  default_classification: string;
  status: string;
  credentials_ref: string;
  last_sync: string | null;
  error_details: string | null;
  config: Record<string, unknown>;
  created: string;
}

const SELECT_COLUMNS = sql`tenant_id, id, type, user_id, permissions, default_classification, status,
  credentials_ref, ${isoText('last_sync_at')} AS last_sync, error_details, config, ${isoText('created_at')} AS created`;

const toConnector = (r: ConnectorRow): Connector =>
  ({
    id: r.id,
    type: r.type,
    tenantId: r.tenant_id,
    userId: r.user_id,
    permissions: r.permissions,
    defaultClassification: r.default_classification,
    status: r.status,
    credentialsRef: r.credentials_ref,
    lastSyncAt: isoFromTextOrNull(r.last_sync),
    errorDetails: r.error_details,
    config: r.config,
    createdAt: isoFromText(r.created),
  }) as Connector;

/** `ConnectorStore` on PostgreSQL / PGlite: one row per connector, keyed by (tenant_id, id). */
export class KyselyConnectorStore implements ConnectorStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async insert(c: Connector): Promise<void> {
    await sql`INSERT INTO connectors (tenant_id, id, type, user_id, permissions, default_classification, status,
        credentials_ref, last_sync_at, error_details, config, created_at)
      VALUES (${c.tenantId}, ${c.id}, ${c.type}, ${c.userId}, ${c.permissions}, ${c.defaultClassification},
        ${c.status}, ${c.credentialsRef}, ${ts(c.lastSyncAt)}, ${c.errorDetails}, ${jsonb(c.config)},
        ${ts(c.createdAt)})`.execute(this.#db);
  }

  async update(c: Connector): Promise<boolean> {
    const result = await sql`UPDATE connectors SET type = ${c.type}, user_id = ${c.userId},
        permissions = ${c.permissions}, default_classification = ${c.defaultClassification}, status = ${c.status},
        credentials_ref = ${c.credentialsRef}, last_sync_at = ${ts(c.lastSyncAt)}, error_details = ${c.errorDetails},
        config = ${jsonb(c.config)}, created_at = ${ts(c.createdAt)}
      WHERE tenant_id = ${c.tenantId} AND id = ${c.id}`.execute(this.#db);
    return affected(result) > 0;
  }

  async get(tenantId: string, id: string): Promise<Connector | undefined> {
    const { rows } = await sql<ConnectorRow>`SELECT ${SELECT_COLUMNS} FROM connectors
      WHERE tenant_id = ${tenantId} AND id = ${id}`.execute(this.#db);
    const row = rows[0];
    return row && toConnector(row);
  }

  async list(
    tenantId: string,
    filter: { status?: ConnectorStatus; type?: Connector['type'] } = {},
  ): Promise<Connector[]> {
    const parts: RawBuilder<unknown>[] = [sql`tenant_id = ${tenantId}`];
    if (filter.status) parts.push(sql`status = ${filter.status}`);
    if (filter.type) parts.push(sql`type = ${filter.type}`);
    const { rows } = await sql<ConnectorRow>`SELECT ${SELECT_COLUMNS} FROM connectors
      WHERE ${sql.join(parts, sql` AND `)} ORDER BY created_at, id`.execute(this.#db);
    return rows.map(toConnector);
  }
}
