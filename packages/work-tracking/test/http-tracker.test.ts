/** HttpTrackerClient against the loopback Jira-compatible server: faults, Retry-After, hangs, auth. */
import {
  InMemoryAuditSink,
  InMemoryBriefingStore,
  InMemoryClassificationStore,
  InMemoryConnectorStore,
  InMemorySecretStore,
  InMemoryTaskStore,
  InMemoryWorkTrackingStore,
  ok,
  TrackerRequestError,
} from '@agentgov/core';
import { makeConnector, makeTrackerWrite } from '@agentgov/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HttpTrackerClient, parseRetryAfter } from '../src/http-tracker';
import { connectorIntegrations, staticIntegrations } from '../src/integrations';
import { type LoopbackTracker, startLoopbackTracker } from '../src/testing/index';
import { createWorkTracking } from '../src/work-tracking';
import { manualTimeouts } from './helpers';

let server: LoopbackTracker;
let waits: number[];
const client = (over: Partial<ConstructorParameters<typeof HttpTrackerClient>[0]> = {}) =>
  new HttpTrackerClient({
    baseUrl: `${server.url}/`,
    auth: { type: 'bearer', token: 'tok' },
    sleep: async (ms) => {
      waits.push(ms);
    },
    ...over,
  });

beforeEach(async () => {
  server = await startLoopbackTracker({ token: 'tok' });
  server.tracker.addTicket('ENG-12');
  waits = [];
});
afterEach(async () => {
  await server.close();
});

async function failure(p: Promise<unknown>): Promise<TrackerRequestError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(TrackerRequestError);
  return e as TrackerRequestError;
}

