/**
 * Fuzz: every body and query parser of the plugin answers a 4xx with the spec's error body (or a
 * 2xx when the random input happens to be valid), never a 5xx; random webhook bodies, signed or
 * not, never record a tracker write.
 */
import {
  InMemoryAuditSink,
  InMemoryBriefingStore,
  InMemoryClassificationStore,
  InMemoryOrgDirectory,
  InMemorySecretStore,
  InMemoryTaskStore,
  InMemoryWorkTrackingStore,
} from '@agentgov/core';
import type { Governance } from '@agentgov/gateway';
import { createTestGovernance, startTestIssuer, type TestIssuer } from '@agentgov/gateway/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workTrackingRoutes } from '../src/gateway/index';
import { staticIntegrations } from '../src/integrations';
import { signBody } from '../src/signature';
import { Rule7Engine } from './helpers';

const T = 'fz';
let idp: TestIssuer;
let gov: Governance;
let token: string;
const store = new InMemoryWorkTrackingStore();

beforeAll(async () => {
  idp = await startTestIssuer();
  const directory = new InMemoryOrgDirectory();
  const audit = new InMemoryAuditSink();
  const plugin = workTrackingRoutes({
    store,
    tasks: new InMemoryTaskStore(),
    briefings: new InMemoryBriefingStore(),
    classifications: new InMemoryClassificationStore(),
    secrets: new InMemorySecretStore({ hook: 'k' }),
    integrations: staticIntegrations({
      [T]: {
        codehost: { webhookSecretRef: 'hook' },
        tracker: { projectKeys: ['ENG'], webhookSecretRef: 'hook' },
      },
    }),
    engine: new Rule7Engine(),
    // Without a model, every valid reclassify body is 503 by design; with one, the parser is what is fuzzed.
    classificationModel: {
      name: 'fuzz-model',
      classify: async () => ({ level: 'confidential', reason: 'fuzz' }),
    },
    audit,
    directory,
    defaultTenant: T,
    outboxIntervalMs: 3_600_000,
  });
  gov = createTestGovernance(idp, {
    plugins: [plugin],
    directory,
    audit,
    limits: {
      rateLimits: {
        webhooks: { points: 1e9, durationSeconds: 60 },
        work_tools: { points: 1e9, durationSeconds: 60 },
        admin: { points: 1e9, durationSeconds: 60 },
      },
    },
  });
  token = await idp.signIdToken({ sub: 'ea', roles: ['enterprise_admin'], tenant_id: T, org_unit: 'o' });
});
afterAll(async () => {
  await gov?.close();
  await idp?.close();
});

async function notServerError(res: Response) {
  const text = await res.text();
  expect(res.status, text).toBeLessThan(500);
  if (res.status >= 400) {
    const body = JSON.parse(text);
    expect(typeof body.error).toBe('string');
    expect(typeof body.message).toBe('string');
  }
}

const jsonValue = fc.jsonValue({ maxDepth: 4 });
const fields = fc
  .record(
    {
      userId: fc.oneof(fc.constantFrom('ea', 'ghost', ''), jsonValue),
      date: fc.oneof(fc.constantFrom('2025-01-01', '2025-02-30', 'x'), jsonValue),
      items: fc.oneof(
        fc.array(
          fc.record(
            {
              system: fc.string(),
              id: fc.string(),
              userId: fc.constantFrom('ea', 'x'),
              title: fc.string(),
              deadline: fc.oneof(fc.string(), jsonValue),
            },
            { requiredKeys: [] },
          ),
          { maxLength: 3 },
        ),
        jsonValue,
      ),
      status: fc.oneof(fc.constantFrom('active', 'completed', 'purged'), jsonValue),
      channel: fc.oneof(fc.constantFrom('chat', 'fax'), jsonValue),
      hours: jsonValue,
      dataRef: fc.oneof(fc.string({ maxLength: 40 }), jsonValue),
      level: fc.oneof(fc.constantFrom('public', 'secret'), jsonValue),
      reason: jsonValue,
      connectorType: fc.oneof(fc.constantFrom('mail', 'fax'), jsonValue),
      content: jsonValue,
      action: fc.oneof(fc.constantFrom('closed', 'opened'), jsonValue),
      pull_request: jsonValue,
      repository: jsonValue,
      sender: jsonValue,
      ref: fc.oneof(fc.constantFrom('refs/heads/main', 'refs/tags/x'), jsonValue),
      commits: jsonValue,
      webhookEvent: fc.oneof(fc.constantFrom('jira:issue_updated'), jsonValue),
      issue: jsonValue,
    },
    { requiredKeys: [] },
  )
  .map((o) => JSON.stringify(o));
