import type { Briefing, BriefingStore } from '@agentgov/core';
import { type Kysely, sql } from 'kysely';
import type { Database } from './schema';
import { affected, isoFromText, isoFromTextOrNull, isoText, jsonb, ts } from './sql-util';

interface BriefingRow {
  tenant_id: string;
  id: string;
  user_id: string;
  generated: string;
  tasks: Briefing['tasks'];
  time_blocks: Briefing['timeBlocks'];
  auto_response_summary: Briefing['autoResponseSummary'];
  org_news_items: Briefing['orgNewsItems'];
  doc_change_alerts: Briefing['docChangeAlerts'];
  alerts: Briefing['alerts'];
  connector_status: Briefing['connectorStatus'];
  delivery_channel: string;
  delivered: string | null;
}

const SELECT_COLUMNS = sql`tenant_id, id, user_id, ${isoText('generated_at')} AS generated, tasks, time_blocks,
  auto_response_summary, org_news_items, doc_change_alerts, alerts, connector_status, delivery_channel,
  ${isoText('delivered_at')} AS delivered`;

const toBriefing = (r: BriefingRow): Briefing =>
  ({
    id: r.id,
    userId: r.user_id,
    tenantId: r.tenant_id,
    generatedAt: isoFromText(r.generated),
    tasks: r.tasks,
    timeBlocks: r.time_blocks,
    autoResponseSummary: r.auto_response_summary,
    orgNewsItems: r.org_news_items,
    docChangeAlerts: r.doc_change_alerts,
    alerts: r.alerts,
    connectorStatus: r.connector_status,
    deliveryChannel: r.delivery_channel,
    deliveredAt: isoFromTextOrNull(r.delivered),
  }) as Briefing;

/** `BriefingStore` on PostgreSQL / PGlite: one row per briefing, keyed by (tenant_id, id). */
export class KyselyBriefingStore implements BriefingStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async insert(b: Briefing): Promise<void> {
    await sql`INSERT INTO briefings (tenant_id, id, user_id, generated_at, tasks, time_blocks, auto_response_summary,
        org_news_items, doc_change_alerts, alerts, connector_status, delivery_channel, delivered_at)
      VALUES (${b.tenantId}, ${b.id}, ${b.userId}, ${ts(b.generatedAt)}, ${jsonb(b.tasks)}, ${jsonb(b.timeBlocks)},
        ${jsonb(b.autoResponseSummary)}, ${jsonb(b.orgNewsItems)}, ${jsonb(b.docChangeAlerts)}, ${jsonb(b.alerts)},
        ${jsonb(b.connectorStatus)}, ${b.deliveryChannel}, ${ts(b.deliveredAt)})`.execute(this.#db);
  }

  async get(tenantId: string, id: string): Promise<Briefing | undefined> {
    const { rows } = await sql<BriefingRow>`SELECT ${SELECT_COLUMNS} FROM briefings
      WHERE tenant_id = ${tenantId} AND id = ${id}`.execute(this.#db);
    const row = rows[0];
    return row && toBriefing(row);
  }

  /** The user's briefing with the greatest generatedAt (ties: the greatest id, like the in-memory store). */
  async latest(tenantId: string, userId: string): Promise<Briefing | undefined> {
    const { rows } = await sql<BriefingRow>`SELECT ${SELECT_COLUMNS} FROM briefings
      WHERE tenant_id = ${tenantId} AND user_id = ${userId}
      ORDER BY generated_at DESC, id DESC LIMIT 1`.execute(this.#db);
    const row = rows[0];
    return row && toBriefing(row);
  }

  async markDelivered(tenantId: string, id: string, deliveredAt: string): Promise<boolean> {
    const result = await sql`UPDATE briefings SET delivered_at = ${ts(deliveredAt)}
      WHERE tenant_id = ${tenantId} AND id = ${id}`.execute(this.#db);
    return affected(result) > 0;
  }
}
