import type { Exchange, ExchangeStore } from '@agentgov/core';
import { type Insertable, type Kysely, sql } from 'kysely';
import type { Database, ExchangesTable, StoredRow } from './schema';
import { isoFromText, isoFromTextOrNull, isoText, jsonb, withoutKeys } from './sql-util';

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
 * `update` is a compare-and-set in one statement (`… WHERE current_round = expected`): under
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

  async update(x: Exchange, expectedRound: number): Promise<boolean> {
    // No stored round can equal a non-integer (and the integer column would reject it as a parameter).
    if (!Number.isSafeInteger(expectedRound)) return false;
    const result = await this.#db
      .updateTable('exchanges')
      .set(withoutKeys(exchangeRow(x), ['tenant_id', 'exchange_id']))
      .where('tenant_id', '=', x.tenantId)
      .where('exchange_id', '=', x.exchangeId)
      .where('current_round', '=', expectedRound)
      .executeTakeFirst();
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
}
