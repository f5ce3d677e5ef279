/** biome-ignore-all lint/suspicious/noExplicitAny: JSON bodies of the API are read without schemas */
/**
 * Connectors that do something, end to end behind the real kernel: a tracker connector registered
 * with POST /connectors is pulled by the plugin's scheduler from a loopback Jira-compatible server
 * (real node:http, port 0); failures back off and put it in `error`, `/status` turns degraded (503)
 * and back to healthy on recovery; PATCH rotates its webhook secret with a window in which both
 * secrets verify. The clock is a ManualClock and the scheduler's rounds are run by the test.
 */
import {
  InMemoryAuditSink,
  InMemoryBriefingStore,
  InMemoryClassificationStore,
  InMemoryOrgDirectory,
  InMemoryPolicyStore,
  InMemoryScheduledRunStore,
  InMemorySecretStore,
  InMemoryTaskStore,
  InMemoryWorkTrackingStore,
  ManualClock,
} from '@agentgov/core';
import { createMemoryStores, type Governance } from '@agentgov/gateway';
import { createTestGovernance, startTestIssuer, type TestIssuer } from '@agentgov/gateway/testing';
import { policyRoutes } from '@agentgov/policy/gateway';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type WorkTrackingPlugin, workTrackingRoutes } from '../src/gateway/index';
import { connectorIntegrations } from '../src/integrations';
import { signBody } from '../src/signature';
import { type LoopbackTracker, startLoopbackTracker } from '../src/testing/index';
import { jiraIssueUpdated } from './payloads';

const T = 'acme';
let idp: TestIssuer;
let tracker: LoopbackTracker;
let gov: Governance;
let plugin: WorkTrackingPlugin;
let admin: string;
let globexAdmin: string;
let attacker: LoopbackTracker;
const clock = new ManualClock('2026-11-26T09:00:00.000Z');
const tasks = new InMemoryTaskStore();

beforeAll(async () => {
  idp = await startTestIssuer();
  admin = await idp.signIdToken({ sub: 'ea', roles: ['enterprise_admin'], tenant_id: T, org_unit: 'eng' });
  globexAdmin = await idp.signIdToken({
    sub: 'ga',
    roles: ['enterprise_admin'],
    tenant_id: 'globex',
    org_unit: 'hq',
  });
  tracker = await startLoopbackTracker({ token: 'jira-token' });
  attacker = await startLoopbackTracker();
  tracker.issues.push({ key: 'ENG-12', assignee: 'acc-alice', summary: 'Login broken' });
  const secrets = new InMemorySecretStore({
    'tracker-api': 'jira-token',
    'wh-1': 'old-secret',
    'wh-2': 'new-secret',
  });
  const stores = createMemoryStores();
  const directory = new InMemoryOrgDirectory();
  const audit = new InMemoryAuditSink(clock);
  const policy = policyRoutes({ store: new InMemoryPolicyStore(), directory, audit, clock });
  plugin = workTrackingRoutes({
    store: new InMemoryWorkTrackingStore(),
    tasks,
    briefings: new InMemoryBriefingStore(),
    classifications: new InMemoryClassificationStore(),
    secrets,
    integrations: connectorIntegrations(stores.connectors),
    connectors: stores.connectors,
    secretRefs: stores.connectors,
    engine: policy.engine,
    audit,
    directory,
    defaultTenant: T,
    clock,
    outboxIntervalMs: 600_000,
    schedule: {
      connectors: stores.connectors,
      runs: new InMemoryScheduledRunStore(),
      tenants: async () => [T, 'globex'],
      briefings: false,
      // The test runs the rounds; the timers never fire on their own.
      timers: { setTimeout: () => 0, clearTimeout: () => {} },
      sync: { backoffMs: 30_000, maxBackoffMs: 300_000 },
    },
  });
  gov = createTestGovernance(idp, { plugins: [policy, plugin], directory, audit, secrets, stores, clock });
  await gov.start();
});
afterAll(async () => {
  await gov.close();
  await tracker.close();
  await attacker.close();
  await idp.close();
});

