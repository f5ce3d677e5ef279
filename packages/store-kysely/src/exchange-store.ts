import type { Exchange, ExchangeListFilter, ExchangeStore, TranscriptMatch } from '@agentgov/core';
import { type Insertable, type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database, ExchangesTable, StoredRow } from './schema';
import { isoFromText, isoFromTextOrNull, isoText, jsonb, toNumber, withoutKeys } from './sql-util';

const SELECT_COLUMNS = sql`tenant_id, exchange_id, conversation_id, initiator_agent_id, initiator_user_id,
  responder_agent_id, responder_user_id, exchange_type, current_round, max_rounds, classification_level, outcome,
  escalation_reason, data_shared, data_withheld, policy_applied, transcript, channel,
  ${isoText('started_at')} AS started_at_text, ${isoText('ended_at')} AS ended_at_text`;

const toExchange = (r: StoredRow<ExchangesTable>): Exchange =>
  ({
    exchangeId: r.exchange_id,
    tenantId: r.tenant_id,
    conversationId: r.conversation_id,
    initiatorAgentId: r.initiator_agent_id,
    initiatorUserId: r.initiator_user_id,
    responderAgentId: r.responder_agent_id,
    responderUserId: r.responder_user_id,
    exchangeType: r.exchange_type,
    currentRound: r.current_round,
    maxRounds: r.max_rounds,
    classificationLevel: r.classification_level,
    outcome: r.outcome,
    escalationReason: r.escalation_reason,
    dataShared: r.data_shared,
    dataWithheld: r.data_withheld,
    policyApplied: r.policy_applied,
    transcript: r.transcript,
    channel: r.channel,
    startedAt: isoFromText(r.started_at_text),
    endedAt: isoFromTextOrNull(r.ended_at_text),
  }) as Exchange;

const exchangeRow = (x: Exchange): Insertable<ExchangesTable> => ({
  tenant_id: x.tenantId,
  exchange_id: x.exchangeId,
  conversation_id: x.conversationId,
  initiator_agent_id: x.initiatorAgentId,
  initiator_user_id: x.initiatorUserId,
  responder_agent_id: x.responderAgentId,
  responder_user_id: x.responderUserId,
  exchange_type: x.exchangeType,
  current_round: x.currentRound,
  max_rounds: x.maxRounds,
  classification_level: x.classificationLevel,
  outcome: x.outcome,
  escalation_reason: x.escalationReason,
  data_shared: jsonb(x.dataShared),
  data_withheld: jsonb(x.dataWithheld),
  policy_applied: x.policyApplied,
  transcript: jsonb(x.transcript),
  channel: x.channel,
  started_at: x.startedAt,
  ended_at: x.endedAt,
});

/**
 * `ExchangeStore` on PostgreSQL / PGlite: one row per exchange, keyed by (tenant_id, exchange_id).
 * `update` is a compare-and-set in one statement (`… WHERE current_round = expected`, and
 * `jsonb_array_length(transcript) = expected` when a transcript length is given): under
 * PostgreSQL's row locks a concurrent writer waits for the first one's commit, re-checks the
 * condition against the new row and changes nothing, so exactly one of them wins.
 */
export class KyselyExchangeStore implements ExchangeStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async insert(x: Exchange): Promise<void> {
    await this.#db.insertInto('exchanges').values(exchangeRow(x)).execute();
  }

  async update(x: Exchange, expectedRound: number, expectedTranscriptLength?: number): Promise<boolean> {
    // No stored round or length can equal a non-integer (and the integer comparison would reject it
    // as a parameter).
    if (!Number.isSafeInteger(expectedRound)) return false;
    if (expectedTranscriptLength !== undefined && !Number.isSafeInteger(expectedTranscriptLength))
      return false;
    let update = this.#db
      .updateTable('exchanges')
      .set(withoutKeys(exchangeRow(x), ['tenant_id', 'exchange_id']))
      .where('tenant_id', '=', x.tenantId)
      .where('exchange_id', '=', x.exchangeId)
      .where('current_round', '=', expectedRound);
    if (expectedTranscriptLength !== undefined) {
      update = update.where(sql<number>`jsonb_array_length(transcript)`, '=', expectedTranscriptLength);
    }
    const result = await update.executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async get(tenantId: string, exchangeId: string): Promise<Exchange | undefined> {
    const { rows } = await sql<StoredRow<ExchangesTable>>`SELECT ${SELECT_COLUMNS} FROM exchanges
      WHERE tenant_id = ${tenantId} AND exchange_id = ${exchangeId}`.execute(this.#db);
    const row = rows[0];
    return row && toExchange(row);
  }

  async listByConversation(tenantId: string, conversationId: string): Promise<Exchange[]> {
    const { rows } = await sql<StoredRow<ExchangesTable>>`SELECT ${SELECT_COLUMNS} FROM exchanges
      WHERE tenant_id = ${tenantId} AND conversation_id = ${conversationId}
      ORDER BY started_at, exchange_id`.execute(this.#db);
    return rows.map(toExchange);
  }

  /** Newest first: `ORDER BY started_at DESC, exchange_id DESC` (the in-memory order reversed). */
  async list(
    tenantId: string,
    filter: ExchangeListFilter,
    page: { offset: number; limit: number },
  ): Promise<{ exchanges: Exchange[]; total: number }> {
    const parts: RawBuilder<unknown>[] = [sql`tenant_id = ${tenantId}`];
    if (filter.userId !== undefined) {
      parts.push(sql`(initiator_user_id = ${filter.userId} OR responder_user_id = ${filter.userId})`);
    }
    if (filter.userIds !== undefined) {
      const ids = sql.join(filter.userIds.map((id) => sql`${id}`));
      parts.push(
        filter.userIds.length === 0
          ? sql`FALSE`
          : sql`(initiator_user_id IN (${ids}) OR responder_user_id IN (${ids}))`,
      );
    }
    if (filter.outcome !== undefined) parts.push(sql`outcome = ${filter.outcome}`);
    const where = sql.join(parts, sql` AND `);
    const [list, count] = await Promise.all([
      sql<StoredRow<ExchangesTable>>`SELECT ${SELECT_COLUMNS} FROM exchanges WHERE ${where}
        ORDER BY started_at DESC, exchange_id DESC
        LIMIT ${Math.max(0, page.limit)} OFFSET ${Math.max(0, page.offset)}`.execute(this.#db),
      sql<{ n: string }>`SELECT count(*)::text AS n FROM exchanges WHERE ${where}`.execute(this.#db),
    ]);
    return { exchanges: list.rows.map(toExchange), total: toNumber(count.rows[0]?.n ?? 0) };
  }

  /**
   * Transcript entries containing `match` (jsonb `@>`: every key present with an equal scalar;
   * an empty match counts every entry), over the tenant's exchanges.
   */
  async countTranscriptEntries(tenantId: string, match: TranscriptMatch): Promise<number> {
    const { rows } = await sql<{ n: string }>`SELECT count(*)::text AS n
      FROM exchanges x CROSS JOIN LATERAL jsonb_array_elements(x.transcript) AS t(entry)
      WHERE x.tenant_id = ${tenantId} AND t.entry @> ${jsonb(match)}`.execute(this.#db);
    return toNumber(rows[0]?.n ?? 0);
  }
}
