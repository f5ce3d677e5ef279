/**
 * Kernel routes of operations (spec: status, metrics). `/status` is the gateway and the database,
 * plus the components each plugin reports (the policy plugin: `policyEngine`, and `opa` only when
 * an OPA is configured — a component that is not configured is absent), plus the
 * connectors of the caller's tenant (none for an anonymous caller); any unhealthy component —
 * a connector listed in the body too, e.g. one in status `error` after failed pulls — makes it
 * `degraded` (503), with the same body. `/metrics`
 * counts the tenant's active users itself and takes every other counter from the plugins.
 *
 * Extensions for orchestrators (not in the spec; public, tiny, never rate-limited): `/livez` is
 * 200 while the process serves requests; `/readyz` is 200 when the database answers a ping and
 * 503 when it does not, with the component that is not ready in the body.
 */
import { type AnyRoute, defineRoute, json } from '@agentgov/core';
import { z } from 'zod';
import { presentedTenant } from '../auth/authenticate';
import type { KernelServices } from '../services';
import { connectorReporter } from './connector-health';
import { pluginHealth, pluginMetrics, within } from './plugin-reports';

const ComponentStatus = z.object({ status: z.enum(['healthy', 'unhealthy']) });
const StatusOut = z.object({
  status: z.enum(['healthy', 'degraded']),
  components: z.looseObject({
    gateway: ComponentStatus,
    database: ComponentStatus,
    connectors: z.record(
      z.string(),
      ComponentStatus.extend({
        lastFailure: z.object({ reason: z.string(), at: z.string() }).optional(),
      }),
    ),
  }),
  timestamp: z.string(),
});

/** The spec's counters of GET /metrics; a counter no plugin reports is 0. */
const SPEC_COUNTERS = [
  'autoResponsesSent',
  'tasksDiscovered',
  'modelCalls',
  'policyEvaluations',
  'auditEntries',
] as const;
const MetricsOut = z.object({
  activeUsers: z.number().int(),
  ...Object.fromEntries(SPEC_COUNTERS.map((k) => [k, z.number().int()])),
  collectedAt: z.string(),
});

const ProbeOut = z.object({
  status: z.enum(['ready', 'not_ready']),
  components: z.object({ database: z.object({ status: z.enum(['healthy', 'unhealthy', 'migrating']) }) }),
});
const LiveOut = z.object({ status: z.literal('alive') });
const noStore = { 'cache-control': 'no-store' };

const s = (ok: boolean) => ({ status: ok ? ('healthy' as const) : ('unhealthy' as const) });

export function statusRoutes(ctx: KernelServices): AnyRoute[] {
  // `/status` needs no authentication: an anonymous caller gets no connector entries at all; a
  // caller presenting valid credentials sees its own tenant's connectors, by name, with reasons.
  const connectorHealth = connectorReporter(ctx);
  return [
    defineRoute({
      method: 'GET',
      path: '/livez',
      operationId: 'getLiveness',
      summary:
        'Liveness: 200 while the process serves requests (extension; no authentication, no rate limit)',
      auth: 'none',
      responses: { 200: { description: 'Alive', schema: LiveOut } },
      handler: async () => json(200, { status: 'alive' }, noStore),
    }),
    defineRoute({
      method: 'GET',
      path: '/readyz',
      operationId: 'getReadiness',
      summary:
        'Readiness: 200 when the database answers, 503 when it does not (extension; no authentication, no rate limit)',
      auth: 'none',
      responses: {
        200: { description: 'Ready', schema: ProbeOut },
        503: { description: 'Not ready (same body; the component that is not ready)', schema: ProbeOut },
      },
      async handler() {
        const database = await within(() => ctx.probeDatabase(), false);
        const body = { status: database ? 'ready' : 'not_ready', components: { database: s(database) } };
        return json(database ? 200 : 503, body, noStore);
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/status',
      operationId: 'getStatus',
      summary: 'Health of the gateway and its backing services (200 healthy, 503 degraded)',
      auth: 'none',
      rateLimit: 'system_status',
      responses: {
        200: { description: 'Healthy', schema: StatusOut },
        503: { description: 'Degraded (same body)', schema: StatusOut },
      },
      async handler({ request }, { signal }) {
        const [database, plugins, tenantId] = await Promise.all([
          within(() => ctx.probeDatabase(), false),
          pluginHealth(ctx.plugins, signal),
          presentedTenant(ctx.authenticate, request),
        ]);
        const connectors = database ? await within(() => connectorHealth(tenantId), {}, 5000) : {};
        const healthy =
          database &&
          Object.values(plugins).every(Boolean) &&
          Object.values(connectors).every((c) => c.status === 'healthy');
        const components: Record<string, unknown> = { gateway: s(true) };
        for (const [name, ok] of Object.entries(plugins)) components[name] = s(ok);
        components.database = s(database);
        components.connectors = connectors;
        const body = {
          status: healthy ? 'healthy' : 'degraded',
          components,
          timestamp: ctx.clock.now().toISOString(),
        };
        return json(healthy ? 200 : 503, body, { 'cache-control': 'no-store' });
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/metrics',
      operationId: 'getMetrics',
      summary: "Counters of the caller's tenant",
      auth: 'required',
      roles: ['enterprise_admin', 'org_admin'],
      rateLimit: 'admin',
      responses: { 200: { description: 'Metrics', schema: MetricsOut } },
      async handler(_input, { tenantId, signal, clock }) {
        const now = clock.now();
        const [activeUsers, counters] = await Promise.all([
          ctx.activity.countActive(tenantId, new Date(now.getTime() - ctx.activeUsersWindowMs)),
          pluginMetrics(ctx.plugins, tenantId, signal),
        ]);
        const body: Record<string, unknown> = { activeUsers };
        for (const k of SPEC_COUNTERS) body[k] = counters[k] ?? 0;
        body.collectedAt = now.toISOString();
        return { status: 200, body };
      },
    }),
  ];
}
