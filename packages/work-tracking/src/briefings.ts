/**
 * Daily briefings: the user's open tasks ranked by priority, time blocks placed in free calendar
 * slots, alerts (overdue and due-today tasks, correlations to review, connectors not ok),
 * the connector status map, news without `skip` items. A briefing is pending (`deliveredAt`
 * null) until a delivery through its channel succeeded.
 */
import {
  type Briefing,
  type BriefingStore,
  type Clock,
  CORRELATION_THRESHOLDS,
  type ConnectorType,
  errorOf,
  NEWS_RELEVANCE,
  newId,
  systemClock,
  type TaskStore,
} from '@agentgov/core';

type ConnectorStatusValue = NonNullable<Briefing['connectorStatus'][ConnectorType]>;
type NewsItem = Briefing['orgNewsItems'][number];

/** Free slots of a user's calendar (port; the calendar connector implements it). */
export interface CalendarPort {
  freeSlots(
    tenantId: string,
    userId: string,
    range: { from: string; to: string },
  ): Promise<{ start: string; end: string }[]>;
}

export interface BriefingInputs {
  calendar?: CalendarPort;
  /** Status of each connector type the user relies on. */
  connectorStatus?: (
    tenantId: string,
    userId: string,
  ) => Promise<Partial<Record<ConnectorType, ConnectorStatusValue>>>;
  news?: (tenantId: string, userId: string) => Promise<NewsItem[]>;
  docChanges?: (tenantId: string, userId: string) => Promise<Briefing['docChangeAlerts']>;
  autoResponses?: (tenantId: string, userId: string) => Promise<Record<string, unknown>>;
  /** Sends a briefing through its channel; resolves when delivered. */
  deliver?: (briefing: Briefing) => Promise<void>;
}

export interface BriefingServiceOptions extends BriefingInputs {
  store: BriefingStore;
  tasks: TaskStore;
  clock?: Clock;
  /** Tasks listed (default 10); blocks shorter than `minBlockMinutes` (15) are not used, longer ones capped at `maxBlockMinutes` (90). */
  maxTasks?: number;
  minBlockMinutes?: number;
  maxBlockMinutes?: number;
}

const MIN = 60_000;

export class BriefingService {
  readonly #o: BriefingServiceOptions;
  readonly #clock: Clock;
  constructor(options: BriefingServiceOptions) {
    this.#o = options;
    this.#clock = options.clock ?? systemClock;
  }

  /** Generates and stores the briefing of `userId` for the next `hours` (default 10) from now. */
  async generate(
    tenantId: string,
    userId: string,
    options: { channel: Briefing['deliveryChannel']; hours?: number },
  ): Promise<Briefing> {
    const now = this.#clock.now();
    const until = new Date(now.getTime() + (options.hours ?? 10) * 60 * MIN);
    const open = (await this.#o.tasks.list(tenantId, { userId, status: ['discovered', 'active'] })).sort(
      (a, b) => b.priorityScore - a.priorityScore || (a.discoveredAt < b.discoveredAt ? -1 : 1),
    );
    const ranked = open.slice(0, this.#o.maxTasks ?? 10);
    const slots = this.#o.calendar
      ? await this.#o.calendar.freeSlots(tenantId, userId, {
          from: now.toISOString(),
          to: until.toISOString(),
        })
      : [];
    const timeBlocks: Briefing['timeBlocks'] = [];
    const queue = [...ranked];
    const minMs = (this.#o.minBlockMinutes ?? 15) * MIN;
    const maxMs = (this.#o.maxBlockMinutes ?? 90) * MIN;
    for (const slot of [...slots].sort((a, b) => Date.parse(a.start) - Date.parse(b.start))) {
      let start = Math.max(Date.parse(slot.start), now.getTime());
      const end = Math.min(Date.parse(slot.end), until.getTime());
      while (queue.length > 0 && end - start >= minMs) {
        const task = queue.shift();
        if (!task) break;
        const blockEnd = Math.min(end, start + maxMs);
        timeBlocks.push({
          start: new Date(start).toISOString(),
          end: new Date(blockEnd).toISOString(),
          taskId: task.id,
          label: task.title,
        });
        start = blockEnd;
      }
    }
    const connectorStatus = (await this.#o.connectorStatus?.(tenantId, userId)) ?? {};
    const alerts: Briefing['alerts'] = [];
    for (const t of open) {
      if (!t.deadline) continue;
      const left = Date.parse(t.deadline) - now.getTime();
      if (left < 0)
        alerts.push({
          type: 'task_overdue',
          message: `"${t.title}" was due ${t.deadline}`,
          severity: 'high',
        });
      else if (left <= 24 * 60 * MIN)
        alerts.push({
          type: 'task_due_soon',
          message: `"${t.title}" is due ${t.deadline}`,
          severity: 'medium',
        });
    }
    for (const t of open) {
      if (t.correlationId && (t.correlationConfidence ?? 0) < CORRELATION_THRESHOLDS.autoMerge)
        alerts.push({
          type: 'correlation_review',
          message: `"${t.title}" may duplicate task ${t.correlationId} (confidence ${t.correlationConfidence})`,
          severity: 'low',
        });
    }
    for (const [type, status] of Object.entries(connectorStatus)) {
      if (status !== 'ok')
        alerts.push({
          type: 'connector',
          message: `${type} connector is ${status}`,
          severity: status === 'partial' ? 'low' : 'medium',
        });
    }
    const news = ((await this.#o.news?.(tenantId, userId)) ?? [])
      .filter((n) => n.relevance !== 'skip')
      .sort((a, b) => NEWS_RELEVANCE.indexOf(a.relevance) - NEWS_RELEVANCE.indexOf(b.relevance));
    const briefing: Briefing = {
      id: newId(),
      tenantId,
      userId,
      generatedAt: now.toISOString(),
      tasks: ranked.map((t, i) => ({ taskId: t.id, rank: i + 1 })),
      timeBlocks,
      autoResponseSummary: (await this.#o.autoResponses?.(tenantId, userId)) ?? {},
      orgNewsItems: news,
      docChangeAlerts: (await this.#o.docChanges?.(tenantId, userId)) ?? [],
      alerts,
      connectorStatus,
      deliveryChannel: options.channel,
      deliveredAt: null,
    };
    await this.#o.store.insert(briefing);
    return briefing;
  }

  async latest(tenantId: string, userId: string): Promise<Briefing | undefined> {
    return this.#o.store.latest(tenantId, userId);
  }

  async get(tenantId: string, id: string): Promise<Briefing> {
    const b = await this.#o.store.get(tenantId, id);
    if (!b) throw errorOf('NOT_FOUND', `No briefing ${id}`);
    return b;
  }

  /**
   * Delivers a pending briefing through the configured `deliver` (when there is one) and marks
   * it delivered; a delivered briefing is returned as is. A failed delivery leaves it pending.
   */
  async deliver(tenantId: string, id: string): Promise<Briefing> {
    const b = await this.get(tenantId, id);
    if (b.deliveredAt) return b;
    await this.#o.deliver?.(b);
    const at = this.#clock.now().toISOString();
    await this.#o.store.markDelivered(tenantId, id, at);
    return { ...b, deliveredAt: at };
  }
}

/** Briefing connector status from a connector's stored state: active → ok (partial when never synced), error → error. */
export function connectorStatusOf(c: {
  status: string;
  lastSyncAt: string | null;
}): ConnectorStatusValue | undefined {
  if (c.status === 'error') return 'error';
  if (c.status === 'active') return c.lastSyncAt ? 'ok' : 'partial';
  return undefined;
}
