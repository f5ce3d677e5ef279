import type {
  OutboxState,
  TrackerWrite,
  WebhookDelivery,
  WebhookSource,
  WorkActivity,
  WorkTrackingStore,
} from '@agentgov/core';
import { type Insertable, type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database, StoredRow, TrackerWritesTable, WorkActivitiesTable } from './schema';
import { isoFromText, isoFromTextOrNull, isoText, jsonb, toNumber, withoutKeys } from './sql-util';

const ACTIVITY_COLUMNS = sql`tenant_id, id, user_id, kind, ${isoText('occurred_at')} AS occurred_at_text, source,
  delivery_id, subject, title, url, tickets, detail`;
/** The columns of a tracker write as the store reads them, qualified by `table`. */
function WRITE_COLUMNS_OF(table: string): RawBuilder<unknown> {
  const c = (name: string) => sql.ref(`${table}.${name}`);
  const plain = [
    'tenant_id',
    'id',
    'tool',
    'ticket_id',
    'comment',
    'transition_name',
    'state',
    'attempts',
    'last_error',
    'user_id',
    'request_id',
    'delivery_id',
    'policy_applied',
    'policy_reason',
  ];
  return sql.join([
    ...plain.map((p) => sql`${c(p)} AS ${sql.id(p)}`),
    ...['next_attempt_at', 'created_at', 'delivered_at'].map(
      (t) => sql`${isoText(`${table}.${t}`)} AS ${sql.id(`${t}_text`)}`,
    ),
  ]);
}
const WRITE_COLUMNS = WRITE_COLUMNS_OF('tracker_writes');

const toActivity = (r: StoredRow<WorkActivitiesTable>): WorkActivity =>
  ({
    id: r.id,
    tenantId: r.tenant_id,
    userId: r.user_id,
    kind: r.kind,
    occurredAt: isoFromText(r.occurred_at_text),
    source: r.source,
    deliveryId: r.delivery_id,
    subject: r.subject,
    title: r.title,
    url: r.url,
    tickets: r.tickets,
    detail: r.detail,
  }) as WorkActivity;

const activityRow = (a: WorkActivity): Insertable<WorkActivitiesTable> => ({
  tenant_id: a.tenantId,
  id: a.id,
  user_id: a.userId,
  kind: a.kind,
  occurred_at: a.occurredAt,
  source: a.source,
  delivery_id: a.deliveryId,
  subject: a.subject,
  title: a.title,
  url: a.url,
  tickets: jsonb(a.tickets),
  detail: jsonb(a.detail),
});

const toWrite = (r: StoredRow<TrackerWritesTable>): TrackerWrite =>
  ({
    id: r.id,
    tenantId: r.tenant_id,
    tool: r.tool,
    ticketId: r.ticket_id,
    comment: r.comment,
    transitionName: r.transition_name,
    state: r.state,
    attempts: r.attempts,
    nextAttemptAt: isoFromText(r.next_attempt_at_text),
    lastError: r.last_error,
    createdAt: isoFromText(r.created_at_text),
    deliveredAt: isoFromTextOrNull(r.delivered_at_text),
    userId: r.user_id,
    requestId: r.request_id,
    deliveryId: r.delivery_id,
    policyApplied: r.policy_applied,
    policyReason: r.policy_reason,
  }) as TrackerWrite;

const writeRow = (w: TrackerWrite): Insertable<TrackerWritesTable> => ({
  tenant_id: w.tenantId,
  id: w.id,
  tool: w.tool,
  ticket_id: w.ticketId,
  comment: w.comment,
  transition_name: w.transitionName,
  state: w.state,
  attempts: w.attempts,
  next_attempt_at: w.nextAttemptAt,
  last_error: w.lastError,
  created_at: w.createdAt,
  delivered_at: w.deliveredAt,
  user_id: w.userId,
  request_id: w.requestId,
  delivery_id: w.deliveryId,
  policy_applied: w.policyApplied,
  policy_reason: w.policyReason,
});

/**
 * `WorkTrackingStore` on PostgreSQL / PGlite. A delivery and what it produced are written in one
 * transaction whose first statement claims the delivery key (`ON CONFLICT DO NOTHING`): a
 * concurrent redelivery waits for it and then finds the key taken. The outbox is claimed with
 * `FOR UPDATE SKIP LOCKED`, so several processes drain it without handing a write out twice.
 */
/** Rolls back a delivery that was already recorded under one of its aliases. */
class DuplicateDelivery extends Error {}

