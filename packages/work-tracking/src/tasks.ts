/**
 * Tasks: discovery from connector items (through the TaskSource port), correlation, priority,
 * status changes and the retention sweep (spec: Task, retention phases):
 * - an open task (discovered, active) expires 90 days after discoveredAt: it is archived then;
 * - a completed task is archived 30 days after completedAt;
 * - an archived task is purged — deleted from the store — 90 days after archival.
 * Each phase is dated from when it was due, not from when the sweep ran, so a sweep is idempotent
 * and a late sweep produces the same records as a punctual one.
 */
import {
  type ClassificationLevel,
  type Clock,
  errorOf,
  maxClassification,
  newId,
  systemClock,
  TASK_RETENTION_DAYS,
  type Task,
  type TaskStore,
  type UrgencySignals,
  type WorkTrackingStore,
} from '@agentgov/core';
import { type Correlation, correlate } from './correlation';
import { priorityOf } from './priority';

const DAY = 86_400_000;

/** An item a connector found (a mail needing an answer, a ticket assigned, a review requested…). */
export interface ConnectorItem {
  system: string;
  id: string;
  url?: string | undefined;
  userId: string;
  title: string;
  description?: string | undefined;
  deadline?: string | null | undefined;
  urgencySignals?: Partial<UrgencySignals> | undefined;
  classification?: ClassificationLevel | undefined;
}

/** Where discovery reads items from (one implementation per connector type). */
export interface TaskSource {
  items(tenantId: string, options?: { signal?: AbortSignal }): Promise<ConnectorItem[]>;
}

export interface DiscoveryOutcome {
  system: string;
  id: string;
  /** created: a new task; merged: added as a source to a duplicate; updated: already known. */
  outcome: 'created' | 'merged' | 'updated';
  taskId: string;
  correlation?: Correlation | undefined;
}

export interface RetentionReport {
  expired: number;
  archived: number;
  purged: number;
}

export interface TaskServiceOptions {
  store: TaskStore;
  /** Where `tasksDiscovered` is counted. */
  counters: Pick<WorkTrackingStore, 'increment'>;
  clock?: Clock;
}

const OPEN = ['discovered', 'active'] as const;

export class TaskService {
  readonly #store: TaskStore;
  readonly #counters: Pick<WorkTrackingStore, 'increment'>;
  readonly #clock: Clock;
  constructor(options: TaskServiceOptions) {
    this.#store = options.store;
    this.#counters = options.counters;
    this.#clock = options.clock ?? systemClock;
  }

  /** Discovers tasks from a source's items. */
  async discoverFrom(
    tenantId: string,
    source: TaskSource,
    signal?: AbortSignal,
  ): Promise<DiscoveryOutcome[]> {
    return this.discover(tenantId, await source.items(tenantId, signal ? { signal } : {}));
  }

