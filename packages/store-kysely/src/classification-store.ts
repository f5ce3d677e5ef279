import type { ClassificationLevel, ClassificationStore, DataClassification } from '@agentgov/core';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database } from './schema';
import { isoFromText, isoText, ts } from './sql-util';

interface ClassificationRow {
  tenant_id: string;
  data_ref: string;
  level: string;
  assigned_by: string;
  original_level: string | null;
  override_by: string | null;
  override_reason: string | null;
  assessed: string;
}

const SELECT_COLUMNS = sql`tenant_id, data_ref, level, assigned_by, original_level, override_by, override_reason,
  ${isoText('assessed_at')} AS assessed`;

const toClassification = (r: ClassificationRow): DataClassification =>
  ({
    tenantId: r.tenant_id,
    dataRef: r.data_ref,
    level: r.level,
    assignedBy: r.assigned_by,
    originalLevel: r.original_level,
    overrideBy: r.override_by,
    overrideReason: r.override_reason,
    assessedAt: isoFromText(r.assessed),
  }) as DataClassification;

/** `ClassificationStore` on PostgreSQL / PGlite: one row per (tenant_id, data_ref); `put` is an upsert. */
export class KyselyClassificationStore implements ClassificationStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async put(r: DataClassification): Promise<void> {
    await sql`INSERT INTO classifications (tenant_id, data_ref, level, assigned_by, original_level, override_by,
        override_reason, assessed_at)
      VALUES (${r.tenantId}, ${r.dataRef}, ${r.level}, ${r.assignedBy}, ${r.originalLevel}, ${r.overrideBy},
        ${r.overrideReason}, ${ts(r.assessedAt)})
      ON CONFLICT (tenant_id, data_ref) DO UPDATE SET level = EXCLUDED.level, assigned_by = EXCLUDED.assigned_by,
        original_level = EXCLUDED.original_level, override_by = EXCLUDED.override_by,
        override_reason = EXCLUDED.override_reason, assessed_at = EXCLUDED.assessed_at`.execute(this.#db);
  }

  async get(tenantId: string, dataRef: string): Promise<DataClassification | undefined> {
    const { rows } = await sql<ClassificationRow>`SELECT ${SELECT_COLUMNS} FROM classifications
      WHERE tenant_id = ${tenantId} AND data_ref = ${dataRef}`.execute(this.#db);
    const row = rows[0];
    return row && toClassification(row);
  }

  async list(tenantId: string, filter: { level?: ClassificationLevel } = {}): Promise<DataClassification[]> {
    const parts: RawBuilder<unknown>[] = [sql`tenant_id = ${tenantId}`];
    if (filter.level) parts.push(sql`level = ${filter.level}`);
    const { rows } = await sql<ClassificationRow>`SELECT ${SELECT_COLUMNS} FROM classifications
      WHERE ${sql.join(parts, sql` AND `)} ORDER BY data_ref`.execute(this.#db);
    return rows.map(toClassification);
  }
}
