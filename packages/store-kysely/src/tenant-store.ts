import type { Tenant, TenantStore } from '@agentgov/core';
import { type Kysely, sql } from 'kysely';
import type { Database, StoredRow, TenantsTable } from './schema';
import { isoFromText, isoText } from './sql-util';

const SELECT_COLUMNS = sql`id, name, status, ${isoText('created_at')} AS created_at_text`;

const toTenant = (r: StoredRow<TenantsTable>): Tenant =>
  ({ id: r.id, name: r.name, status: r.status, createdAt: isoFromText(r.created_at_text) }) as Tenant;

/** `TenantStore` on PostgreSQL / PGlite: one row per tenant, keyed by id. */
export class KyselyTenantStore implements TenantStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  /**
   * Race-free: `INSERT … ON CONFLICT DO NOTHING` (a concurrent inserter of the same id waits for
   * the first one's commit, then inserts nothing), then a separate `SELECT` — a new statement, so
   * it sees the committed row whoever inserted it. Every caller gets the first record.
   */
  async ensure(tenant: { id: string; name?: string }, now: Date): Promise<Tenant> {
    await this.#db
      .insertInto('tenants')
      .values({
        id: tenant.id,
        name: tenant.name ?? tenant.id,
        status: 'active',
        created_at: now.toISOString(),
      })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
    const stored = await this.get(tenant.id);
    if (!stored) throw new Error(`tenant ${tenant.id} vanished right after ensure`);
    return stored;
  }

  async get(id: string): Promise<Tenant | undefined> {
    const { rows } = await sql<StoredRow<TenantsTable>>`SELECT ${SELECT_COLUMNS} FROM tenants
      WHERE id = ${id}`.execute(this.#db);
    const row = rows[0];
    return row && toTenant(row);
  }

  async list(): Promise<Tenant[]> {
    const { rows } = await sql<StoredRow<TenantsTable>>`SELECT ${SELECT_COLUMNS} FROM tenants
      ORDER BY id`.execute(this.#db);
    return rows.map(toTenant);
  }
}