const bodyArb = fc.oneof(
  fields,
  jsonValue.map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 200 }),
);

describe('fuzz: work-tracking parsers answer 4xx/2xx, never 5xx', () => {
  const routes: [string, string][] = [
    ['POST', '/tools/standup_summary'],
    ['POST', '/tasks/discover'],
    ['POST', '/tasks/00000000-0000-4000-8000-000000000000/status'],
    ['POST', '/briefings'],
    ['POST', '/classifications'],
    ['POST', '/classifications/reclassify'],
    ['PUT', '/classifications/override'],
  ];
  for (const [method, path] of routes) {
    it(`${method} ${path}`, async () => {
      await fc.assert(
        fc.asyncProperty(bodyArb, async (body) => {
          const res = await gov.handle(
            new Request(`http://gw/api/v1${path}`, {
              method,
              headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
              body,
            }),
          );
          await notServerError(res);
        }),
        { numRuns: 120 },
      );
    });
  }

  it('GET query parsers', async () => {
    const q = fc.dictionary(
      fc.constantFrom('userId', 'status', 'level', 'dataRef', 'state', 'deliveryId'),
      fc.string({ maxLength: 30 }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/tasks', '/briefings/latest', '/classifications', '/work-tracking/writes'),
        q,
        async (path, query) => {
          const res = await gov.handle(
            new Request(`http://gw/api/v1${path}?${new URLSearchParams(query)}`, {
              headers: { authorization: `Bearer ${token}` },
            }),
          );
          await notServerError(res);
        },
      ),
      { numRuns: 150 },
    );
  });

  for (const source of ['codehost', 'tracker']) {
    it(`POST /webhooks/${source}: random bodies, signed or not, never 5xx and never a tracker write`, async () => {
      await fc.assert(
        fc.asyncProperty(
          bodyArb,
          fc.boolean(),
          fc.constantFrom('pull_request', 'push', 'ping', 'pull_request_review', 'x'),
          async (body, signed, event) => {
            const res = await gov.handle(
              new Request(`http://gw/api/v1/webhooks/${source}`, {
                method: 'POST',
                headers: {
                  'content-type': 'application/json',
                  'x-github-event': event,
                  ...(signed ? { 'x-hub-signature-256': signBody('k', body) } : {}),
                },
                body,
              }),
            );
            await notServerError(res);
            if (!signed) expect(res.status).toBeGreaterThanOrEqual(400);
          },
        ),
        { numRuns: 200 },
      );
      expect(await store.listWrites(T)).toEqual([]);
    });
  }
});

describe('webhook rate limit', () => {
  it('the webhooks category limits per source address: 429 with Retry-After past the limit', async () => {
    const limited = createTestGovernance(idp, {
      plugins: [
        workTrackingRoutes({
          store: new InMemoryWorkTrackingStore(),
          tasks: new InMemoryTaskStore(),
          briefings: new InMemoryBriefingStore(),
          classifications: new InMemoryClassificationStore(),
          secrets: new InMemorySecretStore({ hook: 'k' }),
          integrations: staticIntegrations({ [T]: { codehost: { webhookSecretRef: 'hook' } } }),
          engine: new Rule7Engine(),
          audit: new InMemoryAuditSink(),
          directory: new InMemoryOrgDirectory(),
          defaultTenant: T,
        }),
      ],
      limits: { rateLimits: { webhooks: { points: 2, durationSeconds: 60 } } },
    });
    try {
      const ping = (remoteAddress: string) =>
        limited.handle(
          new Request('http://gw/api/v1/webhooks/codehost', {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              'x-github-event': 'ping',
              'x-hub-signature-256': signBody('k', '{"zen":"x"}'),
            },
            body: '{"zen":"x"}',
          }),
          { remoteAddress },
        );
      expect((await ping('10.0.0.1')).status).toBe(200);
      expect((await ping('10.0.0.1')).status).toBe(200);
      const third = await ping('10.0.0.1');
      expect(third.status).toBe(429);
      expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await third.json()).error).toBe('rate_limit_exceeded');
      expect((await ping('10.0.0.2')).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
