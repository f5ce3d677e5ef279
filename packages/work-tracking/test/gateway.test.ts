/**
 * The plugin behind the real kernel on a real HTTP server (port 0), with the real policy plugin
 * and its built-in decision engine, a loopback Jira-compatible tracker, and real octokit payloads.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  InMemoryAuditSink,
  InMemoryBriefingStore,
  InMemoryClassificationStore,
  InMemoryOrgDirectory,
  InMemoryPolicyStore,
  InMemorySecretStore,
  InMemoryTaskStore,
  InMemoryWorkTrackingStore,
} from '@agentgov/core';
import { type Governance, sendFetchResponse, toFetchRequest } from '@agentgov/gateway';
import { createTestGovernance, startTestIssuer, type TestIssuer } from '@agentgov/gateway/testing';
import { policyRoutes } from '@agentgov/policy/gateway';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type WorkTrackingPlugin, workTrackingRoutes } from '../src/gateway/index';
import { staticIntegrations } from '../src/integrations';
import { signBody } from '../src/signature';
import { type LoopbackTracker, startLoopbackTracker } from '../src/testing/index';
import { example, jiraIssueUpdated, mergedPullRequest } from './payloads';

const T = 'acme';
let idp: TestIssuer;
let tracker: LoopbackTracker;
let gov: Governance;
let plugin: WorkTrackingPlugin;
let server: http.Server;
let base: string;
const audit = new InMemoryAuditSink();
const store = new InMemoryWorkTrackingStore();
const directory = InMemoryOrgDirectory.fromDefinitions({
  tenant: T,
  orgs: { eng: { teams: { platform: ['alice', 'bob'] } }, sales: { teams: { emea: ['carol'] } } },
});
const tokens: Record<string, string> = {};

beforeAll(async () => {
  idp = await startTestIssuer();
  tracker = await startLoopbackTracker({ token: 'tracker-token' });
  tracker.tracker.addTicket('ENG-12');
  const secrets = new InMemorySecretStore({
    'codehost-webhook': 'gh-secret',
    'tracker-api': 'tracker-token',
    'tracker-hook': 'tracker-hook-secret',
  });
  const policy = policyRoutes({ store: new InMemoryPolicyStore(), directory, audit });
  plugin = workTrackingRoutes({
    store,
    tasks: new InMemoryTaskStore(),
    briefings: new InMemoryBriefingStore(),
    classifications: new InMemoryClassificationStore(),
    secrets,
    integrations: staticIntegrations({
      [T]: {
        codehost: { webhookSecretRef: 'codehost-webhook', users: { Codertocat: 'alice' } },
        tracker: {
          projectKeys: ['ENG'],
          baseUrl: tracker.url,
          defaultMergeTransition: 'Done',
          webhookSecretRef: 'tracker-hook',
          users: { 'acc-alice': 'alice' },
        },
        trackerCredentialsRef: 'tracker-api',
      },
    }),
    engine: policy.engine,
    audit,
    directory,
    defaultTenant: T,
    webhookBodyLimit: 64 * 1024,
    outboxIntervalMs: 60_000,
  });
  gov = createTestGovernance(idp, { plugins: [policy, plugin], directory, audit, secrets });
  await gov.start();
  server = http.createServer((req, res) => {
    gov
      .handle(toFetchRequest(req, res), { remoteAddress: req.socket.remoteAddress ?? '' })
      .then((r) => sendFetchResponse(res, r));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
  const account = (sub: string, roles: string[], org_unit: string, team: string) =>
    idp.signIdToken({ sub, roles, tenant_id: T, org_unit, team });
  tokens.alice = await account('alice', ['user'], 'eng', 'platform');
  tokens.bob = await account('bob', ['user'], 'eng', 'platform');
  tokens.lead = await account('lead', ['team_lead'], 'eng', 'platform');
  tokens.orgAdmin = await account('oa', ['org_admin'], 'sales', 'emea');
  tokens.admin = await account('root', ['enterprise_admin'], 'eng', 'platform');
  // The integrations policy of examples/policies/enterprise-integrations.yaml (spec rule 7), through the policy routes.
  const content = [
    'actions:',
    '  tracker_update: { allowed: true, target_systems: [tracker], sources: [work-tracking] }',
    '  tracker_transition: { allowed: true, target_systems: [tracker], triggers: [pr_merged] }',
  ].join('\n');
  const created = await fetch(`${base}/policies`, {
    method: 'POST',
    headers: { authorization: `Bearer ${tokens.admin}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      scope: 'enterprise',
      scopeId: T,
      domain: 'integrations',
      name: 'tracker writes',
      version: '1.0.0',
      content,
      changeReason: 'tracker writes',
    }),
  });
  expect(created.status).toBe(201);
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise<void>((r) => server?.close(() => r()));
  await gov?.close();
  await tracker?.close();
  await idp?.close();
});

const hook = (event: string, body: string, headers: Record<string, string> = {}, path = 'codehost') =>
  fetch(`${base}/webhooks/${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-github-event': event,
      'x-github-delivery': crypto.randomUUID(),
      'x-hub-signature-256': signBody('gh-secret', body),
      ...headers,
    },
    body,
  });
const api = (path: string, token: string, body?: unknown, method = body === undefined ? 'GET' : 'POST') =>
  fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

describe('work-tracking plugin over HTTP', () => {
  it('a signed merged PR: 200, comment and transition arrive at the tracker, audited; redelivery changes nothing', async () => {
    const body = JSON.stringify(mergedPullRequest());
    const delivery = crypto.randomUUID();
    const res = await hook('pull_request', body, { 'x-github-delivery': delivery });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBeTruthy();
    const answer = await res.json();
    expect(answer).toMatchObject({ status: 'processed', action: 'pull_request.merged', tickets: ['ENG-12'] });
    // The webhook kicked the outbox before answering; a drain joins that run and returns once every due
    // write is attempted (no polling against a deadline a slow machine could miss).
    expect(await plugin.services.outbox.drain()).toMatchObject({ retrying: 0, failed: 0 });
    const ticket = tracker.tracker.tickets.get('ENG-12');
    expect(ticket?.status).toBe('Done');
    expect(ticket?.comments.map((c) => c.body)).toEqual([
      expect.stringContaining('Codertocat/Hello-World#2'),
    ]);
    expect(tracker.requests.every((r) => r.authorization === 'Bearer tracker-token')).toBe(true);
    const audited = audit.entries.filter(
      (x) => x.actionType === 'tool_invocation' && x.actionDetail.deliveryId === delivery,
    );
    expect(
      audited.map((e) => [
        e.actionDetail.tool,
        e.actionDetail.ticketId,
        e.actionDetail.outcome,
        e.policyResult,
      ]),
    ).toEqual([
      ['tracker_update', 'ENG-12', 'success', 'allow'],
      ['tracker_transition', 'ENG-12', 'success', 'allow'],
    ]);
    const again = await hook('pull_request', body, { 'x-github-delivery': delivery });
    expect(await again.json()).toMatchObject({ status: 'duplicate' });
    expect(ticket?.comments).toHaveLength(1);
    const writes = await (
      await api(`/work-tracking/writes?deliveryId=${delivery}`, tokens.admin as string)
    ).json();
    expect(writes.writes.map((w: { state: string }) => w.state)).toEqual(['delivered', 'delivered']);
  });

  it('bad input gets a clear 4xx with the spec’s error body and changes nothing', async () => {
    const before = {
      writes: (await store.listWrites(T)).length,
      audit: audit.entries.length,
      comments: tracker.tracker.tickets.get('ENG-12')?.comments.length,
    };
    const body = JSON.stringify(mergedPullRequest());
    const cases: [string, Promise<Response>, number, string][] = [
      [
        'unsigned',
        fetch(`${base}/webhooks/codehost`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-github-event': 'pull_request' },
          body,
        }),
        401,
        'invalid_webhook_secret',
      ],
      [
        'wrongly signed',
        hook('pull_request', body, { 'x-hub-signature-256': signBody('nope', body) }),
        401,
        'invalid_webhook_secret',
      ],
      [
        'oversized (plugin limit)',
        hook(
          'pull_request',
          JSON.stringify({
            ...mergedPullRequest(),
            pad: Array.from({ length: 7 }, () => 'x'.repeat(10_000)),
          }),
        ),
        413,
        'payload_too_large',
      ],
      [
        'oversized (kernel limit)',
        hook('pull_request', JSON.stringify({ pad: 'x'.repeat(1_100_000) })),
        413,
        'payload_too_large',
      ],
      ['non-JSON', hook('pull_request', 'payload=%7B%7D'), 400, 'invalid_type'],
      // The bytes are checked before they are parsed: unsigned or mislabelled input is never parsed.
      [
        'non-JSON, unsigned',
        fetch(`${base}/webhooks/codehost`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-github-event': 'pull_request' },
          body: '{bad',
        }),
        401,
        'invalid_webhook_secret',
      ],
      [
        'non-JSON, wrongly signed',
        hook('pull_request', '{bad', { 'x-hub-signature-256': signBody('nope', '{bad') }),
        401,
        'invalid_webhook_secret',
      ],
      [
        'non-JSON, signed, form-encoded',
        hook('pull_request', 'payload=%7B%7D', { 'content-type': 'application/x-www-form-urlencoded' }),
        415,
        'unsupported_media_type',
      ],
      ['a JSON array', hook('pull_request', '[1,2]'), 400, 'invalid_type'],
      ['empty body', hook('pull_request', ''), 400, 'missing_type'],
      [
        'form-encoded content type',
        hook('pull_request', body, { 'content-type': 'application/x-www-form-urlencoded' }),
        415,
        'unsupported_media_type',
      ],
      ['no event header', hook('', body), 400, 'missing_type'],
      [
        'payload missing fields',
        hook('pull_request', JSON.stringify({ action: 'closed' })),
        400,
        'invalid_type',
      ],
    ];
    for (const [name, p, status, code] of cases) {
      const r = await p;
      const b = await r.json();
      expect([name, r.status, b.error]).toEqual([name, status, code]);
      expect(typeof b.message).toBe('string');
    }
    const unknown = await hook('deployment', JSON.stringify(example('pull_request', 'opened')));
    expect([unknown.status, (await unknown.json()).status]).toEqual([200, 'ignored']);
    expect((await store.listWrites(T)).length).toBe(before.writes);
    expect(audit.entries.length).toBe(before.audit);
    expect(tracker.tracker.tickets.get('ENG-12')?.comments.length).toBe(before.comments);
  });

  it('tracker webhook (Jira-style, X-Hub-Signature: sha256=…): issue updated recorded; unsigned → 401', async () => {
    const body = JSON.stringify(jiraIssueUpdated('ENG-12', 'acc-alice'));
    const send = (headers: Record<string, string>) =>
      fetch(`${base}/webhooks/tracker`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
      });
    const ok = await send({
      'x-hub-signature': signBody('tracker-hook-secret', body),
      'x-atlassian-webhook-identifier': 'jira-1',
    });
    expect([ok.status, (await ok.json()).status]).toEqual([200, 'processed']);
    const again = await send({
      'x-hub-signature': signBody('tracker-hook-secret', body),
      'x-atlassian-webhook-identifier': 'jira-1',
    });
    expect((await again.json()).status).toBe('duplicate');
    const unsigned = await send({});
    expect([unsigned.status, (await unsigned.json()).error]).toEqual([401, 'invalid_webhook_secret']);
    const [activity] = await store
      .activities(T, { userId: 'alice', from: '2019-05-15T00:00:00Z', to: '2019-05-16T00:00:00Z' })
      .then((a) => a.filter((x) => x.kind === 'ticket_updated'));
    expect(activity).toMatchObject({ subject: 'ENG-12', deliveryId: 'jira-1' });
  });

  it('ping → 200 pong; a tenant with no webhook secret → 401', async () => {
    const ping = await hook('ping', JSON.stringify(example('ping')));
    expect([ping.status, (await ping.json()).status]).toEqual([200, 'pong']);
    const other = await fetch(`${base}/webhooks/codehost?tenant=other`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'ping',
        'x-hub-signature-256': signBody('gh-secret', '{}'),
      },
      body: '{}',
    });
    expect(other.status).toBe(401);
  });

  it('standup: self, admins in scope; unknown user and bad date → 400; others → 403', async () => {
    const ok = await api('/tools/standup_summary', tokens.alice as string, {
      userId: 'alice',
      date: '2019-05-15',
    });
    expect(ok.status).toBe(200);
    const s = await ok.json();
    expect(s.totals.pullRequestsMerged).toBe(1);
    expect(s.summaryText).toContain('Merged: Codertocat/Hello-World#2');
    expect(
      (await api('/tools/standup_summary', tokens.bob as string, { userId: 'alice', date: '2019-05-15' }))
        .status,
    ).toBe(403);
    expect(
      (await api('/tools/standup_summary', tokens.lead as string, { userId: 'alice', date: '2019-05-15' }))
        .status,
    ).toBe(200);
    expect(
      (
        await api('/tools/standup_summary', tokens.orgAdmin as string, {
          userId: 'alice',
          date: '2019-05-15',
        })
      ).status,
    ).toBe(403);
    expect(
      (await api('/tools/standup_summary', tokens.admin as string, { userId: 'carol', date: '2019-05-15' }))
        .status,
    ).toBe(200);
    for (const [body, code] of [
      [{ userId: 'ghost', date: '2019-05-15' }, 'invalid_type'],
      [{ userId: 'alice', date: '2019-02-30' }, 'invalid_type'],
      [{ userId: 'alice', date: '15/05/2019' }, 'invalid_type'],
      [{ userId: 'alice' }, 'missing_type'],
    ] as const) {
      const r = await api('/tools/standup_summary', tokens.admin as string, body);
      const b = await r.json();
      expect([r.status, b.error, typeof b.message]).toEqual([400, code, 'string']);
    }
  });

  it('tasks, briefings, classification routes and /metrics counters', async () => {
    const d = await api('/tasks/discover', tokens.alice as string, {
      items: [
        {
          system: 'mail',
          id: 'm1',
          userId: 'alice',
          title: 'Prepare the quarterly budget review',
          deadline: '2030-01-01T00:00:00Z',
        },
        { system: 'mail', id: 'm2', userId: 'alice', title: 'Prepare the quarterly budget review' },
      ],
    });
    expect(d.status).toBe(200);
    expect((await d.json()).outcomes.map((o: { outcome: string }) => o.outcome)).toEqual([
      'created',
      'merged',
    ]);
    expect(
      (
        await api('/tasks/discover', tokens.alice as string, {
          items: [{ system: 'mail', id: 'x', userId: 'bob', title: 't' }],
        })
      ).status,
    ).toBe(403);
    const list = await (await api('/tasks', tokens.alice as string)).json();
    expect(list.total).toBe(1);
    const b = await api('/briefings', tokens.alice as string, { channel: 'chat' });
    expect(b.status).toBe(201);
    const briefing = await b.json();
    expect(briefing).toMatchObject({ userId: 'alice', deliveredAt: null, tasks: [{ rank: 1 }] });
    const delivered = await (
      await api(`/briefings/${briefing.id}/deliver`, tokens.alice as string, {})
    ).json();
    expect(delivered.deliveredAt).not.toBeNull();
    expect(
      (await api('/classifications', tokens.admin as string, { dataRef: 'mail:m1', connectorType: 'mail' }))
        .status,
    ).toBe(200);
    const o = await api(
      '/classifications/override',
      tokens.admin as string,
      { dataRef: 'mail:m1', level: 'restricted', reason: 'legal hold' },
      'PUT',
    );
    expect(await o.json()).toMatchObject({
      level: 'restricted',
      assignedBy: 'admin_override',
      overrideBy: 'root',
    });
    expect(
      (
        await api(
          '/classifications/override',
          tokens.alice as string,
          { dataRef: 'mail:m1', level: 'public', reason: 'x' },
          'PUT',
        )
      ).status,
    ).toBe(403);
    const metrics = await (await api('/metrics', tokens.admin as string)).json();
    expect(metrics.tasksDiscovered).toBe(1);
    expect(metrics.modelCalls).toBe(0);
  });

  it('is described in the OpenAPI document', () => {
    const paths = Object.keys(gov.openapi.paths);
    for (const p of [
      '/api/v1/webhooks/codehost',
      '/api/v1/webhooks/tracker',
      '/api/v1/tools/standup_summary',
      '/api/v1/tasks',
      '/api/v1/briefings',
      '/api/v1/classifications/override',
    ])
      expect(paths).toContain(p);
    const op = gov.openapi.paths['/api/v1/webhooks/codehost']?.post as Record<string, unknown>;
    expect(op.security).toEqual([]);
    expect(op['x-rate-limit']).toMatchObject({ category: 'webhooks', points: 600, durationSeconds: 60 });
    expect(Object.keys(op.responses as object)).toEqual(expect.arrayContaining(['200', '401', '403', '413']));
    expect(JSON.stringify(gov.openapi)).toContain('summaryText');
    expect(plugin.name).toBe('work-tracking');
  });
});
