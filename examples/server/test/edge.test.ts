/** biome-ignore-all lint/suspicious/noExplicitAny: JSON bodies of a black-box HTTP test are read without schemas */
/**
 * The HTTP edge of the reference server on embedded PGlite (a real PostgreSQL engine: what a store
 * refuses shows here, unlike in memory), with an outside OIDC issuer (the gateway's test issuer,
 * which signs whatever claims a test asks for):
 * - `from`/`to` of GET /audit and GET /audit/export: bounds are checked after conversion to UTC;
 *   no date string ever yields a 5xx;
 * - date-times of request bodies (a task's deadline, a standup date) take the same parser;
 * - token claims with NUL or lone surrogates (`sub`, `tenant_id`) are a 401, not a 503;
 * - while the server starts, GET /status answers the spec's shape with 503.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestIssuer, type TestIssuer } from '@agentgov/gateway/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config';
import { createServerLogger, type StartupPhase, startupResponder } from '../src/request-log';
import { type RunningServer, startServer } from '../src/server';

let idp: TestIssuer;
let server: RunningServer;
let api: string;
let dir: string;
let admin: string;

beforeAll(async () => {
  idp = await startTestIssuer();
  dir = await mkdtemp(join(tmpdir(), 'agentgov-edge-'));
  server = await startServer(
    loadConfig({
      AGENTGOV_DATA_DIR: dir,
      PORT: '0',
      OIDC_ISSUER: idp.issuer,
      OIDC_CLIENT_ID: idp.clientId,
      OIDC_CLIENT_SECRET: idp.clientSecret,
    }),
    { env: {} },
  );
  api = `${server.url}/api/v1`;
  admin = await idp.signIdToken({
    sub: 'ea-1',
    email: 'ea@acme.test',
    roles: ['enterprise_admin'],
    tenant_id: 'acme',
    org_unit: 'hq',
  });
  // An entry or two in the log, so that a query has something to read.
  const r = await fetch(`${api}/policies`, {
    method: 'POST',
    headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      scope: 'enterprise',
      scopeId: 'acme',
      domain: 'features',
      name: 'edge',
      version: '1.0.0',
      changeReason: 'edge test',
      content: '{}',
    }),
  });
  expect(r.status).toBe(201);
}, 60_000);
afterAll(async () => {
  await server?.close();
  await idp?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function get(path: string, token = admin): Promise<{ status: number; body: any; text: string }> {
  const res = await fetch(`${api}${path}`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, body, text };
}

describe('audit date filters (GET /audit, GET /audit/export)', () => {
  it('date-times of request bodies take the same parser: 400 naming the field, never a 503 or a rewritten date', async () => {
    const h = { authorization: `Bearer ${admin}`, 'content-type': 'application/json' };
    const cases = [
      [
        '/tasks/discover',
        'items.0.deadline',
        {
          items: [
            { system: 'jira', id: 'X-1', userId: 'ea-1', title: 't', deadline: '9999-12-31T23:59:59-14:00' },
          ],
        },
      ],
      // Year 0 in UTC: PostgreSQL kept it as 1 BC and read it back as 0001-12-31.
      [
        '/tasks/discover',
        'items.0.deadline',
        {
          items: [
            { system: 'jira', id: 'X-2', userId: 'ea-1', title: 't', deadline: '0001-01-01T00:00:00+14:00' },
          ],
        },
      ],
      // The last day's bounds in a time zone west of UTC fall in the year 10000: was a 503.
      ['/tools/standup_summary', 'date', { userId: 'ea-1', date: '9999-12-31' }],
    ] as const;
    for (const [path, field, body] of cases) {
      const r = await fetch(`${api}${path}`, { method: 'POST', headers: h, body: JSON.stringify(body) });
      const answer = (await r.json()) as { error: string; detail: { field: string }[] };
      expect([path, r.status, answer.error]).toEqual([path, 400, 'invalid_type']);
      expect(answer.detail.map((d) => d.field)).toEqual([field]);
    }
    expect((await get('/tasks')).body).toEqual({ tasks: [], total: 0 });
    const inRange = await fetch(`${api}/tasks/discover`, {
      method: 'POST',
      headers: h,
      body: JSON.stringify({
        items: [
          { system: 'jira', id: 'X-3', userId: 'ea-1', title: 't', deadline: '2026-12-31T23:00:00-14:00' },
        ],
      }),
    });
    expect(inRange.status).toBe(200);
    const tasks = (await get('/tasks')).body.tasks as { deadline: string }[];
    expect(tasks.map((t) => t.deadline)).toEqual(['2027-01-01T13:00:00.000Z']);
  });

  it('an offset that carries a bound out of 0001–9999 in UTC is a 400 naming it, never a 503 or a cut export', async () => {
    for (const route of ['/audit', '/audit/export', '/audit/export?format=csv&x=1']) {
      const sep = route.includes('?') ? '&' : '?';
      for (const [param, value] of [
        ['to', '9999-12-31T23:59:59-14:00'],
        ['from', '0001-01-01T00:00:00+14:00'],
      ] as const) {
        const r = await get(`${route}${sep}${param}=${encodeURIComponent(value)}`);
        expect([route, param, r.status]).toEqual([route, param, 400]);
        expect(r.body).toMatchObject({ error: 'invalid_type' });
        expect(typeof r.body.message).toBe('string');
        expect(JSON.stringify(r.body)).toContain(param);
      }
    }
    // The widest range written inside the bounds reads the whole log.
    const all = await get(`/audit?from=${encodeURIComponent('0001-01-01T00:00:00-14:00')}&to=9999-12-31`);
    expect(all.status).toBe(200);
    expect(all.body.total).toBeGreaterThan(0);
    const exported = await get(
      `/audit/export?from=0001-01-01&to=${encodeURIComponent('9999-12-31T23:59:59+14:00')}`,
    );
    expect(exported.status).toBe(200);
    expect(exported.body.total).toBe(exported.body.entries.length);
  });

  it('property: no from/to string ever yields a 5xx, on the list or the export', async () => {
    const pad = (n: number, w = 2) => String(n).padStart(w, '0');
    const dateTime = fc
      .record({
        y: fc.oneof(fc.constantFrom(0, 1, 9999, 10000), fc.integer({ min: 0, max: 9999 })),
        mo: fc.integer({ min: 0, max: 13 }),
        d: fc.integer({ min: 0, max: 32 }),
        h: fc.integer({ min: 0, max: 24 }),
        off: fc.oneof(fc.constant('Z'), fc.integer({ min: -14 * 60, max: 14 * 60 })),
      })
      .map(({ y, mo, d, h, off }) => {
        const zone =
          off === 'Z'
            ? 'Z'
            : `${off < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(off) / 60))}:${pad(Math.abs(off) % 60)}`;
        return `${pad(y, 4)}-${pad(mo)}-${pad(d)}T${pad(h)}:59:59${zone}`;
      });
    let runs = 0;
    // Near the edges of the four-digit years, where an offset carries the instant across them.
    const edge = fc
      .record({
        end: fc.boolean(),
        h: fc.integer({ min: 0, max: 23 }),
        off: fc.integer({ min: -14 * 60, max: 14 * 60 }),
      })
      .map(({ end, h, off }) => {
        const zone = `${off < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(off) / 60))}:${pad(Math.abs(off) % 60)}`;
        return `${end ? '9999-12-31' : '0001-01-01'}T${pad(h)}:30:00${zone}`;
      });
    const dateLike = fc.oneof(
      edge,
      dateTime,
      dateTime.map((v) => v.slice(0, 10)),
      fc.string({ maxLength: 30 }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.record({ from: dateLike, to: dateLike }, { requiredKeys: [] }),
        fc.constantFrom('/audit', '/audit/export', '/audit/export?format=csv'),
        async (range, route) => {
          const q = new URLSearchParams(route.includes('?') ? route.slice(route.indexOf('?') + 1) : '');
          for (const [k, v] of Object.entries(range)) q.set(k, v);
          // A tenant per run: the spec's per-tenant limits (export: 10 a minute) stay out of the way.
          runs += 1;
          const token = await idp.signIdToken({
            sub: 'ea-fz',
            roles: ['enterprise_admin'],
            tenant_id: `fz-${runs}`,
          });
          const r = await get(`${route.split('?')[0]}?${q}`, token);
          expect(r.status, `${route} ${JSON.stringify(range)} → ${r.text.slice(0, 200)}`).toBeLessThan(500);
          if (r.status >= 400)
            expect(['from', 'to'].some((p) => JSON.stringify(r.body).includes(p))).toBe(true);
          // Never an export that ends with the marker of an incomplete one.
          else expect(r.text.includes('incomplete'), r.text.slice(-200)).toBe(false);
        },
      ),
      { numRuns: 150 },
    );
  }, 120_000);
});

describe('token claims with NUL or lone surrogates', () => {
  it('are a 401 invalid_token at authentication — not a 503 from the database, not a 400 naming an audit field', async () => {
    for (const claims of [
      { sub: 'ea\u0000x', tenant_id: 'acme' },
      { sub: 'ea\ud800', tenant_id: 'acme' },
      { sub: 'ea-2', tenant_id: 'acme\u0000' },
      { sub: 'ea-2', tenant_id: '\udc00acme' },
    ]) {
      const token = await idp.signIdToken({ ...claims, roles: ['enterprise_admin'] });
      for (const path of ['/audit', '/policies', '/auth/userinfo']) {
        const r = await get(path, token);
        expect([JSON.stringify(claims), path, r.status, r.body?.error]).toEqual([
          JSON.stringify(claims),
          path,
          401,
          'invalid_token',
        ]);
      }
    }
  });
});

describe('GET /status while the server starts', () => {
  it('answers the spec shape with 503 (components not ready: unhealthy), the same shape as once it serves', async () => {
    let phase: StartupPhase = 'migrating';
    const starting = http.createServer(
      startupResponder(
        () => phase,
        createServerLogger(() => {}),
      ),
    );
    await new Promise<void>((resolve) => starting.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(starting.address() as AddressInfo).port}/api/v1`;
    try {
      const shapeOf = (body: any) => ({
        top: Object.keys(body).sort(),
        components: Object.keys(body.components).sort(),
        statuses: Object.entries(body.components)
          .filter(([k]) => k !== 'connectors')
          .map(([k, v]: [string, any]) => [k, typeof v.status]),
        connectors: typeof body.components.connectors,
      });
      const served = await get('/status', '');
      expect(served.status).toBe(200);

      const migrating = await fetch(`${base}/status`, { headers: { 'x-request-id': 'boot-1' } });
      expect(migrating.status).toBe(503);
      expect(migrating.headers.get('x-request-id')).toBe('boot-1');
      const body = (await migrating.json()) as any;
      expect(body).toEqual({
        status: 'degraded',
        components: {
          gateway: { status: 'unhealthy' },
          policyEngine: { status: 'unhealthy' },
          workTracking: { status: 'unhealthy' },
          database: { status: 'unhealthy' },
          connectors: {},
        },
        timestamp: expect.any(String),
      });
      expect(Number.isNaN(Date.parse(body.timestamp))).toBe(false);
      expect(shapeOf(body)).toEqual(shapeOf(served.body));
      // No OPA is configured: no `opa` component, starting or serving.
      expect(Object.keys(served.body.components)).not.toContain('opa');

      phase = 'starting';
      const assembling = (await (await fetch(`${base}/status`)).json()) as any;
      expect(assembling.status).toBe('degraded');
      expect(assembling.components.database).toEqual({ status: 'healthy' });
      expect(assembling.components.gateway).toEqual({ status: 'unhealthy' });
      // Every other answer while starting carries a request id too.
      const other = await fetch(`${base}/policies`);
      expect(other.status).toBe(503);
      expect(other.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    } finally {
      await new Promise<void>((resolve) => starting.close(() => resolve()));
    }
  });
});