export class KyselyWorkTrackingStore implements WorkTrackingStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async recordDelivery(record: {
    delivery: WebhookDelivery;
    activities: readonly WorkActivity[];
    writes: readonly TrackerWrite[];
    aliases?: readonly string[];
  }): Promise<'recorded' | 'duplicate'> {
    const d = record.delivery;
    const ids = [...new Set([d.deliveryId, ...(record.aliases ?? [])])];
    return this.#db
      .transaction()
      .execute(async (trx) => {
        const claimed = await trx
          .insertInto('webhook_deliveries')
          .values(
            ids.map((id) => ({
              tenant_id: d.tenantId,
              source: d.source,
              delivery_id: id,
              event: d.event,
              received_at: d.receivedAt,
            })),
          )
          .onConflict((oc) => oc.columns(['tenant_id', 'source', 'delivery_id']).doNothing())
          .returning('delivery_id')
          .execute();
        if (claimed.length === 0) return 'duplicate' as const;
        // Known under one of its ids and not another: the same delivery again — nothing is kept.
        if (claimed.length < ids.length) throw new DuplicateDelivery();
        if (record.activities.length > 0)
          await trx.insertInto('work_activities').values(record.activities.map(activityRow)).execute();
        if (record.writes.length > 0)
          await trx.insertInto('tracker_writes').values(record.writes.map(writeRow)).execute();
        return 'recorded' as const;
      })
      .catch((error: unknown) => {
        if (error instanceof DuplicateDelivery) return 'duplicate' as const;
        throw error;
      });
  }

  async hasDelivery(tenantId: string, source: WebhookSource, deliveryId: string): Promise<boolean> {
    const row = await this.#db
      .selectFrom('webhook_deliveries')
      .select('delivery_id')
      .where('tenant_id', '=', tenantId)
      .where('source', '=', source)
      .where('delivery_id', '=', deliveryId)
      .executeTakeFirst();
    return row !== undefined;
  }

  async activities(
    tenantId: string,
    q: { userId: string; from: string; to: string },
  ): Promise<WorkActivity[]> {
    const { rows } = await sql<StoredRow<WorkActivitiesTable>>`SELECT ${ACTIVITY_COLUMNS} FROM work_activities
      WHERE tenant_id = ${tenantId} AND user_id = ${q.userId}
        AND occurred_at >= ${q.from}::timestamptz AND occurred_at < ${q.to}::timestamptz
      ORDER BY occurred_at, id`.execute(this.#db);
    return rows.map(toActivity);
  }

  async claimWrites(now: string, leaseUntil: string, limit: number): Promise<TrackerWrite[]> {
    if (limit <= 0) return [];
    const { rows } = await sql<StoredRow<TrackerWritesTable> & { claim_order: string }>`
      WITH due AS (
        SELECT tenant_id, id, row_number() OVER (ORDER BY next_attempt_at, created_at, id) AS claim_order
        FROM (
          SELECT tenant_id, id, next_attempt_at, created_at FROM tracker_writes
          WHERE state = 'pending' AND next_attempt_at <= ${now}::timestamptz
          ORDER BY next_attempt_at, created_at, id
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED
        ) picked
      )
      UPDATE tracker_writes SET next_attempt_at = ${leaseUntil}::timestamptz
      FROM due WHERE tracker_writes.tenant_id = due.tenant_id AND tracker_writes.id = due.id
      RETURNING ${WRITE_COLUMNS_OF('tracker_writes')}, due.claim_order::text AS claim_order`.execute(
      this.#db,
    );
    // RETURNING has no order: restore the claim order.
    return rows.sort((a, b) => toNumber(a.claim_order) - toNumber(b.claim_order)).map(toWrite);
  }

  async updateWrite(write: TrackerWrite): Promise<boolean> {
    const r = await this.#db
      .updateTable('tracker_writes')
      .set(withoutKeys(writeRow(write), ['tenant_id', 'id']))
      .where('tenant_id', '=', write.tenantId)
      .where('id', '=', write.id)
      .executeTakeFirst();
    return r.numUpdatedRows > 0n;
  }

  async getWrite(tenantId: string, id: string): Promise<TrackerWrite | undefined> {
    const { rows } = await sql<StoredRow<TrackerWritesTable>>`SELECT ${WRITE_COLUMNS} FROM tracker_writes
      WHERE tenant_id = ${tenantId} AND id = ${id}`.execute(this.#db);
    const row = rows[0];
    return row && toWrite(row);
  }

  async listWrites(
    tenantId: string,
    filter: { state?: OutboxState; deliveryId?: string } = {},
  ): Promise<TrackerWrite[]> {
    const parts: RawBuilder<unknown>[] = [sql`tenant_id = ${tenantId}`];
    if (filter.state !== undefined) parts.push(sql`state = ${filter.state}`);
    if (filter.deliveryId !== undefined) parts.push(sql`delivery_id = ${filter.deliveryId}`);
    const { rows } = await sql<StoredRow<TrackerWritesTable>>`SELECT ${WRITE_COLUMNS} FROM tracker_writes
      WHERE ${sql.join(parts, sql` AND `)} ORDER BY created_at, id`.execute(this.#db);
    return rows.map(toWrite);
  }

  async increment(tenantId: string, counter: string, by = 1): Promise<void> {
    await sql`INSERT INTO work_counters (tenant_id, name, value) VALUES (${tenantId}, ${counter}, ${by})
      ON CONFLICT (tenant_id, name) DO UPDATE SET value = work_counters.value + EXCLUDED.value`.execute(
      this.#db,
    );
  }

  async counters(tenantId: string): Promise<Record<string, number>> {
    const { rows } = await sql<{ name: string; value_text: string }>`SELECT name, value::text AS value_text
      FROM work_counters WHERE tenant_id = ${tenantId}`.execute(this.#db);
    return Object.fromEntries(rows.map((r) => [r.name, toNumber(r.value_text)]));
  }
}
