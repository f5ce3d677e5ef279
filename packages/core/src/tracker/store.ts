import type { OutboxState, TrackerWrite, WebhookDelivery, WebhookSource, WorkActivity } from './schema';

/**
 * Durable state of the work-tracking plugin: deliveries already processed, the activity they
 * recorded, the outbox of tracker writes and the plugin's counters (`/metrics`).
 */
export interface WorkTrackingStore {
  /**
   * Records a processed delivery with everything it produced, atomically: either all of it is
   * stored, or — when (tenantId, source, deliveryId), or (tenantId, source, one of `aliases`), was
   * recorded before — nothing and `'duplicate'` is returned. `aliases`: other ids the delivery is
   * known by (the SHA-256 of its body, so the same signed body under a new delivery id — a replay —
   * is the same delivery); each is then a delivery id `hasDelivery` knows too.
   */
  recordDelivery(record: {
    delivery: WebhookDelivery;
    activities: readonly WorkActivity[];
    writes: readonly TrackerWrite[];
    aliases?: readonly string[];
  }): Promise<'recorded' | 'duplicate'>;
  hasDelivery(tenantId: string, source: WebhookSource, deliveryId: string): Promise<boolean>;
  /** Activities of a user with from <= occurredAt < to, ordered by occurredAt then id. */
  activities(tenantId: string, query: { userId: string; from: string; to: string }): Promise<WorkActivity[]>;
  /**
   * Claims up to `limit` pending writes of any tenant whose nextAttemptAt <= now, ordered by
   * nextAttemptAt, then createdAt, then id, and moves their nextAttemptAt to `leaseUntil` in the same step, so two
   * workers (processes) never claim the same write while the lease runs.
   */
  claimWrites(now: string, leaseUntil: string, limit: number): Promise<TrackerWrite[]>;
  /** Replaces a write by (tenantId, id); false when absent. */
  updateWrite(write: TrackerWrite): Promise<boolean>;
  getWrite(tenantId: string, id: string): Promise<TrackerWrite | undefined>;
  /** Writes of the tenant ordered by createdAt then id. */
  listWrites(
    tenantId: string,
    filter?: { state?: OutboxState; deliveryId?: string },
  ): Promise<TrackerWrite[]>;
  /** Adds `by` to a named counter of the tenant (created at 0). */
  increment(tenantId: string, counter: string, by?: number): Promise<void>;
  /** Every counter of the tenant. */
  counters(tenantId: string): Promise<Record<string, number>>;
}
