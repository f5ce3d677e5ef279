import type { Exchange } from './schema';

export interface ExchangeStore {
  insert(exchange: Exchange): Promise<void>;
  /**
   * Replaces the stored exchange only if its stored `currentRound` equals `expectedRound`
   * (compare-and-set, so two concurrent rounds cannot both pass a limit); false otherwise.
   */
  update(exchange: Exchange, expectedRound: number): Promise<boolean>;
  get(tenantId: string, exchangeId: string): Promise<Exchange | undefined>;
  /** Exchanges of one conversation ordered by startedAt then id. */
  listByConversation(tenantId: string, conversationId: string): Promise<Exchange[]>;
}
