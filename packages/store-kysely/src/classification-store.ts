import type { ClassificationLevel, ClassificationStore, DataClassification } from '@agentgov/core';
import { type Insertable, type Kysely, type RawBuilder, sql } from 'kysely';
import type { ClassificationsTable, Database, StoredRow } from './schema';
import { isoFromText, isoText, setExcluded } from './sql-util';

const SELECT_COLUMNS = sql`tenant_id, data_ref, level, assigned_by, original_level, override_by, override_reason,
  ${isoText('assessed_at')} AS assessed_at_text`;

const toClassification = (r: StoredRow<ClassificationsTable>): DataClassification =>
  ({
    tenantId: r.tenant_id,
    dataRef: r.data_ref,
    level: r.level,
    assignedBy: r.assigned_by,
    originalLevel: r.original_level,
    overrideBy: r.override_by,
    overrideReason: r.override_reason,
    assessedAt: isoFromText(r.assessed_at_text),
  }) as DataClassification;

const classificationRow = (r: DataClassification): Insertable<ClassificationsTable> => ({
  tenant_id: r.tenantId,
  data_ref: r.dataRef,
  level: r.level,
  assigned_by: r.assignedBy,
  original_level: r.originalLevel,
  override_by: r.overrideBy,
  override_reason: r.overrideReason,
  assessed_at: r.assessedAt,
});

/** `ClassificationStore` on PostgreSQL / PGlite: one row per (tenant_id, data_ref); `put` is an upsert. */
export class KyselyClassificationStore implements ClassificationStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async put(r: DataClassification): Promise<void> {
    const row = classificationRow(r);
    await this.#db
      .insertInto('classifications')
      .values(row)
      .onConflict((oc) =>
        oc.columns(['tenant_id', 'data_ref']).doUpdateSet(setExcluded(row, ['tenant_id', 'data_ref'])),
      )
      .execute();
  }

  async get(tenantId: string, dataRef: string): Promise<DataClassification | undefined> {
    const { rows } = await sql<StoredRow<ClassificationsTable>>`SELECT ${SELECT_COLUMNS} FROM classifications
      WHERE tenant_id = ${tenantId} AND data_ref = ${dataRef}`.execute(this.#db);
    const row = rows[0];
    return row && toClassification(row);
  }

  async list(tenantId: string, filter: { level?: ClassificationLevel } = {}): Promise<DataClassification[]> {
    const parts: RawBuilder<unknown>[] = [sql`tenant_id = ${tenantId}`];
    if (filter.level) parts.push(sql`level = ${filter.level}`);
    const { rows } = await sql<StoredRow<ClassificationsTable>>`SELECT ${SELECT_COLUMNS} FROM classifications
      WHERE ${sql.join(parts, sql` AND `)} ORDER BY data_ref`.execute(this.#db);
    return rows.map(toClassification);
  }
}
