/**
 * Issue 15, observability through the real HTTP stack (node:http on port 0, the test OIDC
 * provider on loopback): the request log (one pino JSON line per request, nothing secret in it),
 * Prometheus exposition (prom-client text format, per-kernel registry, scraper token or
 * enterprise_admin), OpenTelemetry spans (the SDK's in-memory exporter), liveness and readiness.
 */
import {
  type AuditRecord,
  type Decision,
  type DecisionEngine,
  type DecisionError,
  type DecisionRequest,
  definePlugin,
  defineRoute,
  err,
  type GatewayPlugin,
  InMemoryAuditStore,
  json,
  ok,
  PolicyEngineUnreachableError,
  type Result,
} from '@agentgov/core';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import pino from 'pino';
import { register as globalRegistry, Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type Governance, type GovernanceConfig, sendFetchResponse, toFetchRequest } from '../src/index';
import { PINO_REDACT, pinoLogger, prometheusMetrics } from '../src/observability/index';
import { otelTracing } from '../src/otel/index';
import { createTestGovernance, listen, type StartedServer, signIn } from '../src/testing/index';
import { ALICE, fileIssuer } from './issuer';

const idp = await fileIssuer();

const OLIVER = { ...ALICE, sub: 'oliver', email: 'oliver@acme.example', roles: ['org_admin'] };

/** A kernel behind node:http on port 0; closes both. */
async function serve(over: Partial<GovernanceConfig>): Promise<StartedServer & { gov: Governance }> {
  const gov = createTestGovernance(idp, over);
  await gov.start();
  const server = await listen(async (req, res) => {
    await sendFetchResponse(res, await gov.handle(toFetchRequest(req, res)));
  });
  return {
    gov,
    url: server.url,
    close: async () => {
      await server.close();
      await gov.close();
    },
  };
}

