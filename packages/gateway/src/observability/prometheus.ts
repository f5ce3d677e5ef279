/**
 * Prometheus exposition (prom-client) as a gateway plugin: `GET {basePath}/metrics/prometheus` in
 * the text format, from a Registry of its own (never prom-client's global one), so two kernels in
 * one process never mix their figures. The spec's `GET /metrics` (JSON, per tenant) is unchanged.
 *
 * What it measures: every request the kernel answers (through the plugin's `onRequest`), decisions
 * of a decision engine and appends of an audit store (wrap the ports with `observeDecisionEngine`
 * and `observeAuditStore` where the application composes them), and the sessions a
 * `sessionsActive` function counts at each scrape.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import {
  type AuditStore,
  type DecisionEngine,
  defineRoute,
  errorOf,
  type GatewayPlugin,
  type RequestOutcome,
} from '@agentgov/core';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

export interface PrometheusOptions {
  /**
   * A bearer token the scraper presents (`Authorization: Bearer <token>`, at least 16
   * characters). Absent: the caller authenticates like any API caller and must be an
   * `enterprise_admin` (the figures span every tenant).
   */
  token?: string;
  /** Path below the base path (default `/metrics/prometheus`). */
  path?: string;
  /** The registry to fill (default: a new one). */
  registry?: Registry;
  /** Counts the active sessions, at each scrape (gauge `agentgov_sessions_active`). */
  sessionsActive?: () => Promise<number>;
  /** Buckets of the request-duration histogram, in seconds. */
  durationBuckets?: number[];
}

export interface PrometheusPlugin extends GatewayPlugin {
  readonly registry: Registry;
  /** The same engine, counting each decision in `agentgov_decisions_total{domain,outcome}`. */
  observeDecisionEngine<E extends DecisionEngine>(engine: E): E;
  /** The same store, timing each append and recording its batch size. */
  observeAuditStore<S extends AuditStore>(store: S): S;
}

const DEFAULT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const AUDIT_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
const BATCH_BUCKETS = [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000];

/** The same object with one method replaced (a Proxy, so private fields and getters still work). */
function replaceMethod<T extends object, K extends keyof T>(target: T, key: K, replacement: T[K]): T {
  return new Proxy(target, {
    get(t, prop) {
      if (prop === key) return replacement;
      const value = Reflect.get(t, prop, t) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(t) : value;
    },
  });
}

function sameSecret(a: string, b: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(a), digest(b));
}

export function prometheusMetrics(options: PrometheusOptions = {}): PrometheusPlugin {
  const { token } = options;
  if (token !== undefined && token.length < 16)
    throw new Error('the Prometheus bearer token must have at least 16 characters');
  const registry = options.registry ?? new Registry();
  const registers = [registry];

  const requestDuration = new Histogram({
    name: 'agentgov_http_request_duration_seconds',
    help: 'Time from the arrival of a request to its response, by route template, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    buckets: options.durationBuckets ?? DEFAULT_BUCKETS,
    registers,
  });
  const requests = new Counter({
    name: 'agentgov_http_requests_total',
    help: 'Requests answered, by route template, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers,
  });
  const decisions = new Counter({
    name: 'agentgov_decisions_total',
    help: 'Policy decisions, by domain and outcome (allow, deny, error)',
    labelNames: ['domain', 'outcome'] as const,
    registers,
  });
  const auditDuration = new Histogram({
    name: 'agentgov_audit_append_duration_seconds',
    help: 'Duration of an audit-log append (lock, build, write), by result',
    labelNames: ['result'] as const,
    buckets: AUDIT_BUCKETS,
    registers,
  });
  const auditBatch = new Histogram({
    name: 'agentgov_audit_append_batch_size',
    help: 'Entries written by one audit-log append',
    buckets: BATCH_BUCKETS,
    registers,
  });
  const rateLimited = new Counter({
    name: 'agentgov_rate_limit_rejections_total',
    help: 'Requests refused with 429, by rate-limit category',
    labelNames: ['category'] as const,
    registers,
  });
  if (options.sessionsActive) {
    const count = options.sessionsActive;
    new Gauge({
      name: 'agentgov_sessions_active',
      help: 'Sessions not yet expired (counted at each scrape)',
      registers,
      async collect() {
        this.set(await count());
      },
    });
  }

  function record(o: RequestOutcome): void {
    // Unmatched paths share one label value: a scanner must not create a series per path.
    const labels = {
      route: o.route ?? '(unmatched)',
      method: o.route ? o.method : '-',
      status: String(o.status),
    };
    requests.inc(labels);
    requestDuration.observe(labels, o.durationMs / 1000);
    if (o.status === 429 && o.rateLimitCategory) rateLimited.inc({ category: o.rateLimitCategory });
  }

  const path = options.path ?? '/metrics/prometheus';
  const scrape = async () =>
    new Response(await registry.metrics(), {
      status: 200,
      headers: { 'content-type': registry.contentType, 'cache-control': 'no-store' },
    });
  const responses = {
    200: { description: 'Prometheus text exposition format 0.0.4', contentType: 'text/plain' },
  };
  const route = token
    ? defineRoute({
        method: 'GET',
        path,
        operationId: 'getPrometheusMetrics',
        summary: 'Prometheus metrics of this process (bearer token of the scraper)',
        auth: 'none',
        rateLimit: 'system_status',
        responses: { ...responses, 401: { description: 'Missing or wrong scraper token' } },
        async handler({ request }) {
          const presented = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get('authorization') ?? '')?.[1];
          if (presented === undefined || !sameSecret(presented, token))
            throw errorOf('authentication_required', 'The metrics scraper token is missing or wrong');
          return scrape();
        },
      })
    : defineRoute({
        method: 'GET',
        path,
        operationId: 'getPrometheusMetrics',
        summary: 'Prometheus metrics of this process (all tenants: enterprise_admin)',
        auth: 'required',
        roles: ['enterprise_admin'],
        rateLimit: 'admin',
        responses,
        handler: scrape,
      });

  return {
    name: 'prometheus',
    routes: [route],
    registry,
    onRequest: () => record,
    observeDecisionEngine(engine) {
      const decide: DecisionEngine['decide'] = async (request, callOptions) => {
        const domain = typeof request?.domain === 'string' ? request.domain : 'unknown';
        try {
          const result = await engine.decide(request, callOptions);
          decisions.inc({
            domain,
            outcome: result.isOk() ? (result.value.allow ? 'allow' : 'deny') : 'error',
          });
          return result;
        } catch (error) {
          decisions.inc({ domain, outcome: 'error' });
          throw error;
        }
      };
      return replaceMethod(engine, 'decide', decide as (typeof engine)['decide']);
    },
    observeAuditStore(store) {
      const append: AuditStore['append'] = async (tenantId, build, callOptions) => {
        const end = auditDuration.startTimer();
        try {
          const records = await store.append(tenantId, build, callOptions);
          end({ result: 'ok' });
          auditBatch.observe(records.length);
          return records;
        } catch (error) {
          end({ result: 'error' });
          throw error;
        }
      };
      return replaceMethod(store, 'append', append as (typeof store)['append']);
    },
  };
}
