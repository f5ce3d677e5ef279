import { byKeys, copy, TenantMap } from '../memory-util';
import type { CallOptions } from '../vocabulary';
import { type TrackerClient, TrackerRequestError, type TrackerTransition } from './port';
import type { OutboxState, TrackerWrite, WebhookDelivery, WebhookSource, WorkActivity } from './schema';
import type { WorkTrackingStore } from './store';

export class InMemoryWorkTrackingStore implements WorkTrackingStore {
  readonly #deliveries = new TenantMap<WebhookDelivery>();
  readonly #activities = new TenantMap<WorkActivity>();
  readonly #writes = new TenantMap<TrackerWrite>();
  readonly #counters = new Map<string, Map<string, number>>();

  async recordDelivery(record: {
    delivery: WebhookDelivery;
    activities: readonly WorkActivity[];
    writes: readonly TrackerWrite[];
    aliases?: readonly string[];
  }): Promise<'recorded' | 'duplicate'> {
    const d = record.delivery;
    const ids = [...new Set([d.deliveryId, ...(record.aliases ?? [])])];
    const keys = ids.map((id) => `${d.source}\u0000${id}`);
    if (keys.some((key) => this.#deliveries.has(d.tenantId, key))) return 'duplicate';
    for (const [i, key] of keys.entries())
      this.#deliveries.set(d.tenantId, key, copy({ ...d, deliveryId: ids[i] as string }));
    for (const a of record.activities) this.#activities.set(a.tenantId, a.id, copy(a));
    for (const w of record.writes) this.#writes.set(w.tenantId, w.id, copy(w));
    return 'recorded';
  }
  async hasDelivery(tenantId: string, source: WebhookSource, deliveryId: string): Promise<boolean> {
    return this.#deliveries.has(tenantId, `${source}\u0000${deliveryId}`);
  }
  async activities(
    tenantId: string,
    q: { userId: string; from: string; to: string },
  ): Promise<WorkActivity[]> {
    const from = Date.parse(q.from);
    const to = Date.parse(q.to);
    return this.#activities
      .values(tenantId)
      .filter((a) => {
        const at = Date.parse(a.occurredAt);
        return a.userId === q.userId && at >= from && at < to;
      })
      .sort(
        byKeys(
          (a) => Date.parse(a.occurredAt),
          (a) => a.id,
        ),
      )
      .map(copy);
  }
  async claimWrites(now: string, leaseUntil: string, limit: number): Promise<TrackerWrite[]> {
    const t = Date.parse(now);
    const due = this.#writes
      .tenants()
      .flatMap((tenant) => this.#writes.values(tenant))
      .filter((w) => w.state === 'pending' && Date.parse(w.nextAttemptAt) <= t)
      .sort(
        byKeys(
          (w) => Date.parse(w.nextAttemptAt),
          (w) => Date.parse(w.createdAt),
          (w) => w.id,
        ),
      )
      .slice(0, Math.max(0, limit));
    for (const w of due) w.nextAttemptAt = leaseUntil;
    return due.map(copy);
  }
  async updateWrite(write: TrackerWrite): Promise<boolean> {
    if (!this.#writes.has(write.tenantId, write.id)) return false;
    this.#writes.set(write.tenantId, write.id, copy(write));
    return true;
  }
  async getWrite(tenantId: string, id: string): Promise<TrackerWrite | undefined> {
    const w = this.#writes.get(tenantId, id);
    return w && copy(w);
  }
  async listWrites(
    tenantId: string,
    filter: { state?: OutboxState; deliveryId?: string } = {},
  ): Promise<TrackerWrite[]> {
    return this.#writes
      .values(tenantId)
      .filter(
        (w) =>
          (!filter.state || w.state === filter.state) &&
          (!filter.deliveryId || w.deliveryId === filter.deliveryId),
      )
      .sort(
        byKeys(
          (w) => Date.parse(w.createdAt),
          (w) => w.id,
        ),
      )
      .map(copy);
  }
  async increment(tenantId: string, counter: string, by = 1): Promise<void> {
    let inner = this.#counters.get(tenantId);
    if (!inner) {
      inner = new Map();
      this.#counters.set(tenantId, inner);
    }
    inner.set(counter, (inner.get(counter) ?? 0) + by);
  }
  async counters(tenantId: string): Promise<Record<string, number>> {
    return Object.fromEntries(this.#counters.get(tenantId) ?? []);
  }
}

/** A ticket of the in-memory tracker. */
export interface InMemoryTicket {
  key: string;
  status: string;
  comments: { id: string; body: string }[];
  /** Transitions by status: from the current status, which transitions exist. */
  workflow: Record<string, TrackerTransition[]>;
}

/** The default workflow: To Do → In Progress → In Review → Done. */
export const DEFAULT_TRACKER_WORKFLOW: Record<string, TrackerTransition[]> = {
  'To Do': [{ id: '11', name: 'Start Progress', to: 'In Progress' }],
  'In Progress': [
    { id: '21', name: 'Request Review', to: 'In Review' },
    { id: '31', name: 'Done', to: 'Done' },
  ],
  'In Review': [{ id: '31', name: 'Done', to: 'Done' }],
  Done: [{ id: '41', name: 'Reopen', to: 'To Do' }],
};

/**
 * An in-memory tracker implementing TrackerClient, with inspection helpers for tests and demos.
 * It follows the same rules as the HTTP tracker: unknown ticket → 404, unavailable transition → 400.
 */
export class InMemoryTracker implements TrackerClient {
  readonly tickets = new Map<string, InMemoryTicket>();
  #nextComment = 1;
  addTicket(
    key: string,
    init: { status?: string; workflow?: Record<string, TrackerTransition[]> } = {},
  ): InMemoryTicket {
    const t: InMemoryTicket = {
      key,
      status: init.status ?? 'In Progress',
      comments: [],
      workflow: init.workflow ?? DEFAULT_TRACKER_WORKFLOW,
    };
    this.tickets.set(key, t);
    return t;
  }
  #ticket(key: string, signal: AbortSignal | undefined): InMemoryTicket {
    signal?.throwIfAborted();
    const t = this.tickets.get(key);
    if (!t) throw new TrackerRequestError(`ticket ${key} does not exist`, { status: 404, retryable: false });
    return t;
  }
  async addComment(key: string, body: string, options?: CallOptions): Promise<{ id: string }> {
    const t = this.#ticket(key, options?.signal);
    const id = String(this.#nextComment++);
    t.comments.push({ id, body });
    return { id };
  }
  async findTransition(
    key: string,
    name: string,
    options?: CallOptions,
  ): Promise<TrackerTransition | undefined> {
    const t = this.#ticket(key, options?.signal);
    return findByName(t.workflow[t.status] ?? [], name);
  }
  async transition(key: string, transitionId: string, options?: CallOptions): Promise<void> {
    const t = this.#ticket(key, options?.signal);
    const tr = (t.workflow[t.status] ?? []).find((x) => x.id === transitionId);
    if (!tr)
      throw new TrackerRequestError(`transition ${transitionId} is not available for ${key}`, {
        status: 400,
        retryable: false,
      });
    t.status = tr.to ?? tr.name;
  }
}

/** The transition whose name or target status equals `name`, case-insensitively (name first). */
export function findByName(
  transitions: readonly TrackerTransition[],
  name: string,
): TrackerTransition | undefined {
  const n = name.trim().toLowerCase();
  return (
    transitions.find((t) => t.name.toLowerCase() === n) ?? transitions.find((t) => t.to?.toLowerCase() === n)
  );
}
