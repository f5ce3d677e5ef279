import type { Policy, PolicyFilter, PolicyStore } from '@agentgov/core';
import { type Insertable, type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database, PoliciesTable, StoredRow } from './schema';
import { isoFromText, isoText, toNumber, withoutKeys } from './sql-util';

const SELECT_COLUMNS = sql`tenant_id, id, scope, scope_id, domain, name, version, content, status, created_by,
  ${isoText('created_at')} AS created_at_text, ${isoText('updated_at')} AS updated_at_text, change_reason`;

function toPolicy(r: StoredRow<PoliciesTable>): Policy {
  return {
    id: r.id,
    tenantId: r.tenant_id,
    scope: r.scope,
    scopeId: r.scope_id,
    domain: r.domain,
    name: r.name,
    version: r.version,
    content: r.content,
    status: r.status,
    createdBy: r.created_by,
    createdAt: isoFromText(r.created_at_text),
    updatedAt: isoFromText(r.updated_at_text),
    changeReason: r.change_reason,
  } as Policy;
}

const policyRow = (p: Policy): Insertable<PoliciesTable> => ({
  tenant_id: p.tenantId,
  id: p.id,
  scope: p.scope,
  scope_id: p.scopeId,
  domain: p.domain,
  name: p.name,
  version: p.version,
  content: p.content,
  status: p.status,
  created_by: p.createdBy,
  created_at: p.createdAt,
  updated_at: p.updatedAt,
  change_reason: p.changeReason,
});

function whereFilter(tenantId: string, filter: PolicyFilter = {}): RawBuilder<unknown> {
  const parts: RawBuilder<unknown>[] = [sql`tenant_id = ${tenantId}`];
  if (filter.scope) parts.push(sql`scope = ${filter.scope}`);
  if (filter.domain) parts.push(sql`domain = ${filter.domain}`);
  if (filter.status !== undefined) {
    const statuses: readonly string[] = typeof filter.status === 'string' ? [filter.status] : filter.status;
    parts.push(
      statuses.length === 0 ? sql`FALSE` : sql`status IN (${sql.join(statuses.map((s) => sql`${s}`))})`,
    );
  }
  if (filter.targets !== undefined) {
    parts.push(
      filter.targets.length === 0
        ? sql`FALSE`
        : sql`(scope, scope_id) IN (${sql.join(filter.targets.map((t) => sql`(${t.scope}, ${t.scopeId})`))})`,
    );
  }
  return sql.join(parts, sql` AND `);
}

/** `PolicyStore` on PostgreSQL / PGlite: one row per policy, keyed by (tenant_id, id). */
export class KyselyPolicyStore implements PolicyStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async insert(p: Policy): Promise<void> {
    await this.#db.insertInto('policies').values(policyRow(p)).execute();
  }

  async update(p: Policy): Promise<boolean> {
    const result = await this.#db
      .updateTable('policies')
      .set(withoutKeys(policyRow(p), ['tenant_id', 'id']))
      .where('tenant_id', '=', p.tenantId)
      .where('id', '=', p.id)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async get(tenantId: string, id: string): Promise<Policy | undefined> {
    const { rows } = await sql<StoredRow<PoliciesTable>>`SELECT ${SELECT_COLUMNS} FROM policies
      WHERE tenant_id = ${tenantId} AND id = ${id}`.execute(this.#db);
    const row = rows[0];
    return row && toPolicy(row);
  }

  async list(tenantId: string, filter?: PolicyFilter): Promise<Policy[]> {
    const { rows } = await sql<
      StoredRow<PoliciesTable>
    >`SELECT ${SELECT_COLUMNS} FROM policies WHERE ${whereFilter(tenantId, filter)}
      ORDER BY created_at, id COLLATE "C"`.execute(this.#db);
    return rows.map(toPolicy);
  }

  async count(tenantId: string, filter?: PolicyFilter): Promise<number> {
    const { rows } = await sql<{ n: string }>`SELECT count(*)::text AS n FROM policies
      WHERE ${whereFilter(tenantId, filter)}`.execute(this.#db);
    return toNumber(rows[0]?.n ?? 0);
  }
}
