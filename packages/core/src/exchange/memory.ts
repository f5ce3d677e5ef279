import { byKeys, TenantMap } from '../memory-util';
import { clonePlain as copy } from '../plain-clone';
import type { ExchangeListFilter, ExchangeStore, TranscriptMatch } from './port';
import type { Exchange } from './schema';

export class InMemoryExchangeStore implements ExchangeStore {
  readonly #rows = new TenantMap<Exchange>();
  async insert(exchange: Exchange): Promise<void> {
    if (this.#rows.has(exchange.tenantId, exchange.exchangeId)) {
      throw new Error(`exchange ${exchange.exchangeId} already exists`);
    }
    this.#rows.set(exchange.tenantId, exchange.exchangeId, copy(exchange));
  }
  async update(
    exchange: Exchange,
    expectedRound: number,
    expectedTranscriptLength?: number,
  ): Promise<boolean> {
    const stored = this.#rows.get(exchange.tenantId, exchange.exchangeId);
    if (!stored || stored.currentRound !== expectedRound) return false;
    if (expectedTranscriptLength !== undefined && stored.transcript.length !== expectedTranscriptLength)
      return false;
    this.#rows.set(exchange.tenantId, exchange.exchangeId, copy(exchange));
    return true;
  }
  async get(tenantId: string, exchangeId: string): Promise<Exchange | undefined> {
    const e = this.#rows.get(tenantId, exchangeId);
    return e && copy(e);
  }
  async listByConversation(tenantId: string, conversationId: string): Promise<Exchange[]> {
    return this.#rows
      .values(tenantId)
      .filter((e) => e.conversationId === conversationId)
      .sort(
        byKeys(
          (e) => e.startedAt,
          (e) => e.exchangeId,
        ),
      )
      .map(copy);
  }
  async list(
    tenantId: string,
    filter: ExchangeListFilter,
    page: { offset: number; limit: number },
  ): Promise<{ exchanges: Exchange[]; total: number }> {
    const matching = this.#rows
      .values(tenantId)
      .filter(
        (e) =>
          (filter.userId === undefined ||
            e.initiatorUserId === filter.userId ||
            e.responderUserId === filter.userId) &&
          (filter.userIds === undefined ||
            filter.userIds.includes(e.initiatorUserId) ||
            filter.userIds.includes(e.responderUserId)) &&
          (filter.outcome === undefined || e.outcome === filter.outcome),
      )
      .sort(
        byKeys(
          (e) => e.startedAt,
          (e) => e.exchangeId,
        ),
      )
      .reverse();
    return {
      exchanges: matching.slice(page.offset, page.offset + page.limit).map(copy),
      total: matching.length,
    };
  }
  async countTranscriptEntries(tenantId: string, match: TranscriptMatch): Promise<number> {
    const keys = Object.entries(match);
    let n = 0;
    for (const e of this.#rows.values(tenantId)) {
      for (const entry of e.transcript) if (keys.every(([k, v]) => entry[k] === v)) n++;
    }
    return n;
  }
}
