import type { Briefing, BriefingStore } from '@agentgov/core';
import { type Insertable, type Kysely, sql } from 'kysely';
import type { BriefingsTable, Database, StoredRow } from './schema';
import { isoFromText, isoFromTextOrNull, isoText, jsonb } from './sql-util';

const SELECT_COLUMNS = sql`tenant_id, id, user_id, ${isoText('generated_at')} AS generated_at_text, tasks,
  time_blocks, auto_response_summary, org_news_items, doc_change_alerts, alerts, connector_status,
  delivery_channel, ${isoText('delivered_at')} AS delivered_at_text`;

const toBriefing = (r: StoredRow<BriefingsTable>): Briefing =>
  ({
    id: r.id,
    userId: r.user_id,
    tenantId: r.tenant_id,
    generatedAt: isoFromText(r.generated_at_text),
    tasks: r.tasks,
    timeBlocks: r.time_blocks,
    autoResponseSummary: r.auto_response_summary,
    orgNewsItems: r.org_news_items,
    docChangeAlerts: r.doc_change_alerts,
    alerts: r.alerts,
    connectorStatus: r.connector_status,
    deliveryChannel: r.delivery_channel,
    deliveredAt: isoFromTextOrNull(r.delivered_at_text),
  }) as Briefing;

const briefingRow = (b: Briefing): Insertable<BriefingsTable> => ({
  tenant_id: b.tenantId,
  id: b.id,
  user_id: b.userId,
  generated_at: b.generatedAt,
  tasks: jsonb(b.tasks),
  time_blocks: jsonb(b.timeBlocks),
  auto_response_summary: jsonb(b.autoResponseSummary),
  org_news_items: jsonb(b.orgNewsItems),
  doc_change_alerts: jsonb(b.docChangeAlerts),
  alerts: jsonb(b.alerts),
  connector_status: jsonb(b.connectorStatus),
  delivery_channel: b.deliveryChannel,
  delivered_at: b.deliveredAt,
});

/** `BriefingStore` on PostgreSQL / PGlite: one row per briefing, keyed by (tenant_id, id). */
export class KyselyBriefingStore implements BriefingStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async insert(b: Briefing): Promise<void> {
    await this.#db.insertInto('briefings').values(briefingRow(b)).execute();
  }

  async get(tenantId: string, id: string): Promise<Briefing | undefined> {
    const { rows } = await sql<StoredRow<BriefingsTable>>`SELECT ${SELECT_COLUMNS} FROM briefings
      WHERE tenant_id = ${tenantId} AND id = ${id}`.execute(this.#db);
    const row = rows[0];
    return row && toBriefing(row);
  }

  /** The user's briefing with the greatest generatedAt (ties: the greatest id, like the in-memory store). */
  async latest(tenantId: string, userId: string): Promise<Briefing | undefined> {
    const { rows } = await sql<StoredRow<BriefingsTable>>`SELECT ${SELECT_COLUMNS} FROM briefings
      WHERE tenant_id = ${tenantId} AND user_id = ${userId}
      ORDER BY generated_at DESC, id DESC LIMIT 1`.execute(this.#db);
    const row = rows[0];
    return row && toBriefing(row);
  }

  async markDelivered(tenantId: string, id: string, deliveredAt: string): Promise<boolean> {
    const result = await this.#db
      .updateTable('briefings')
      .set({ delivered_at: deliveredAt })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }
}
