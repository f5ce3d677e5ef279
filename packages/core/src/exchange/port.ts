import type { Exchange, ExchangeOutcome } from './schema';

/** Which exchanges `list` returns (all of the tenant when empty). */
export interface ExchangeListFilter {
  /** Exchanges in which this user is the initiator's or the responder's human. */
  userId?: string;
  /**
   * Exchanges in which the initiator's or the responder's human is one of these users (a read
   * scope, e.g. an org admin's org; an empty list matches nothing). Combined with `userId` by AND.
   */
  userIds?: readonly string[];
  outcome?: ExchangeOutcome;
}

/** A transcript entry matches when it holds every key of `match` with an equal (scalar) value. */
export type TranscriptMatch = Readonly<Record<string, string | number | boolean>>;

export interface ExchangeStore {
  insert(exchange: Exchange): Promise<void>;
  /**
   * Replaces the stored exchange only if its stored `currentRound` equals `expectedRound`
   * (compare-and-set, so two concurrent rounds cannot both pass a limit) and, when given, its
   * transcript has `expectedTranscriptLength` entries (so two changes within one round — a human
   * decision and a reply — cannot both win); false otherwise.
   */
  update(exchange: Exchange, expectedRound: number, expectedTranscriptLength?: number): Promise<boolean>;
  get(tenantId: string, exchangeId: string): Promise<Exchange | undefined>;
  /** Exchanges of one conversation ordered by startedAt then id. */
  listByConversation(tenantId: string, conversationId: string): Promise<Exchange[]>;
  /** A page of the tenant's matching exchanges, newest first (startedAt desc, then id desc), and the total. */
  list(
    tenantId: string,
    filter: ExchangeListFilter,
    page: { offset: number; limit: number },
  ): Promise<{ exchanges: Exchange[]; total: number }>;
  /**
   * How many transcript entries of the tenant's exchanges match (e.g. `{kind: 'reply', automatic: true}`:
   * the automatic replies, counted durably for /metrics).
   */
  countTranscriptEntries(tenantId: string, match: TranscriptMatch): Promise<number>;
}
