import type { Task, TaskStatus, TaskStore } from '@agentgov/core';
import { type Insertable, type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database, StoredRow, TasksTable } from './schema';
import { isoFromText, isoFromTextOrNull, isoText, jsonb, setExcluded } from './sql-util';

const SELECT_COLUMNS = sql`tenant_id, id, user_id, title, description, priority_score, status, sources,
  correlation_id, correlation_confidence, ${isoText('deadline')} AS deadline_text, urgency_signals, classification,
  ${isoText('discovered_at')} AS discovered_at_text, ${isoText('completed_at')} AS completed_at_text,
  ${isoText('archived_at')} AS archived_at_text, ${isoText('purge_at')} AS purge_at_text`;

const toTask = (r: StoredRow<TasksTable>): Task =>
  ({
    id: r.id,
    tenantId: r.tenant_id,
    userId: r.user_id,
    title: r.title,
    description: r.description,
    priorityScore: r.priority_score,
    status: r.status,
    sources: r.sources,
    correlationId: r.correlation_id,
    correlationConfidence: r.correlation_confidence === null ? null : Number(r.correlation_confidence),
    deadline: isoFromTextOrNull(r.deadline_text),
    urgencySignals: r.urgency_signals,
    classification: r.classification,
    discoveredAt: isoFromText(r.discovered_at_text),
    completedAt: isoFromTextOrNull(r.completed_at_text),
    archivedAt: isoFromTextOrNull(r.archived_at_text),
    purgeAt: isoFromTextOrNull(r.purge_at_text),
  }) as Task;

const taskRow = (t: Task): Insertable<TasksTable> => ({
  tenant_id: t.tenantId,
  id: t.id,
  user_id: t.userId,
  title: t.title,
  description: t.description,
  priority_score: t.priorityScore,
  status: t.status,
  sources: jsonb(t.sources),
  correlation_id: t.correlationId,
  correlation_confidence: t.correlationConfidence,
  deadline: t.deadline,
  urgency_signals: jsonb(t.urgencySignals),
  classification: t.classification,
  discovered_at: t.discoveredAt,
  completed_at: t.completedAt,
  archived_at: t.archivedAt,
  purge_at: t.purgeAt,
});

/** `TaskStore` on PostgreSQL / PGlite: one row per task, keyed by (tenant_id, id); `put` is an upsert. */
export class KyselyTaskStore implements TaskStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async put(t: Task): Promise<void> {
    const row = taskRow(t);
    await this.#db
      .insertInto('tasks')
      .values(row)
      .onConflict((oc) => oc.columns(['tenant_id', 'id']).doUpdateSet(setExcluded(row, ['tenant_id', 'id'])))
      .execute();
  }

  async get(tenantId: string, id: string): Promise<Task | undefined> {
    const { rows } = await sql<StoredRow<TasksTable>>`SELECT ${SELECT_COLUMNS} FROM tasks
      WHERE tenant_id = ${tenantId} AND id = ${id}`.execute(this.#db);
    const row = rows[0];
    return row && toTask(row);
  }

  async list(
    tenantId: string,
    filter: { userId?: string; status?: readonly TaskStatus[] } = {},
  ): Promise<Task[]> {
    const parts: RawBuilder<unknown>[] = [sql`tenant_id = ${tenantId}`];
    if (filter.userId !== undefined) parts.push(sql`user_id = ${filter.userId}`);
    if (filter.status !== undefined) {
      parts.push(
        filter.status.length === 0
          ? sql`FALSE`
          : sql`status IN (${sql.join(filter.status.map((s) => sql`${s}`))})`,
      );
    }
    const { rows } = await sql<StoredRow<TasksTable>>`SELECT ${SELECT_COLUMNS} FROM tasks
      WHERE ${sql.join(parts, sql` AND `)} ORDER BY discovered_at, id`.execute(this.#db);
    return rows.map(toTask);
  }

  async delete(tenantId: string, id: string): Promise<boolean> {
    const result = await this.#db
      .deleteFrom('tasks')
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }
}
