import type { Connector, ConnectorStatus, ConnectorStore } from '@agentgov/core';
import { type Insertable, type Kysely, type RawBuilder, sql } from 'kysely';
import type { ConnectorsTable, Database, StoredRow } from './schema';
import { isoFromText, isoFromTextOrNull, isoText, jsonb, withoutKeys } from './sql-util';

const SELECT_COLUMNS = sql`tenant_id, id, type, user_id, permissions, default_classification, status,
  credentials_ref, ${isoText('last_sync_at')} AS last_sync_at_text, error_details, config,
  ${isoText('created_at')} AS created_at_text`;

const toConnector = (r: StoredRow<ConnectorsTable>): Connector =>
  ({
    id: r.id,
    type: r.type,
    tenantId: r.tenant_id,
    userId: r.user_id,
    permissions: r.permissions,
    defaultClassification: r.default_classification,
    status: r.status,
    credentialsRef: r.credentials_ref,
    lastSyncAt: isoFromTextOrNull(r.last_sync_at_text),
    errorDetails: r.error_details,
    config: r.config,
    createdAt: isoFromText(r.created_at_text),
  }) as Connector;

const connectorRow = (c: Connector): Insertable<ConnectorsTable> => ({
  tenant_id: c.tenantId,
  id: c.id,
  type: c.type,
  user_id: c.userId,
  permissions: c.permissions,
  default_classification: c.defaultClassification,
  status: c.status,
  credentials_ref: c.credentialsRef,
  last_sync_at: c.lastSyncAt,
  error_details: c.errorDetails,
  config: jsonb(c.config),
  created_at: c.createdAt,
});

/** `ConnectorStore` on PostgreSQL / PGlite: one row per connector, keyed by (tenant_id, id). */
export class KyselyConnectorStore implements ConnectorStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async insert(c: Connector): Promise<void> {
    await this.#db.insertInto('connectors').values(connectorRow(c)).execute();
  }

  async update(c: Connector): Promise<boolean> {
    const result = await this.#db
      .updateTable('connectors')
      .set(withoutKeys(connectorRow(c), ['tenant_id', 'id']))
      .where('tenant_id', '=', c.tenantId)
      .where('id', '=', c.id)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async get(tenantId: string, id: string): Promise<Connector | undefined> {
    const { rows } = await sql<StoredRow<ConnectorsTable>>`SELECT ${SELECT_COLUMNS} FROM connectors
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
    const { rows } = await sql<StoredRow<ConnectorsTable>>`SELECT ${SELECT_COLUMNS} FROM connectors
      WHERE ${sql.join(parts, sql` AND `)} ORDER BY created_at, id`.execute(this.#db);
    return rows.map(toConnector);
  }
}
