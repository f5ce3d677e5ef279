/**
 * `workTrackingRoutes(...)`: the work-tracking domain as a gateway plugin — the webhook routes,
 * the standup tool, tasks, briefings, classification and the outbox routes; the outbox worker and
 * the retention schedule run between `start` and `close`. It reports `tasksDiscovered` and
 * `modelCalls` to /metrics from the counters its services keep in the WorkTrackingStore, and
 * `workTracking` (store reachable) to /status. It gives the kernel the `tracker` and `codehost`
 * connector configs it can use (`connectorConfigs`), checked when a connector is written.
 */
import {
  type ConnectorStore,
  type GatewayPlugin,
  guardPort,
  newId,
  type OrgDirectory,
  type RateLimit,
  type ScheduledRunStore,
  tenantSecrets,
} from '@agentgov/core';
import { WORK_TRACKING_CONNECTOR_CONFIGS } from '../connector-config';
import { DEFAULT_EGRESS, egressFetch } from '../egress';
import { BriefingSchedule } from '../sync/briefing-schedule';
import { ConnectorSync, type ConnectorSyncOptions } from '../sync/connector-sync';
import { type SchedulerTimers, WorkScheduler } from '../sync/scheduler';
import { createWorkTracking, type WorkTracking, type WorkTrackingOptions } from '../work-tracking';
import { adminRoutes } from './admin-routes';
import { toolRoutes } from './tool-routes';
import { webhookRoutes } from './webhook-routes';

/** Default limits of the plugin's rate-limit categories (per source address for webhooks, per tenant otherwise). */
export const WORK_TRACKING_RATE_LIMITS: Readonly<Record<string, RateLimit>> = {
  webhooks: { points: 600, durationSeconds: 60 },
  work_tools: { points: 120, durationSeconds: 60 },
};
/** Default body limit of the webhook routes: 1 MiB (the kernel's limit applies too). */
export const DEFAULT_WEBHOOK_BODY_LIMIT = 1024 * 1024;

export interface WorkTrackingRoutesOptions extends WorkTrackingOptions {
  /** Where users are known (standup "unknown user", admin scopes). */
  directory: OrgDirectory;
  /** The tenant of webhooks that name none in `?tenant=`. */
  defaultTenant?: string;
  /** Webhook body limit in bytes (only effective below the kernel's limit). */
  webhookBodyLimit?: number;
  /** Outbox drain interval in ms (default 5 000); writes are also attempted right after each webhook. */
  outboxIntervalMs?: number;
  /** Retention sweeps: every `intervalMs` (default 1 h) over the tenants `tenants()` lists. */
  retention?: { tenants: () => Promise<string[]>; intervalMs?: number };
  /** Scheduled connector pulls and daily briefings, run between `start` and `close` (see below). */
  schedule?: WorkTrackingScheduleOptions;
}

/**
 * The plugin's scheduler: every `intervalMs` (default 15 s) it pulls the tracker and code-host
 * connectors that are due (ConnectorSync) and builds the daily briefings that are due
 * (BriefingSchedule, in each user's `timeZoneOf` zone, at `briefings.at` local time).
 */
export interface WorkTrackingScheduleOptions {
  connectors: Pick<ConnectorStore, 'claimSync' | 'finishSync'>;
  runs: ScheduledRunStore;
  tenants: () => Promise<string[]>;
  /** Users who get a daily briefing (default: the directory's users of the tenant). */
  users?: (tenantId: string) => Promise<string[]>;
  /** Daily briefings: the local time `HH:MM` (default 07:00) and channel; `false`: none. */
  briefings?: false | { at?: string; channel?: 'chat' | 'email' | 'web_ui' };
  /** Backoff, error threshold, lease and HTTP settings of the pulls. */
  sync?: Omit<ConnectorSyncOptions, 'connectors' | 'secrets' | 'tasks' | 'clock' | 'logger'>;
  intervalMs?: number;
  timers?: SchedulerTimers;
  /** Who takes scheduled runs (default: a random id per plugin). */
  instanceId?: string;
}

export interface WorkTrackingPlugin extends GatewayPlugin {
  /** The services the routes serve (for in-process use beside HTTP, and tests). */
  readonly services: WorkTracking;
  /** The scheduler, when `schedule` was given (tests run its rounds with `tick()`). */
  readonly scheduler: WorkScheduler | undefined;
}

