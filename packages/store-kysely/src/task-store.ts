import type { Task, TaskStatus, TaskStore } from '@agentgov/core';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database } from './schema';
import { affected, isoFromText, isoFromTextOrNull, isoText, jsonb, ts } from './sql-util';

interface TaskRow {
  tenant_id: string;
  id: string;
  user_id: string;
  title: string;
  description: string;
  priority_score: number;
  status: string;
  sources: Task['sources'];
  correlation_id: string | null;
  correlation_confidence: number | null;
  deadline_ts: string | null;
  urgency_signals: Task['urgencySignals'];
  classification: string;
  discovered: string;
  completed: string | null;
  archived: string | null;
  purge: string | null;
}

const SELECT_COLUMNS = sql`tenant_id, id, user_id, title, description, priority_score, status, sources,
  correlation_id, correlation_confidence, ${isoText('deadline')} AS deadline_ts, urgency_signals, classification,
  ${isoText('discovered_at')} AS discovered, ${isoText('completed_at')} AS completed,
  ${isoText('archived_at')} AS archived, ${isoText('purge_at')} AS purge`;

const toTask = (r: TaskRow): Task =>
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
    deadline: isoFromTextOrNull(r.deadline_ts),
    urgencySignals: r.urgency_signals,
    classification: r.classification,
    discoveredAt: isoFromText(r.discovered),
    completedAt: isoFromTextOrNull(r.completed),
    archivedAt: isoFromTextOrNull(r.archived),
    purgeAt: isoFromTextOrNull(r.purge),
  }) as Task;

/** `TaskStore` on PostgreSQL / PGlite: one row per task, keyed by (tenant_id, id); `put` is an upsert. */
export class KyselyTaskStore implements TaskStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async put(t: Task): Promise<void> {
    await sql`INSERT INTO tasks (tenant_id, id, user_id, title, description, priority_score, status, sources,
        correlation_id, correlation_confidence, deadline, urgency_signals, classification, discovered_at,
        completed_at, archived_at, purge_at)
      VALUES (${t.tenantId}, ${t.id}, ${t.userId}, ${t.title}, ${t.description}, ${t.priorityScore}, ${t.status},
        ${jsonb(t.sources)}, ${t.correlationId}, ${t.correlationConfidence}::double precision, ${ts(t.deadline)},
        ${jsonb(t.urgencySignals)}, ${t.classification}, ${ts(t.discoveredAt)}, ${ts(t.completedAt)},
        ${ts(t.archivedAt)}, ${ts(t.purgeAt)})
      ON CONFLICT (tenant_id, id) DO UPDATE SET user_id = EXCLUDED.user_id, title = EXCLUDED.title,
        description = EXCLUDED.description, priority_score = EXCLUDED.priority_score, status = EXCLUDED.status,
        sources = EXCLUDED.sources, correlation_id = EXCLUDED.correlation_id,
        correlation_confidence = EXCLUDED.correlation_confidence, deadline = EXCLUDED.deadline,
        urgency_signals = EXCLUDED.urgency_signals, classification = EXCLUDED.classification,
        discovered_at = EXCLUDED.discovered_at, completed_at = EXCLUDED.completed_at,
        archived_at = EXCLUDED.archived_at, purge_at = EXCLUDED.purge_at`.execute(this.#db);
  }

  async get(tenantId: string, id: string): Promise<Task | undefined> {
    const { rows } = await sql<TaskRow>`SELECT ${SELECT_COLUMNS} FROM tasks
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
    const { rows } = await sql<TaskRow>`SELECT ${SELECT_COLUMNS} FROM tasks
      WHERE ${sql.join(parts, sql` AND `)} ORDER BY discovered_at, id`.execute(this.#db);
    return rows.map(toTask);
  }

  async delete(tenantId: string, id: string): Promise<boolean> {
    return (
      affected(await sql`DELETE FROM tasks WHERE tenant_id = ${tenantId} AND id = ${id}`.execute(this.#db)) >
      0
    );
  }
}
