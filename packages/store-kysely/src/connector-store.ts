import {
  type Connector,
  type ConnectorStatus,
  type ConnectorStore,
  type ConnectorSyncClaim,
  type ConnectorSyncResult,
  type ConnectorType,
  secretRefKey,
} from '@agentgov/core';
import { type Insertable, type Kysely, type RawBuilder, sql } from 'kysely';
import type { ConnectorsTable, Database, StoredRow } from './schema';
import { isoFromText, isoFromTextOrNull, isoText, jsonb, toNumber, withoutKeys } from './sql-util';

const SELECT_COLUMNS = sql`tenant_id, id, type, user_id, permissions, default_classification, status,
  credentials_ref, ${isoText('last_sync_at')} AS last_sync_at_text, error_details, config,
  ${isoText('created_at')} AS created_at_text`;
const SELECT_COLUMNS_OF = (t: string) => sql`${sql.ref(`${t}.tenant_id`)}, ${sql.ref(`${t}.id`)},
  ${sql.ref(`${t}.type`)}, ${sql.ref(`${t}.user_id`)}, ${sql.ref(`${t}.permissions`)},
  ${sql.ref(`${t}.default_classification`)}, ${sql.ref(`${t}.status`)}, ${sql.ref(`${t}.credentials_ref`)},
  ${isoText(`${t}.last_sync_at`)} AS last_sync_at_text, ${sql.ref(`${t}.error_details`)},
  ${sql.ref(`${t}.config`)}, ${isoText(`${t}.created_at`)} AS created_at_text`;

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

/**
 * `ConnectorStore` on PostgreSQL / PGlite: one row per connector, keyed by (tenant_id, id); the
 * pull state (`sync_failures`, `next_sync_at`) is kept in the row beside the resource's columns
 * and only `claimSync` / `finishSync` write it.
 */
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

  async claimSync(
    now: string,
    leaseUntil: string,
    limit: number,
    types: readonly ConnectorType[],
  ): Promise<ConnectorSyncClaim[]> {
    if (limit <= 0 || types.length === 0) return [];
    const { rows } = await sql<StoredRow<ConnectorsTable> & { claim_order: string; failures: number }>`
      WITH due AS (
        SELECT tenant_id, id, sync_failures,
          row_number() OVER (ORDER BY next_sync_at NULLS FIRST, created_at, id) AS claim_order
        FROM (
          SELECT tenant_id, id, sync_failures, next_sync_at, created_at FROM connectors
          WHERE status <> 'disabled' AND type IN (${sql.join(types.map((t) => sql`${t}`))})
            AND (next_sync_at IS NULL OR next_sync_at <= ${now}::timestamptz)
          ORDER BY next_sync_at NULLS FIRST, created_at, id
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED
        ) picked
      )
      UPDATE connectors SET next_sync_at = ${leaseUntil}::timestamptz
      FROM due WHERE connectors.tenant_id = due.tenant_id AND connectors.id = due.id
      RETURNING ${SELECT_COLUMNS_OF('connectors')}, due.sync_failures AS failures,
        due.claim_order::text AS claim_order`.execute(this.#db);
    // RETURNING has no order: restore the claim order.
    return rows
      .sort((a, b) => toNumber(a.claim_order) - toNumber(b.claim_order))
      .map((r) => ({ connector: toConnector(r), failures: Number(r.failures) }));
  }

  async scheduleSync(tenantId: string, id: string, at: string): Promise<boolean> {
    const result = await this.#db
      .updateTable('connectors')
      .set({ next_sync_at: at })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async finishSync(tenantId: string, id: string, r: ConnectorSyncResult): Promise<boolean> {
    const result = await this.#db
      .updateTable('connectors')
      .set({
        status: r.status,
        error_details: r.errorDetails,
        sync_failures: r.failures,
        next_sync_at: r.nextSyncAt,
        ...(r.ok ? { last_sync_at: r.at } : {}),
      })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .where('status', '<>', 'disabled')
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async bindSecretRefs(tenantId: string, refs: readonly string[]): Promise<string[]> {
    if (refs.length === 0) return [];
    // Sorted: two binders of the same keys lock them in one order (no deadlock between tenants).
    const keys = [...new Set(refs.map(secretRefKey))].sort();
    await this.#db
      .insertInto('secret_ref_owners')
      .values(keys.map((ref_key) => ({ ref_key, tenant_id: tenantId })))
      .onConflict((oc) => oc.column('ref_key').doNothing())
      .execute();
    // A new statement (a new snapshot under READ COMMITTED): a concurrent binder's committed row is seen.
    const held = await this.#db
      .selectFrom('secret_ref_owners')
      .select('ref_key')
      .where('ref_key', 'in', keys)
      .where('tenant_id', '<>', tenantId)
      .execute();
    const heldKeys = new Set(held.map((r) => r.ref_key));
    return refs.filter((ref) => heldKeys.has(secretRefKey(ref)));
  }
}