export function workTrackingRoutes(options: WorkTrackingRoutesOptions): WorkTrackingPlugin {
  const store = guardPort(options.store, 'work-tracking store');
  const directory = guardPort(options.directory, 'org directory');
  const services = createWorkTracking({
    ...options,
    directory,
    store,
    tasks: guardPort(options.tasks, 'task store'),
    briefings: guardPort(options.briefings, 'briefing store'),
    classifications: guardPort(options.classifications, 'classification store'),
    // The tenants' references (webhook secrets, tracker credentials) never reach the server's own
    // keys, nor (with `secretRefs`) another tenant's.
    secrets: tenantSecrets(guardPort(options.secrets, 'secret store'), options.secretRefs),
  });
  const scheduler = options.schedule && createScheduler(options, options.schedule, services, directory);
  let retentionTimer: ReturnType<typeof setInterval> | undefined;
  let sweeping: Promise<void> | undefined;
  const sweepAll = async () => {
    for (const tenantId of (await options.retention?.tenants()) ?? []) {
      const r = await services.tasks.sweep(tenantId);
      if (r.archived + r.purged > 0) options.logger?.info('task retention sweep', { tenantId, ...r });
    }
  };
  return {
    name: 'work-tracking',
    services,
    scheduler,
    rateLimits: WORK_TRACKING_RATE_LIMITS,
    // A tracker or code-host connector whose config work tracking cannot use is refused when written.
    connectorConfigs: WORK_TRACKING_CONNECTOR_CONFIGS,
    routes: [
      ...webhookRoutes({
        webhooks: services.webhooks,
        defaultTenant: options.defaultTenant,
        bodyLimit: options.webhookBodyLimit ?? DEFAULT_WEBHOOK_BODY_LIMIT,
      }),
      ...toolRoutes(services, directory),
      ...adminRoutes(services),
    ],
    async start() {
      scheduler?.start();
      services.outbox.start(options.outboxIntervalMs ?? 5_000);
      services.outbox.kick();
      if (options.retention) {
        const run = () => {
          sweeping ??= sweepAll()
            .catch((error: unknown) =>
              options.logger?.error('task retention sweep failed', { error: String(error) }),
            )
            .finally(() => {
              sweeping = undefined;
            });
        };
        run();
        retentionTimer = setInterval(run, options.retention.intervalMs ?? 3_600_000);
        retentionTimer.unref?.();
      }
    },
    async close() {
      await scheduler?.stop();
      if (retentionTimer) clearInterval(retentionTimer);
      retentionTimer = undefined;
      await sweeping;
      await services.outbox.stop();
    },
    async health() {
      const ok = await store.counters('__agentgov_probe__').then(
        () => true,
        () => false,
      );
      return { workTracking: ok };
    },
    async metrics(tenantId) {
      const c = await store.counters(tenantId);
      return { tasksDiscovered: c.tasksDiscovered ?? 0, modelCalls: c.modelCalls ?? 0 };
    },
  };
}

function createScheduler(
  options: WorkTrackingRoutesOptions,
  o: WorkTrackingScheduleOptions,
  services: WorkTracking,
  directory: OrgDirectory,
): WorkScheduler {
  const clock = options.clock ? { clock: options.clock } : {};
  const logger = options.logger ? { logger: options.logger } : {};
  const sync = new ConnectorSync({
    fetch: egressFetch(options.egress ?? DEFAULT_EGRESS),
    ...o.sync,
    ...clock,
    ...logger,
    connectors: o.connectors,
    secrets: tenantSecrets(options.secrets, options.secretRefs),
    tasks: services.tasks,
  });
  const briefings =
    o.briefings === false
      ? undefined
      : new BriefingSchedule({
          ...clock,
          ...logger,
          ...(o.briefings?.at ? { at: o.briefings.at } : {}),
          ...(o.briefings?.channel ? { channel: o.briefings.channel } : {}),
          briefings: services.briefings,
          runs: o.runs,
          tenants: o.tenants,
          users: o.users ?? ((tenantId) => directory.users(tenantId)),
          ...(options.timeZoneOf ? { timeZoneOf: options.timeZoneOf } : {}),
          owner: o.instanceId ?? newId(),
        });
  return new WorkScheduler({
    ...logger,
    ...(o.intervalMs ? { intervalMs: o.intervalMs } : {}),
    ...(o.timers ? { timers: o.timers } : {}),
    jobs: [
      { name: 'connector-sync', run: (signal) => sync.tick(signal) },
      ...(briefings
        ? [{ name: 'daily-briefings', run: (signal: AbortSignal) => briefings.tick(signal) }]
        : []),
    ],
  });
}
