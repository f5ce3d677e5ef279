/**
 * `workTrackingRoutes(...)`: the work-tracking domain as a gateway plugin — the webhook routes,
 * the standup tool, tasks, briefings, classification and the outbox routes; the outbox worker and
 * the retention schedule run between `start` and `close`. It reports `tasksDiscovered` and
 * `modelCalls` to /metrics from the counters its services keep in the WorkTrackingStore, and
 * `workTracking` (store reachable) to /status.
 */
import { type GatewayPlugin, guardPort, type OrgDirectory, type RateLimit } from '@agentgov/core';
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
}

export interface WorkTrackingPlugin extends GatewayPlugin {
  /** The services the routes serve (for in-process use beside HTTP, and tests). */
  readonly services: WorkTracking;
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
    secrets: guardPort(options.secrets, 'secret store'),
  });
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
    rateLimits: WORK_TRACKING_RATE_LIMITS,
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