/** A third-party plugin whose handlers log what a careless handler might, and one that fails. */
const chatty: GatewayPlugin = definePlugin({
  name: 'chatty',
  routes: [
    defineRoute({
      method: 'POST',
      path: '/chatty/{id}',
      operationId: 'chatty',
      summary: 'Logs its input carelessly',
      auth: 'required',
      params: z.object({ id: z.string() }),
      body: z.looseObject({}),
      responses: { 200: { description: 'ok' } },
      async handler({ request, body }, { logger }) {
        logger.info('careless', {
          headers: {
            authorization: request.headers.get('authorization'),
            cookie: request.headers.get('cookie'),
          },
          secret: (body as { secret?: string }).secret,
          token: request.headers.get('authorization'),
        });
        return json(200, { ok: true });
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/chatty/fail',
      operationId: 'chattyFail',
      summary: 'Always fails',
      auth: 'none',
      responses: { 200: { description: 'never' } },
      async handler() {
        throw new Error('boom');
      },
    }),
  ],
});

describe('request log (pino through the Logger port)', () => {
  const lines: string[] = [];
  let server: StartedServer & { gov: Governance };
  beforeAll(async () => {
    const logger = pino(
      { level: 'debug', redact: { paths: [...PINO_REDACT] } },
      { write: (line: string) => lines.push(line) },
    );
    server = await serve({ plugins: [chatty], logger: pinoLogger(logger) });
  });
  afterAll(async () => server.close());
  const records = () => lines.map((l) => JSON.parse(l) as Record<string, unknown>);

  it('writes one JSON line per request (route template, status, duration, ids) and never a credential', async () => {
    // A session: the authorization code travels in the body, the session id comes back in Set-Cookie.
    const {
      cookie,
      value: sessionId,
      code,
    } = await signIn(idp, ALICE, fetch, {
      base: `${server.url}/api/v1`,
      headers: { 'x-request-id': 'req-login' },
    });
    expect(sessionId.length).toBeGreaterThan(10);

    const token = await idp.signIdToken(ALICE);
    const secret = 'body-secret-4f1c9a';
    const res = await fetch(`${server.url}/api/v1/chatty/item-77?code=query-code-991`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        cookie,
        'content-type': 'application/json',
        'x-request-id': 'req-42',
      },
      body: JSON.stringify({ secret, password: 'hunter2-xyz' }),
    });
    expect(res.status).toBe(200);
    const bySession = await fetch(`${server.url}/api/v1/auth/userinfo`, {
      headers: { cookie, 'x-request-id': 'req-43' },
    });
    expect(bySession.status).toBe(200);

    const requestLines = records().filter((r) => r.msg === 'request');
    const of = (id: string) => requestLines.filter((r) => r.requestId === id);
    expect(of('req-login')).toHaveLength(1);
    expect(of('req-42')).toHaveLength(1);
    expect(of('req-42')[0]).toMatchObject({
      level: 30,
      method: 'POST',
      route: '/chatty/{id}',
      status: 200,
      tenantId: 'acme',
      userId: 'alice',
    });
    expect(typeof of('req-42')[0]?.durationMs).toBe('number');
    expect(of('req-43')[0]).toMatchObject({ route: '/auth/userinfo', status: 200, userId: 'alice' });

    // What the careless handler logged is censored by the redaction list.
    const careless = records().find((r) => r.msg === 'careless');
    expect(careless).toMatchObject({
      headers: { authorization: '[Redacted]', cookie: '[Redacted]' },
      secret: '[Redacted]',
      token: '[Redacted]',
    });

    const all = lines.join('\n');
    for (const forbidden of [token, token.split('.')[2] as string, sessionId, code, secret, 'hunter2-xyz']) {
      expect(all).not.toContain(forbidden);
    }
    // Neither the raw path nor the query string: only the route template.
    expect(all).not.toContain('item-77');
    expect(all).not.toContain('query-code-991');
  });

  it('logs an unmatched path without it, a 401 without a user, and a 500 at level error', async () => {
    await fetch(`${server.url}/api/v1/no/such/path-secret-123`, { headers: { 'x-request-id': 'req-404' } });
    await fetch(`${server.url}/api/v1/auth/userinfo`, {
      headers: { authorization: 'Bearer not-a-token-55', 'x-request-id': 'req-401' },
    });
    await fetch(`${server.url}/api/v1/chatty/fail`, { headers: { 'x-request-id': 'req-500' } });
    const line = (id: string) => records().find((r) => r.msg === 'request' && r.requestId === id);
    expect(line('req-404')).toMatchObject({ route: null, status: 404, error: 'NOT_FOUND', tenantId: null });
    expect(line('req-401')).toMatchObject({ route: '/auth/userinfo', status: 401, userId: null });
    expect(line('req-500')).toMatchObject({ level: 50, status: 500, error: 'internal_error' });
    // A 503 the handler chose (readiness) is no error of the kernel's.
    const s503 = await serve({
      logger: pinoLogger(pino({}, { write: (l: string) => lines.push(l) })),
      probes: { database: async () => false },
    });
    try {
      await fetch(`${s503.url}/api/v1/readyz`, { headers: { 'x-request-id': 'req-503' } });
    } finally {
      await s503.close();
    }
    expect(line('req-503')).toMatchObject({ level: 30, route: '/readyz', status: 503 });
    expect(line('req-503')).not.toHaveProperty('error');
    const all = lines.join('\n');
    expect(all).not.toContain('path-secret-123');
    expect(all).not.toContain('not-a-token-55');
  });

  it('requestLog: false keeps the request lines out of the logger', async () => {
    const quiet: string[] = [];
    const s = await serve({
      logger: pinoLogger(pino({}, { write: (l: string) => quiet.push(l) })),
      requestLog: false,
    });
    try {
      expect((await fetch(`${s.url}/api/v1/livez`)).status).toBe(200);
      expect(quiet.filter((l) => l.includes('"msg":"request"'))).toEqual([]);
    } finally {
      await s.close();
    }
  });
});

