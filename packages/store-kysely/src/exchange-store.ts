import type { Exchange, ExchangeStore } from '@agentgov/core';
import { type Kysely, sql } from 'kysely';
import type { Database } from './schema';
import { affected, isoFromText, isoFromTextOrNull, isoText, jsonb, ts } from './sql-util';

interface ExchangeRow {
  tenant_id: string;
  exchange_id: string;
  conversation_id: string;
  initiator_agent_id: string;
  initiator_user_id: string;
  responder_agent_id: string;
  responder_user_id: string;
  exchange_type: string;
  current_round: number;
  max_rounds: number;
  classification_level: string;
  outcome: string;
  escalation_reason: string | null;
  data_shared: Exchange['dataShared'];
  data_withheld: Exchange['dataWithheld'];
  policy_applied: string;
  transcript: Exchange['transcript'];
  channel: string;
  started: string;
  ended: string | null;
}

const SELECT_COLUMNS = sql`tenant_id, exchange_id, conversation_id, initiator_agent_id, initiator_user_id,
  responder_agent_id, responder_user_id, exchange_type, current_round, max_rounds, classification_level, outcome,
  escalation_reason, data_shared, data_withheld, policy_applied, transcript, channel,
  ${isoText('started_at')} AS started, ${isoText('ended_at')} AS ended`;

const toExchange = (r: ExchangeRow): Exchange =>
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
    startedAt: isoFromText(r.started),
    endedAt: isoFromTextOrNull(r.ended),
  }) as Exchange;

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
    await sql`INSERT INTO exchanges (tenant_id, exchange_id, conversation_id, initiator_agent_id, initiator_user_id,
        responder_agent_id, responder_user_id, exchange_type, current_round, max_rounds, classification_level, outcome,
        escalation_reason, data_shared, data_withheld, policy_applied, transcript, channel, started_at, ended_at)
      VALUES (${x.tenantId}, ${x.exchangeId}, ${x.conversationId}, ${x.initiatorAgentId}, ${x.initiatorUserId},
        ${x.responderAgentId}, ${x.responderUserId}, ${x.exchangeType}, ${x.currentRound}, ${x.maxRounds},
        ${x.classificationLevel}, ${x.outcome}, ${x.escalationReason}, ${jsonb(x.dataShared)},
        ${jsonb(x.dataWithheld)}, ${x.policyApplied}, ${jsonb(x.transcript)}, ${x.channel}, ${ts(x.startedAt)},
        ${ts(x.endedAt)})`.execute(this.#db);
  }

  async update(x: Exchange, expectedRound: number): Promise<boolean> {
    // No stored round can equal a non-integer (and the integer column would reject it as a parameter).
    if (!Number.isSafeInteger(expectedRound)) return false;
    const result = await sql`UPDATE exchanges SET conversation_id = ${x.conversationId},
        initiator_agent_id = ${x.initiatorAgentId}, initiator_user_id = ${x.initiatorUserId},
        responder_agent_id = ${x.responderAgentId}, responder_user_id = ${x.responderUserId},
        exchange_type = ${x.exchangeType}, current_round = ${x.currentRound}, max_rounds = ${x.maxRounds},
        classification_level = ${x.classificationLevel}, outcome = ${x.outcome},
        escalation_reason = ${x.escalationReason}, data_shared = ${jsonb(x.dataShared)},
        data_withheld = ${jsonb(x.dataWithheld)}, policy_applied = ${x.policyApplied},
        transcript = ${jsonb(x.transcript)}, channel = ${x.channel}, started_at = ${ts(x.startedAt)},
        ended_at = ${ts(x.endedAt)}
      WHERE tenant_id = ${x.tenantId} AND exchange_id = ${x.exchangeId}
        AND current_round = ${expectedRound}`.execute(this.#db);
    return affected(result) > 0;
  }

  async get(tenantId: string, exchangeId: string): Promise<Exchange | undefined> {
    const { rows } = await sql<ExchangeRow>`SELECT ${SELECT_COLUMNS} FROM exchanges
      WHERE tenant_id = ${tenantId} AND exchange_id = ${exchangeId}`.execute(this.#db);
    const row = rows[0];
    return row && toExchange(row);
  }

  async listByConversation(tenantId: string, conversationId: string): Promise<Exchange[]> {
    const { rows } = await sql<ExchangeRow>`SELECT ${SELECT_COLUMNS} FROM exchanges
      WHERE tenant_id = ${tenantId} AND conversation_id = ${conversationId}
      ORDER BY started_at, exchange_id`.execute(this.#db);
    return rows.map(toExchange);
  }
}
