import type { Tenant, TenantStore } from '@agentgov/core';
import { type Kysely, sql } from 'kysely';
import type { Database } from './schema';
import { isoFromText, isoText, ts } from './sql-util';

interface TenantRow {
  id: string;
  name: string;
  status: string;
  created: string;
}

const SELECT_COLUMNS = sql`id, name, status, ${isoText('created_at')} AS created`;

const toTenant = (r: TenantRow): Tenant =>
  ({ id: r.id, name: r.name, status: r.status, createdAt: isoFromText(r.created) }) as Tenant;

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
    await sql`INSERT INTO tenants (id, name, status, created_at)
      VALUES (${tenant.id}, ${tenant.name ?? tenant.id}, 'active', ${ts(now.toISOString())})
      ON CONFLICT (id) DO NOTHING`.execute(this.#db);
    const stored = await this.get(tenant.id);
    if (!stored) throw new Error(`tenant ${tenant.id} vanished right after ensure`);
    return stored;
  }

  async get(id: string): Promise<Tenant | undefined> {
    const { rows } = await sql<TenantRow>`SELECT ${SELECT_COLUMNS} FROM tenants WHERE id = ${id}`.execute(
      this.#db,
    );
    const row = rows[0];
    return row && toTenant(row);
  }

  async list(): Promise<Tenant[]> {
    const { rows } = await sql<TenantRow>`SELECT ${SELECT_COLUMNS} FROM tenants ORDER BY id`.execute(
      this.#db,
    );
    return rows.map(toTenant);
  }
}