describe('HttpTrackerClient', () => {
  it('sends the bearer token (basic auth too) and never puts it in errors', async () => {
    await client().addComment('ENG-12', 'hi');
    expect(server.requests.at(-1)).toEqual({
      method: 'POST',
      path: '/rest/api/2/issue/ENG-12/comment',
      authorization: 'Bearer tok',
    });
    const e = await failure(
      client({ auth: { type: 'basic', username: 'me@x', token: 'secret-token' } }).addComment('ENG-12', 'x'),
    );
    expect(e.status).toBe(401);
    expect(server.requests.at(-1)?.authorization).toBe(
      `Basic ${Buffer.from('me@x:secret-token').toString('base64')}`,
    );
    expect(JSON.stringify({ ...e, message: e.message })).not.toContain('secret-token');
    expect(e.request).toEqual({ method: 'POST', url: `${server.url}/rest/api/2/issue/ENG-12/comment` });
  });

  it('retries 5xx and 429 honouring Retry-After, then succeeds once', async () => {
    server.faults.push({ status: 503 }, { status: 429, retryAfter: '2' });
    await client({ backoffMs: 100 }).addComment('ENG-12', 'after two faults');
    expect(waits).toEqual([100, 2000]);
    expect(server.tracker.tickets.get('ENG-12')?.comments.map((c) => c.body)).toEqual(['after two faults']);
    expect(server.requests).toHaveLength(3);
  });

  it('gives up after the retries with a retryable error carrying the status and Retry-After', async () => {
    server.faults.push({ status: 502 }, { status: 500 }, { status: 429, retryAfter: '7' });
    const e = await failure(client().addComment('ENG-12', 'x'));
    expect(e).toMatchObject({ status: 429, retryable: true, retryAfterMs: 7000 });
    expect(server.tracker.tickets.get('ENG-12')?.comments).toEqual([]);
  });

  it('does not wait in-process for a Retry-After above the cap (the outbox reschedules)', async () => {
    server.faults.push({ status: 429, retryAfter: '3600' });
    const e = await failure(client({ maxRetryAfterMs: 30_000 }).addComment('ENG-12', 'x'));
    expect(e).toMatchObject({ status: 429, retryable: true, retryAfterMs: 3_600_000 });
    expect(waits).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it('does not retry 4xx other than 408/429', async () => {
    const e = await failure(client().addComment('NOPE-1', 'x'));
    expect(e).toMatchObject({ status: 404, retryable: false });
    expect(server.requests).toHaveLength(1);
  });

  it('times out a hanging tracker per attempt and retries; a hang on every attempt is a retryable timeout', async () => {
    // The attempt's timeout expires when the tracker has parked the request, not on a real clock:
    // the answered retry cannot time out on a busy machine.
    const timeouts = manualTimeouts();
    server.onHang = timeouts.expire;
    server.faults.push({ hang: true });
    await client({ timeoutMs: 200, timeoutSignal: timeouts.signal }).addComment('ENG-12', 'after a hang');
    expect(server.tracker.tickets.get('ENG-12')?.comments.map((c) => c.body)).toEqual(['after a hang']);
    expect(server.requests).toHaveLength(2);
    expect(waits).toEqual([250]);
    server.faults.push({ hang: true }, { hang: true });
    const e = await failure(
      client({ timeoutMs: 150, retries: 1, timeoutSignal: timeouts.signal }).addComment('ENG-12', 'never'),
    );
    expect(e).toMatchObject({ retryable: true, status: undefined });
    expect(e.message).toMatch(/within 150 ms/);
    expect(server.requests).toHaveLength(4);
  });

  it('the default per-attempt timeout is a real timer: a hang ends as a retryable timeout', async () => {
    // Only a hang is sent, so however slow the machine, the one outcome is this timeout.
    server.faults.push({ hang: true });
    const e = await failure(client({ timeoutMs: 50, retries: 0 }).addComment('ENG-12', 'never'));
    expect(e).toMatchObject({ retryable: true, status: undefined });
    expect(e.message).toMatch(/within 50 ms/);
  });

  it('an unreachable tracker is a retryable error', async () => {
    const url = server.url;
    await server.close();
    const e = await failure(new HttpTrackerClient({ baseUrl: url, retries: 0 }).addComment('ENG-12', 'x'));
    expect(e).toMatchObject({ retryable: true, status: undefined });
    server = await startLoopbackTracker();
  });

  it('the caller’s abort stops retries at once', async () => {
    server.faults.push({ hang: true });
    const ac = new AbortController();
    // Aborted while the tracker holds the request; no timeout or retry ends it instead.
    server.onHang = () => ac.abort(new Error('stop'));
    const p = client({ timeoutMs: 3_600_000 }).addComment('ENG-12', 'x', { signal: ac.signal });
    await expect(p).rejects.toThrow('stop');
    expect(server.requests).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it('parses Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('120')).toBe(120_000);
    expect(parseRetryAfter(new Date(10_000 + 5_000).toUTCString(), 10_000)).toBe(5_000);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(null)).toBeUndefined();
  });
});

describe('the default tracker client of createWorkTracking', () => {
  it('uses the tracker connector’s token: bearer, or Basic with config.username', async () => {
    const make = (username?: string) =>
      createWorkTracking({
        store: new InMemoryWorkTrackingStore(),
        tasks: new InMemoryTaskStore(),
        briefings: new InMemoryBriefingStore(),
        classifications: new InMemoryClassificationStore(),
        secrets: new InMemorySecretStore({ 'tracker-token': 'tok' }),
        integrations: staticIntegrations({
          acme: {
            tracker: { projectKeys: ['ENG'], baseUrl: server.url, ...(username ? { username } : {}) },
            trackerCredentialsRef: 'tracker-token',
          },
        }),
        engine: {
          name: 'x',
          health: async () => true,
          decide: async () => ok({ allow: true, deny: false, reason: 'x', constraints: {} }),
        },
        audit: new InMemoryAuditSink(),
      });
    for (const [username, expected] of [
      [undefined, 'Bearer tok'],
      ['me@acme.test', `Basic ${Buffer.from('me@acme.test:tok').toString('base64')}`],
    ] as const) {
      const wt = make(username);
      const w = makeTrackerWrite({ tenantId: 'acme', ticketId: 'ENG-12' });
      await wt.store.recordDelivery({
        delivery: {
          tenantId: 'acme',
          source: 'codehost',
          deliveryId: w.id,
          event: 'x',
          receivedAt: w.createdAt,
        },
        activities: [],
        writes: [w],
      });
      const report = await wt.outbox.drain();
      expect([username, report.delivered, server.requests.at(-1)?.authorization]).toEqual([
        username,
        username ? 0 : 1,
        expected,
      ]);
      // (the loopback server accepts only `Bearer tok`: the Basic request reached it and was refused)
    }
  });

  // Found by a black-box probe: a reference the tenant cannot resolve (another tenant's, or not in
  // the store) was treated as "no credentials" and the writes were sent anonymously (401).
  it('a credentials reference that does not resolve sends nothing: the write waits with the reason', async () => {
    const wt = createWorkTracking({
      store: new InMemoryWorkTrackingStore(),
      tasks: new InMemoryTaskStore(),
      briefings: new InMemoryBriefingStore(),
      classifications: new InMemoryClassificationStore(),
      secrets: new InMemorySecretStore({ 'tracker-token': 'tok' }),
      integrations: staticIntegrations({
        globex: {
          tracker: { projectKeys: ['ENG'], baseUrl: server.url },
          trackerCredentialsRef: 'acme-tracker-token',
        },
      }),
      engine: {
        name: 'x',
        health: async () => true,
        decide: async () => ok({ allow: true, deny: false, reason: 'x', constraints: {} }),
      },
      audit: new InMemoryAuditSink(),
    });
    const writes = [
      makeTrackerWrite({ tenantId: 'globex', ticketId: 'ENG-12' }),
      makeTrackerWrite({
        tenantId: 'globex',
        ticketId: 'ENG-12',
        tool: 'tracker_transition',
        transitionName: 'Done',
      }),
    ];
    await wt.store.recordDelivery({
      delivery: {
        tenantId: 'globex',
        source: 'codehost',
        deliveryId: 'd-1',
        event: 'x',
        receivedAt: writes[0]!.createdAt,
      },
      activities: [],
      writes,
    });
    expect(await wt.outbox.drain()).toEqual({ delivered: 0, retrying: 2, failed: 0 });
    expect(server.requests).toEqual([]);
    for (const w of await wt.store.listWrites('globex')) {
      expect(w.state).toBe('pending');
      expect(w.lastError).toContain("credentials secret reference 'acme-tracker-token' does not resolve");
    }
  });

  it('a tracker connector whose stored config cannot be read sends nothing: the write waits with the reason', async () => {
    const connectors = new InMemoryConnectorStore();
    const c = makeConnector({
      tenantId: 'acme',
      type: 'tracker',
      credentialsRef: 'tracker-token',
      config: { baseUrl: server.url, projectKeys: 'ENG' },
    });
    await connectors.insert(c);
    const wt = createWorkTracking({
      store: new InMemoryWorkTrackingStore(),
      tasks: new InMemoryTaskStore(),
      briefings: new InMemoryBriefingStore(),
      classifications: new InMemoryClassificationStore(),
      secrets: new InMemorySecretStore({ 'tracker-token': 'tok' }),
      integrations: connectorIntegrations(connectors),
      engine: {
        name: 'x',
        health: async () => true,
        decide: async () => ok({ allow: true, deny: false, reason: 'x', constraints: {} }),
      },
      audit: new InMemoryAuditSink(),
    });
    const w = makeTrackerWrite({ tenantId: 'acme', ticketId: 'ENG-12' });
    await wt.store.recordDelivery({
      delivery: {
        tenantId: 'acme',
        source: 'codehost',
        deliveryId: 'd-1',
        event: 'x',
        receivedAt: w.createdAt,
      },
      activities: [],
      writes: [w],
    });
    expect(await wt.outbox.drain()).toEqual({ delivered: 0, retrying: 1, failed: 0 });
    expect(server.requests).toEqual([]);
    expect((await wt.store.getWrite('acme', w.id))?.lastError).toContain(
      `tracker connector ${c.id} has a config work tracking cannot read (projectKeys:`,
    );
  });
});
