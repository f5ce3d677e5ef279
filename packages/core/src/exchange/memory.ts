import { byKeys, copy, TenantMap } from '../memory-util';
import type { ExchangeStore } from './port';
import type { Exchange } from './schema';

export class InMemoryExchangeStore implements ExchangeStore {
  readonly #rows = new TenantMap<Exchange>();
  async insert(exchange: Exchange): Promise<void> {
    if (this.#rows.has(exchange.tenantId, exchange.exchangeId)) {
      throw new Error(`exchange ${exchange.exchangeId} already exists`);
    }
    this.#rows.set(exchange.tenantId, exchange.exchangeId, copy(exchange));
  }
  async update(exchange: Exchange, expectedRound: number): Promise<boolean> {
    const stored = this.#rows.get(exchange.tenantId, exchange.exchangeId);
    if (!stored || stored.currentRound !== expectedRound) return false;
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
}