  /** Turns items into tasks: known sources are updated, duplicates merged, the rest created. */
  async discover(tenantId: string, items: readonly ConnectorItem[]): Promise<DiscoveryOutcome[]> {
    const out: DiscoveryOutcome[] = [];
    let created = 0;
    for (const item of items) {
      const now = this.#clock.now();
      const open = await this.#store.list(tenantId, { userId: item.userId, status: OPEN });
      const known = open.find((t) => t.sources.some((s) => s.system === item.system && s.id === item.id));
      if (known) {
        const updated = this.#withPriority({ ...known, ...this.#fields(item, known) }, now);
        await this.#store.put(updated);
        out.push({ system: item.system, id: item.id, outcome: 'updated', taskId: known.id });
        continue;
      }
      const c = correlate(item, open);
      if (c?.action === 'merge') {
        const target = open.find((t) => t.id === c.taskId) as Task;
        target.sources.push({ system: item.system, id: item.id, url: item.url ?? '' });
        // The task now stands for this item too: it is as sensitive as its most sensitive source.
        target.classification = maxClassification(target.classification, item.classification ?? 'internal');
        await this.#store.put(this.#withPriority(target, now));
        out.push({ system: item.system, id: item.id, outcome: 'merged', taskId: target.id, correlation: c });
        continue;
      }
      const task: Task = this.#withPriority(
        {
          id: newId(),
          tenantId,
          userId: item.userId,
          title: item.title.slice(0, 255),
          description: item.description ?? '',
          priorityScore: 0,
          status: 'discovered',
          sources: [{ system: item.system, id: item.id, url: item.url ?? '' }],
          correlationId: c?.action === 'review' ? c.taskId : null,
          correlationConfidence: c?.action === 'review' ? c.score : null,
          deadline: item.deadline ?? null,
          urgencySignals: {
            senderSeniority: item.urgencySignals?.senderSeniority ?? null,
            followUpCount: item.urgencySignals?.followUpCount ?? 0,
            slaTimer: item.urgencySignals?.slaTimer ?? null,
            blockingRelationships: item.urgencySignals?.blockingRelationships ?? [],
          },
          classification: item.classification ?? 'internal',
          discoveredAt: now.toISOString(),
          completedAt: null,
          archivedAt: null,
          purgeAt: null,
        },
        now,
      );
      await this.#store.put(task);
      created++;
      out.push({ system: item.system, id: item.id, outcome: 'created', taskId: task.id, correlation: c });
    }
    if (created > 0) await this.#counters.increment(tenantId, 'tasksDiscovered', created);
    return out;
  }

  #fields(item: ConnectorItem, t: Task): Partial<Task> {
    return {
      title: item.title.slice(0, 255),
      description: item.description ?? t.description,
      deadline: item.deadline === undefined ? t.deadline : item.deadline,
      urgencySignals: { ...t.urgencySignals, ...item.urgencySignals },
      // The item's title and description replace the task's: never under the item's level (and
      // never lowered: the task's other sources may be more sensitive).
      classification: maxClassification(t.classification, item.classification ?? 'internal'),
    };
  }

  #withPriority(t: Task, now: Date): Task {
    return { ...t, priorityScore: priorityOf(t, now).score };
  }

  async list(tenantId: string, userId: string, status?: readonly Task['status'][]): Promise<Task[]> {
    const tasks = await this.#store.list(tenantId, { userId, ...(status ? { status } : {}) });
    return tasks.sort(
      (a, b) => b.priorityScore - a.priorityScore || (a.discoveredAt < b.discoveredAt ? -1 : 1),
    );
  }

  async get(tenantId: string, id: string): Promise<Task> {
    const t = await this.#store.get(tenantId, id);
    if (!t) throw errorOf('NOT_FOUND', `No task ${id}`);
    return t;
  }

  /** Moves an open task to active or completed (completing schedules its archival and purge). */
  async setStatus(tenantId: string, id: string, status: 'active' | 'completed'): Promise<Task> {
    const t = await this.get(tenantId, id);
    if (t.status === status) return t;
    if (!(OPEN as readonly string[]).includes(t.status))
      throw errorOf('invalid_type', `A ${t.status} task cannot become ${status}`, [
        { path: 'status', message: `task is ${t.status}` },
      ]);
    const now = this.#clock.now();
    const next: Task =
      status === 'completed'
        ? {
            ...t,
            status,
            completedAt: now.toISOString(),
            purgeAt: new Date(
              now.getTime() +
                (TASK_RETENTION_DAYS.archiveAfterCompletion + TASK_RETENTION_DAYS.purgeAfterArchival) * DAY,
            ).toISOString(),
          }
        : { ...t, status };
    await this.#store.put(next);
    return next;
  }

  /** Applies the retention phases to every task of the tenant that is due now. Idempotent. */
  async sweep(tenantId: string): Promise<RetentionReport> {
    const now = this.#clock.now().getTime();
    const report: RetentionReport = { expired: 0, archived: 0, purged: 0 };
    for (const t of await this.#store.list(tenantId)) {
      let task = t;
      let archiveAt: number | undefined;
      if ((OPEN as readonly string[]).includes(task.status)) {
        archiveAt = Date.parse(task.discoveredAt) + TASK_RETENTION_DAYS.active * DAY;
      } else if (task.status === 'completed' && task.completedAt) {
        archiveAt = Date.parse(task.completedAt) + TASK_RETENTION_DAYS.archiveAfterCompletion * DAY;
      }
      if (archiveAt !== undefined && archiveAt <= now) {
        const archivedAt = new Date(archiveAt);
        if (task.status !== 'completed') report.expired++;
        report.archived++;
        task = {
          ...task,
          status: 'archived',
          archivedAt: archivedAt.toISOString(),
          purgeAt: new Date(archiveAt + TASK_RETENTION_DAYS.purgeAfterArchival * DAY).toISOString(),
        };
        await this.#store.put(task);
      }
      if (task.status === 'archived') {
        const purgeAt = task.purgeAt
          ? Date.parse(task.purgeAt)
          : Date.parse(task.archivedAt ?? task.discoveredAt) + TASK_RETENTION_DAYS.purgeAfterArchival * DAY;
        if (purgeAt <= now && (await this.#store.delete(tenantId, task.id))) report.purged++;
      }
    }
    return report;
  }
}