/** The value of one sample of the text exposition (undefined when absent). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const set = /\{(.*)\}/.exec(line)?.[1] ?? '';
    if (Object.entries(labels).every(([k, v]) => set.includes(`${k}="${v}"`)))
      return Number(line.split(' ').pop());
  }
  return undefined;
}

describe('Prometheus exposition', () => {
  const token = 'scraper-token-0123456789';
  let server: StartedServer & { gov: Governance };
  let prom: ReturnType<typeof prometheusMetrics>;
  beforeAll(async () => {
    prom = prometheusMetrics({ token, sessionsActive: async () => 3 });
    server = await serve({
      plugins: [prom, chatty],
      limits: { rateLimits: { admin: { points: 1, durationSeconds: 60 } } },
    });
  });
  afterAll(async () => server.close());
  const scrape = (authorization?: string) =>
    fetch(`${server.url}/api/v1/metrics/prometheus`, authorization ? { headers: { authorization } } : {});

  it('counts requests by route template, method and status, times them, and counts 429s by category', async () => {
    const alice = await idp.signIdToken(ALICE);
    expect((await fetch(`${server.url}/api/v1/status`)).status).toBe(200);
    expect((await fetch(`${server.url}/api/v1/status`)).status).toBe(200);
    expect((await fetch(`${server.url}/api/v1/nowhere/abc`)).status).toBe(404);
    const metrics = (auth: string) =>
      fetch(`${server.url}/api/v1/metrics`, { headers: { authorization: auth } });
    expect((await metrics(`Bearer ${alice}`)).status).toBe(200);
    expect((await metrics(`Bearer ${alice}`)).status).toBe(429);

    const res = await scrape(`Bearer ${token}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(
      sample(text, 'agentgov_http_requests_total', { route: '/status', method: 'GET', status: '200' }),
    ).toBe(2);
    expect(sample(text, 'agentgov_http_requests_total', { route: '(unmatched)', status: '404' })).toBe(1);
    expect(sample(text, 'agentgov_http_requests_total', { route: '/metrics', status: '429' })).toBe(1);
    expect(
      sample(text, 'agentgov_http_request_duration_seconds_count', { route: '/status', status: '200' }),
    ).toBe(2);
    expect(sample(text, 'agentgov_rate_limit_rejections_total', { category: 'admin' })).toBe(1);
    expect(sample(text, 'agentgov_sessions_active')).toBe(3);
    expect(text).not.toContain('/nowhere/abc');
    // The registry is the plugin's own: prom-client's global one stays empty.
    expect(prom.registry).toBeInstanceOf(Registry);
    expect(prom.registry).not.toBe(globalRegistry);
    expect(globalRegistry.getSingleMetric('agentgov_http_requests_total')).toBeUndefined();
  });

  it('refuses a missing or wrong scraper token with the spec error body (401)', async () => {
    for (const auth of [undefined, 'Bearer wrong-token-0123456789', `Basic ${token}`]) {
      const res = await scrape(auth);
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ error: 'authentication_required' });
    }
  });

  it('without a token: an enterprise_admin may scrape, an org_admin may not (403)', async () => {
    const s = await serve({ plugins: [prometheusMetrics()] });
    try {
      const get = async (who: typeof ALICE) =>
        fetch(`${s.url}/api/v1/metrics/prometheus`, {
          headers: { authorization: `Bearer ${await idp.signIdToken(who)}` },
        });
      const ok = await get(ALICE);
      expect(ok.status).toBe(200);
      expect(await ok.text()).toContain('# TYPE agentgov_http_requests_total counter');
      const refused = await get(OLIVER);
      expect(refused.status).toBe(403);
      expect(await refused.json()).toMatchObject({ error: 'forbidden' });
      expect((await fetch(`${s.url}/api/v1/metrics/prometheus`)).status).toBe(401);
    } finally {
      await s.close();
    }
  });

  it('refuses a scraper token shorter than 16 characters at construction', () => {
    expect(() => prometheusMetrics({ token: 'short' })).toThrow(/16 characters/);
  });

  it('documents the route in the OpenAPI document', () => {
    const paths = server.gov.openapi.paths as Record<string, unknown>;
    expect(paths['/api/v1/metrics/prometheus']).toBeDefined();
    expect(paths['/api/v1/livez']).toBeDefined();
    expect(paths['/api/v1/readyz']).toBeDefined();
  });
});

describe('OpenTelemetry tracing (in-memory exporter)', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  let server: StartedServer & { gov: Governance };
  beforeAll(async () => {
    const tracing = otelTracing({
      tracer: provider.getTracer('test'),
      propagator: new W3CTraceContextPropagator(),
    });
    server = await serve({ plugins: [tracing, chatty], onError: () => {} }); // the 500 below is expected
  });
  afterAll(async () => {
    await server.close();
    await provider.shutdown();
  });

  it('one SERVER span per request: route template, status, request id, the caller trace as parent', async () => {
    exporter.reset();
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parentId = '00f067aa0ba902b7';
    const token = await idp.signIdToken(ALICE);
    const res = await fetch(`${server.url}/api/v1/chatty/x-1`, {
      method: 'POST',
      headers: {
        traceparent: `00-${traceId}-${parentId}-01`,
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'x-request-id': 'trace-req-1',
      },
      body: '{}',
    });
    expect(res.status).toBe(200);
    const spans = exporter.getFinishedSpans();
    expect(spans).toHaveLength(1);
    const span = spans[0]!;
    expect(span.name).toBe('POST /chatty/{id}');
    expect(span.kind).toBe(1); // SpanKind.SERVER
    expect(span.spanContext().traceId).toBe(traceId);
    expect(span.parentSpanContext?.spanId).toBe(parentId);
    expect(span.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/chatty/{id}',
      'http.response.status_code': 200,
      'agentgov.request_id': 'trace-req-1',
      'agentgov.tenant_id': 'acme',
    });
    expect(JSON.stringify(span.attributes)).not.toContain(token);
  });

  it('marks a 5xx span as an error and keeps an unmatched path out of the name', async () => {
    exporter.reset();
    await fetch(`${server.url}/api/v1/chatty/fail`);
    await fetch(`${server.url}/api/v1/unknown/secret-path-9`);
    const [failed, unmatched] = exporter.getFinishedSpans();
    expect(failed?.name).toBe('GET /chatty/fail');
    expect(failed?.status.code).toBe(2); // SpanStatusCode.ERROR
    expect(failed?.attributes['error.type']).toBe('internal_error');
    expect(unmatched?.name).toBe('GET');
    expect(unmatched?.attributes['http.response.status_code']).toBe(404);
    expect(JSON.stringify(unmatched?.attributes)).not.toContain('secret-path-9');
  });
});

describe('liveness and readiness', () => {
  it('/livez and /readyz need no credentials and are never rate limited; /readyz follows the database', async () => {
    let databaseUp = true;
    const s = await serve({
      probes: { database: async () => databaseUp },
      limits: { rateLimits: { system_status: { points: 1, durationSeconds: 60 } } },
    });
    try {
      for (let i = 0; i < 3; i++) {
        const live = await fetch(`${s.url}/api/v1/livez`);
        expect(live.status).toBe(200);
        expect(await live.json()).toEqual({ status: 'alive' });
        expect(live.headers.get('ratelimit-limit')).toBeNull();
        const ready = await fetch(`${s.url}/api/v1/readyz`);
        expect(ready.status).toBe(200);
        expect(await ready.json()).toEqual({
          status: 'ready',
          components: { database: { status: 'healthy' } },
        });
      }
      databaseUp = false;
      const down = await fetch(`${s.url}/api/v1/readyz`);
      expect(down.status).toBe(503);
      expect(await down.json()).toEqual({
        status: 'not_ready',
        components: { database: { status: 'unhealthy' } },
      });
      expect((await fetch(`${s.url}/api/v1/livez`)).status).toBe(200);
      databaseUp = true;
      expect((await fetch(`${s.url}/api/v1/readyz`)).status).toBe(200);
    } finally {
      await s.close();
    }
  });
});

describe('Prometheus port wrappers', () => {
  it('observeDecisionEngine counts allow, deny and error and keeps the engine as it was', async () => {
    const prom = prometheusMetrics();
    let reachable = true;
    class SwitchEngine implements DecisionEngine {
      readonly name = 'switch';
      #calls = 0;
      get calls() {
        return this.#calls;
      }
      async decide(request: DecisionRequest): Promise<Result<Decision, DecisionError>> {
        this.#calls++;
        if (!reachable) return err(new PolicyEngineUnreachableError('away'));
        const allow = request.userId === 'alice';
        return ok({ allow, deny: !allow, reason: allow ? 'alice may' : 'only alice', constraints: {} });
      }
      async health() {
        return reachable;
      }
    }
    const inner = new SwitchEngine();
    const engine = prom.observeDecisionEngine(inner);
    const ask = (userId: string) =>
      engine.decide({
        tenantId: 'acme',
        userId,
        domain: 'features',
        input: { feature: 'briefings' },
      });
    expect((await ask('alice'))._unsafeUnwrap().allow).toBe(true);
    expect((await ask('bob'))._unsafeUnwrap().allow).toBe(false);
    reachable = false;
    expect((await ask('alice')).isErr()).toBe(true);
    // Private fields, getters and the other methods still reach the engine itself.
    expect(engine.name).toBe('switch');
    expect((engine as SwitchEngine).calls).toBe(3);
    expect(await engine.health()).toBe(false);
    const text = await prom.registry.metrics();
    for (const outcome of ['allow', 'deny', 'error'])
      expect(sample(text, 'agentgov_decisions_total', { domain: 'features', outcome })).toBe(1);
  });

  it('observeAuditStore times appends by result and records batch sizes', async () => {
    const prom = prometheusMetrics();
    const store = prom.observeAuditStore(new InMemoryAuditStore());
    const record = (seq: number, prevHash: string): AuditRecord =>
      ({
        entry: { id: `e${seq}`, tenantId: 'acme' },
        seq,
        prevHash,
        hash: `h${seq}`,
      }) as unknown as AuditRecord;
    await expect(
      store.append('acme', () => {
        throw new Error('build failed');
      }),
    ).rejects.toThrow('build failed');
    const text0 = await prom.registry.metrics();
    expect(sample(text0, 'agentgov_audit_append_duration_seconds_count', { result: 'error' })).toBe(1);
    const appended = await store.append('acme', (head) => [
      record((head?.seq ?? 0) + 1, head?.hash ?? '0'.repeat(64)),
      record((head?.seq ?? 0) + 2, 'h1'),
    ]);
    const text = await prom.registry.metrics();
    expect(appended).toHaveLength(2);
    expect(sample(text, 'agentgov_audit_append_duration_seconds_count', { result: 'ok' })).toBe(1);
    expect(sample(text, 'agentgov_audit_append_batch_size_count')).toBe(1);
    expect(sample(text, 'agentgov_audit_append_batch_size_sum')).toBe(2);
    // Reads go to the store itself.
    expect(await store.tenants()).toEqual(['acme']);
    expect((await store.head('acme'))?.seq).toBe(2);
  });
});