const api = async (
  path: string,
  init: { method?: string; body?: unknown; auth?: boolean; token?: string } = {},
) => {
  const res = await gov.handle(
    new Request(`http://gw/api/v1${path}`, {
      method: init.method ?? 'GET',
      headers: {
        ...(init.auth === false ? {} : { authorization: `Bearer ${init.token ?? admin}` }),
        'content-type': 'application/json',
      },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    }),
  );
  return { status: res.status, body: (await res.json()) as any };
};
/** POST /connectors of a tracker connector pulled every minute, using acme's credentials reference. */
const trackerConnector = (name: string, baseUrl: string, webhookSecretRef: string) => ({
  type: 'tracker',
  credentials_secret_ref: 'tracker-api',
  config: {
    name,
    baseUrl,
    projectKeys: ['ENG'],
    users: { 'acc-alice': 'alice' },
    webhookSecretRef,
    syncIntervalSeconds: 60,
  },
});
/** A tracker webhook signed with `secret` (an issue update, as of the clock). */
const trackerHook = (secret: string, delivery: string, tenant?: string) => {
  const body = JSON.stringify(jiraIssueUpdated('ENG-12', 'acc-alice', clock.now().getTime()));
  return gov.handle(
    new Request(`http://gw/api/v1/webhooks/tracker${tenant ? `?tenant=${tenant}` : ''}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-hub-signature': signBody(secret, body),
        'x-atlassian-webhook-identifier': delivery,
      },
      body,
    }),
  );
};
const round = async (advanceMs: number) => {
  clock.advance(advanceMs);
  await plugin.scheduler?.tick();
};

describe('scheduled pulls behind the kernel', () => {
  let id: string;
  it('a registered tracker connector is pulled into tasks; lastSyncAt is set; /status healthy', async () => {
    const created = await api('/connectors', {
      method: 'POST',
      body: trackerConnector('jira', tracker.url, 'wh-1'),
    });
    expect(created.status).toBe(201);
    id = created.body.id;
    await round(0);
    expect((await tasks.list(T, { userId: 'alice' })).map((t) => t.title)).toEqual(['ENG-12 Login broken']);
    const listed = await api('/connectors');
    expect(listed.body.connectors[0]).toMatchObject({
      id,
      status: 'active',
      lastSyncAt: '2026-11-26T09:00:00.000Z',
      errorDetails: null,
    });
    const st = await api('/status');
    expect([st.status, st.body.status, st.body.components.connectors]).toEqual([
      200,
      'healthy',
      { jira: { status: 'healthy' } },
    ]);
  });

  it('failing pulls back off, turn the connector to error, /status is degraded 503; the next success heals it', async () => {
    tracker.faults.push({ status: 502 }, { status: 502 }, { status: 502 });
    const searches = () => tracker.requests.filter((r) => r.path === '/rest/api/2/search').length;
    const before = searches();
    await round(60_000); // due: fails (1)
    await round(29_000); // backoff 30 s not over: no request
    expect(searches()).toBe(before + 1);
    await round(1_000); // fails (2)
    expect((await api('/status')).status).toBe(200); // still active after two failures
    await round(60_000); // fails (3) → error
    expect(searches()).toBe(before + 3);
    const connector = (await api('/connectors')).body.connectors[0];
    expect(connector.status).toBe('error');
    expect(connector.errorDetails).toMatch(/^tracker pull failed: GET .*\/rest\/api\/2\/search answered 502/);
    expect(connector.lastSyncAt).toBe('2026-11-26T09:00:00.000Z');
    const degraded = await api('/status');
    expect(degraded.status).toBe(503);
    expect(degraded.body.status).toBe('degraded');
    expect(degraded.body.components.connectors.jira).toMatchObject({
      status: 'unhealthy',
      lastFailure: { reason: connector.errorDetails },
    });
    for (const name of ['gateway', 'database', 'policyEngine', 'workTracking'])
      expect(degraded.body.components[name], name).toEqual({ status: 'healthy' });

    await round(120_000); // backoff 120 s over: succeeds
    const healed = (await api('/connectors')).body.connectors[0];
    expect(healed).toMatchObject({
      status: 'active',
      errorDetails: null,
      lastSyncAt: clock.now().toISOString(),
    });
    const st = await api('/status');
    expect([st.status, st.body.status, st.body.components.connectors.jira.status]).toEqual([
      200,
      'healthy',
      'healthy',
    ]);
  });

  it('PATCH rotates the webhook secret: old and new verify during the window, only the new one after it', async () => {
    let n = 0;
    const send = async (secret: string) => (await trackerHook(secret, `rot-${++n}`)).status;
    expect(await send('old-secret')).toBe(200);
    expect(await send('new-secret')).toBe(401);
    const rotated = await api(`/connectors/${id}`, {
      method: 'PATCH',
      body: { webhook_secret_ref: 'wh-2', rotation_window_seconds: 600 },
    });
    expect(rotated.status).toBe(200);
    expect(await send('new-secret')).toBe(200);
    expect(await send('old-secret')).toBe(200);
    clock.advance(600_000);
    expect(await send('old-secret')).toBe(401);
    expect(await send('new-secret')).toBe(200);
  });

  it('a PATCH of the config or credentials makes the connector due at once, not after the remaining backoff', async () => {
    tracker.faults.push({ status: 503 }, { status: 503 }, { status: 503 });
    await round(3_600_000);
    await round(30_000);
    await round(60_000);
    expect((await api('/status')).status).toBe(503);
    // The next try would be 120 s away; the admin fixes something now.
    const patched = await api(`/connectors/${id}`, {
      method: 'PATCH',
      body: { config: { syncIntervalSeconds: 120 } },
    });
    expect(patched.status).toBe(200);
    await round(1_000);
    const healed = (await api('/connectors')).body.connectors[0];
    expect(healed).toMatchObject({
      status: 'active',
      errorDetails: null,
      lastSyncAt: clock.now().toISOString(),
    });
    expect((await api('/status')).status).toBe(200);
  });

  // Found in review: the secret store is one namespace, so another tenant's admin naming acme's
  // references had their connector send acme's tracker token to a URL of their choosing.
  it('another tenant naming acme’s references gets nothing: no token reaches its URL, its webhooks are refused', async () => {
    const theirs = await api('/connectors', {
      method: 'POST',
      token: globexAdmin,
      body: trackerConnector('stolen', attacker.url, 'wh-2'),
    });
    expect(theirs.status).toBe(201);
    await round(60_000);
    await round(60_000);
    // Its credentials do not resolve: the pull stops before any request, token or none.
    expect(attacker.requests.filter((r) => r.authorization !== undefined)).toEqual([]);
    const stolen = (await api('/connectors', { token: globexAdmin })).body.connectors[0];
    expect(stolen.lastSyncAt).toBeNull();
    expect(stolen.errorDetails ?? '').not.toContain('jira-token');
    const hook = await trackerHook('new-secret', 'globex-1', 'globex');
    expect(hook.status).toBe(401);
    const st = await api('/status', { token: globexAdmin });
    expect(st.body.components.connectors.stolen).toMatchObject({
      status: 'unhealthy',
      lastFailure: { reason: expect.stringContaining("or another tenant's") },
    });
  });

  it('close stops the scheduler', async () => {
    const requests = tracker.requests.length;
    await plugin.close?.();
    await round(3_600_000);
    expect(tracker.requests.length).toBe(requests);
  });
});
