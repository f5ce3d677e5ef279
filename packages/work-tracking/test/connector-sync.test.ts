/**
 * Scheduled pulls against loopback servers that speak the Jira search and GitHub pull-request APIs
 * (real node:http on port 0): items become tasks through TaskService discovery and correlation,
 * lastSyncAt is set, failures back off exponentially up to a cap, `error` after three in a row,
 * and the next success brings the connector back. Time is a ManualClock: no real waits.
 */
import {
  type Connector,
  InMemoryConnectorStore,
  InMemorySecretStore,
  InMemoryTaskStore,
  InMemoryWorkTrackingStore,
  ManualClock,
} from '@agentgov/core';
import { makeConnector } from '@agentgov/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConnectorSync } from '../src/sync/connector-sync';
import { TaskService } from '../src/tasks';
import {
  type LoopbackCodehost,
  type LoopbackTracker,
  startLoopbackCodehost,
  startLoopbackTracker,
} from '../src/testing/index';

const T = 'acme';
let tracker: LoopbackTracker;
let codehost: LoopbackCodehost;
let clock: ManualClock;
let connectors: InMemoryConnectorStore;
let taskStore: InMemoryTaskStore;
let counters: InMemoryWorkTrackingStore;
let secrets: InMemorySecretStore;
let sync: ConnectorSync;

beforeEach(async () => {
  tracker = await startLoopbackTracker({ token: 'jira-token' });
  codehost = await startLoopbackCodehost({ token: 'gh-token' });
  clock = new ManualClock('2026-11-26T08:00:00.000Z');
  connectors = new InMemoryConnectorStore();
  taskStore = new InMemoryTaskStore();
  counters = new InMemoryWorkTrackingStore();
  secrets = new InMemorySecretStore({ 'jira-api': 'jira-token', 'gh-api': 'gh-token' });
  const tasks = new TaskService({ store: taskStore, counters, clock });
  sync = new ConnectorSync({ connectors, secrets, tasks, clock, backoffMs: 30_000, maxBackoffMs: 600_000 });
});
afterEach(async () => {
  await tracker.close();
  await codehost.close();
});

async function addTracker(config: Record<string, unknown> = {}): Promise<Connector> {
  const c = makeConnector({
    tenantId: T,
    type: 'tracker',
    credentialsRef: 'jira-api',
    createdAt: '2026-11-26T07:00:00.000Z',
    config: { baseUrl: tracker.url, users: { 'acc-alice': 'alice' }, syncIntervalSeconds: 600, ...config },
  });
  await connectors.insert(c);
  return c;
}
async function addCodehost(config: Record<string, unknown> = {}): Promise<Connector> {
  const c = makeConnector({
    tenantId: T,
    type: 'codehost',
    defaultClassification: 'public',
    credentialsRef: 'gh-api',
    createdAt: '2026-11-26T07:00:01.000Z',
    config: { apiBaseUrl: codehost.url, users: { octocat: 'alice' }, ...config },
  });
  await connectors.insert(c);
  return c;
}

describe('ConnectorSync: tracker (Jira search)', () => {
  it('pulls the unresolved issues assigned to each mapped account into tasks and sets lastSyncAt', async () => {
    tracker.issues.push(
      { key: 'ENG-12', assignee: 'acc-alice', summary: 'Login broken', duedate: '2026-11-28' },
      { key: 'ENG-13', assignee: 'acc-alice', summary: 'Done already', resolved: true },
      { key: 'OPS-3', assignee: 'acc-bob', summary: 'Not mapped' },
    );
    const c = await addTracker();
    const out = await sync.tick();
    expect(out).toEqual([
      { tenantId: T, connectorId: c.id, type: 'tracker', outcome: 'synced', items: 1, status: 'active' },
    ]);
    expect(tracker.searches).toEqual([
      'assignee = "acc-alice" AND resolution = Unresolved ORDER BY updated DESC',
    ]);
    expect(tracker.requests.at(-1)?.authorization).toBe('Bearer jira-token');
    const tasks = await taskStore.list(T, { userId: 'alice' });
    expect(tasks).toHaveLength(1);
    expect(tasks[0]).toMatchObject({
      title: 'ENG-12 Login broken',
      status: 'discovered',
      deadline: '2026-11-28T23:59:59.000Z',
      classification: 'internal',
      sources: [{ system: 'tracker', id: 'ENG-12', url: `${tracker.url}/browse/ENG-12` }],
    });
    expect((await counters.counters(T)).tasksDiscovered).toBe(1);
    expect((await connectors.get(T, c.id))?.lastSyncAt).toBe('2026-11-26T08:00:00.000Z');

    // Not due again before its interval (600 s); then pulled again without a duplicate task.
    clock.advance(599_000);
    expect(await sync.tick()).toEqual([]);
    clock.advance(1_000);
    tracker.issues.push({ key: 'ENG-14', assignee: 'acc-alice', summary: 'New one' });
    expect((await sync.tick()).map((o) => o.items)).toEqual([2]);
    expect((await taskStore.list(T, { userId: 'alice' })).map((t) => t.title).sort()).toEqual([
      'ENG-12 Login broken',
      'ENG-14 New one',
    ]);
    expect((await connectors.get(T, c.id))?.lastSyncAt).toBe('2026-11-26T08:10:00.000Z');
  });

  it('reads every page of a long result', async () => {
    for (let i = 1; i <= 120; i++)
      tracker.issues.push({ key: `ENG-${i}`, assignee: 'acc-alice', summary: `Issue number ${i}` });
    await addTracker();
    expect((await sync.tick())[0]?.items).toBe(120);
    expect(tracker.searches).toHaveLength(3);
  });

  it('quotes the account in JQL (no injection through a mapped account name)', async () => {
    tracker.issues.push({ key: 'ENG-1', assignee: 'x" OR assignee = "acc-alice', summary: 'Odd account' });
    tracker.issues.push({ key: 'ENG-2', assignee: 'acc-alice', summary: 'Alice only' });
    await addTracker({ users: { 'x" OR assignee = "acc-alice': 'mallory' } });
    await sync.tick();
    expect(tracker.searches[0]).toBe(
      'assignee = "x\\" OR assignee = \\"acc-alice" AND resolution = Unresolved ORDER BY updated DESC',
    );
    expect((await taskStore.list(T, { userId: 'mallory' })).map((t) => t.title)).toEqual([
      'ENG-1 Odd account',
    ]);
    expect(await taskStore.list(T, { userId: 'alice' })).toEqual([]);
  });
});

describe('ConnectorSync: code host (pull requests awaiting review)', () => {
  it('GitHub search: review requests become tasks; a PR naming a pulled ticket correlates with its task', async () => {
    tracker.issues.push({ key: 'ENG-12', assignee: 'acc-alice', summary: 'Login broken' });
    codehost.pulls.push(
      { repo: 'acme/web', number: 7, title: 'ENG-12 fix the login form', reviewers: ['octocat'] },
      {
        repo: 'acme/api',
        number: 9,
        title: 'Speed up search',
        body: 'Faster',
        reviewers: ['octocat', 'hubot'],
      },
      { repo: 'acme/api', number: 10, title: 'Someone else', reviewers: ['hubot'] },
    );
    await addTracker();
    const ch = await addCodehost();
    const out = await sync.tick();
    expect(out.map((o) => [o.type, o.outcome, o.items])).toEqual([
      ['tracker', 'synced', 1],
      ['codehost', 'synced', 2],
    ]);
    expect(codehost.requests[0]?.authorization).toBe('Bearer gh-token');
    expect(new URL(codehost.requests[0]?.url ?? '', codehost.url).searchParams.get('q')).toBe(
      'is:pr is:open review-requested:octocat',
    );
    const tasks = await taskStore.list(T, { userId: 'alice' });
    const ticket = tasks.find((t) => t.sources.some((s) => s.id === 'ENG-12'));
    // Merged as a duplicate (shared ticket reference: score 0.9): one task, two sources.
    expect(ticket?.sources.map((s) => `${s.system}:${s.id}`)).toEqual([
      'tracker:ENG-12',
      'codehost:acme/web#7',
    ]);
    expect(tasks.map((t) => t.title).sort()).toEqual([
      'ENG-12 Login broken',
      'Review acme/api#9: Speed up search',
    ]);
    expect(tasks.find((t) => t.title.startsWith('Review'))?.classification).toBe('public');
    expect((await connectors.get(T, ch.id))?.lastSyncAt).toBe('2026-11-26T08:00:00.000Z');
  });

  it('repository listing (GitHub and Gitea): pull requests whose requested_reviewers include a mapped login', async () => {
    codehost.pulls.push(
      { repo: 'acme/web', number: 1, title: 'One', reviewers: ['octocat'] },
      { repo: 'acme/web', number: 2, title: 'Two', reviewers: ['hubot'] },
      { repo: 'acme/other', number: 3, title: 'Not listed', reviewers: ['octocat'] },
    );
    await addCodehost({ repositories: ['acme/web'] });
    expect((await sync.tick())[0]?.items).toBe(1);
    expect(codehost.requests.map((r) => new URL(r.url, codehost.url).pathname)).toEqual([
      '/repos/acme/web/pulls',
    ]);
    expect((await taskStore.list(T)).map((t) => t.sources[0]?.id)).toEqual(['acme/web#1']);
  });
});

describe('ConnectorSync: failures, backoff, error status, recovery', () => {
  it('backs off exponentially with a cap, turns error after 3 failures, and recovers on the next success', async () => {
    tracker.issues.push({ key: 'ENG-12', assignee: 'acc-alice', summary: 'Login broken' });
    const c = await addTracker();
    for (let i = 0; i < 7; i++) tracker.faults.push({ status: 502 });
    const waits: number[] = [];
    const statuses: string[] = [];
    for (let i = 0; i < 7; i++) {
      const [o] = await sync.tick();
      expect(o?.outcome).toBe('failed');
      const stored = (await connectors.get(T, c.id)) as Connector;
      statuses.push(stored.status);
      // Find the next due time: nothing is due one ms before it, the pull is due at it.
      let wait = 1_000;
      for (;;) {
        clock.advance(1_000);
        const claimed = await connectors.claimSync(clock.now().toISOString(), clock.now().toISOString(), 1, [
          'tracker',
        ]);
        if (claimed.length > 0) break;
        wait += 1_000;
      }
      waits.push(wait);
    }
    expect(waits).toEqual([30_000, 60_000, 120_000, 240_000, 480_000, 600_000, 600_000]);
    expect(statuses).toEqual(['active', 'active', 'error', 'error', 'error', 'error', 'error']);
    const failed = (await connectors.get(T, c.id)) as Connector;
    expect(failed.errorDetails).toMatch(
      /^tracker pull failed: GET http:\/\/127\.0\.0\.1:\d+\/rest\/api\/2\/search answered 502/,
    );
    expect(failed.lastSyncAt).toBeNull();
    expect(await taskStore.list(T)).toEqual([]);

    const [ok] = await sync.tick();
    expect(ok).toMatchObject({ outcome: 'synced', status: 'active', items: 1 });
    const back = (await connectors.get(T, c.id)) as Connector;
    expect(back).toMatchObject({
      status: 'active',
      errorDetails: null,
      lastSyncAt: clock.now().toISOString(),
    });
    // The failure count starts again from zero: one more failure is a 30 s backoff, still active.
    clock.advance(600_000);
    tracker.faults.push({ status: 500 });
    await sync.tick();
    expect((await connectors.get(T, c.id))?.status).toBe('active');
  });

  it('a credentials reference that does not resolve is a failure that says so', async () => {
    const c = await addTracker();
    await connectors.update({ ...c, credentialsRef: 'missing-ref' });
    const [o] = await sync.tick();
    expect(o?.error).toBe(
      "tracker pull failed: its credentials secret reference 'missing-ref' does not resolve for this tenant (not in the secret store, or another tenant's)",
    );
    expect(tracker.requests).toEqual([]);
  });

  it('an answer of the wrong shape or a wrong token is a failure, never a task', async () => {
    await addTracker();
    await secrets.set('jira-api', 'wrong');
    const [o] = await sync.tick();
    expect(o?.error).toMatch(/answered 401/);
    expect(await taskStore.list(T)).toEqual([]);
  });

  it('leaves disabled connectors and connectors without pull settings alone', async () => {
    const off = await addTracker();
    await connectors.update({ ...off, status: 'disabled' });
    const plain = makeConnector({ tenantId: T, type: 'codehost', config: { webhookSecretRef: 'wh' } });
    await connectors.insert(plain);
    expect(await sync.tick()).toEqual([
      { tenantId: T, connectorId: plain.id, type: 'codehost', outcome: 'skipped' },
    ]);
    expect((await connectors.get(T, plain.id))?.lastSyncAt).toBeNull();
    expect(tracker.requests).toEqual([]);
  });

  it('a connector disabled while its pull runs stays disabled', async () => {
    tracker.issues.push({ key: 'ENG-12', assignee: 'acc-alice', summary: 'Login broken' });
    const c = await addTracker();
    const tasks = new TaskService({ store: taskStore, counters, clock });
    const racing = new ConnectorSync({
      connectors,
      secrets,
      clock,
      tasks: {
        discoverFrom: async (...args) => {
          await connectors.update({ ...((await connectors.get(T, c.id)) as Connector), status: 'disabled' });
          return tasks.discoverFrom(...args);
        },
      },
    });
    await racing.tick();
    expect((await connectors.get(T, c.id))?.status).toBe('disabled');
  });
});

// Found in review: pulls ran one after another with no overall deadline, so one hanging tracker
// held up every other tenant's pulls, and a pull of many pages could outlive its lease (another
// process would then pull the same connector).
describe('ConnectorSync: a slow tracker holds up no one, and no pull outlives its lease', () => {
  it('pulls run side by side; a pull past its deadline (pages included) is stopped and is a failure', async () => {
    const other = await startLoopbackTracker({ token: 'jira-token' });
    try {
      other.issues.push({ key: 'OPS-1', assignee: 'acc-bob', summary: 'Other tenant' });
      // The deadlines (and per-request timeouts) are signals the test fires: no real waits.
      const signals = new Map<number, AbortController[]>();
      const timeoutSignal = (ms: number) => {
        const c = new AbortController();
        signals.set(ms, [...(signals.get(ms) ?? []), c]);
        return c.signal;
      };
      const tasks = new TaskService({ store: taskStore, counters, clock });
      // The quick pull's end, as the store sees it: an event, not a count of polls (CI may be slow).
      let quickFinished: () => void = () => {};
      const quickDone = new Promise<void>((resolve) => {
        quickFinished = resolve;
      });
      const watched = {
        claimSync: connectors.claimSync.bind(connectors),
        finishSync: async (...args: Parameters<InMemoryConnectorStore['finishSync']>) => {
          const done = await connectors.finishSync(...args);
          if (args[1] === quick.id) quickFinished();
          return done;
        },
      };
      const s = new ConnectorSync({
        connectors: watched,
        secrets,
        tasks,
        clock,
        timeoutSignal,
        leaseMs: 100_000,
      });
      tracker.faults.push({ hang: true });
      const slow = await addTracker();
      const quick = makeConnector({
        tenantId: 'globex',
        type: 'tracker',
        credentialsRef: 'jira-api',
        createdAt: '2026-11-26T07:30:00.000Z',
        config: { baseUrl: other.url, users: { 'acc-bob': 'bob' } },
      });
      await connectors.insert(quick);
      let quickDoneWhileSlowHung = false;
      // Pulled one after the other, the quick pull would wait behind the hanging one forever (the
      // test then times out): it must end while the slow one hangs.
      tracker.onHang = () => {
        void quickDone.then(async () => {
          quickDoneWhileSlowHung = (await taskStore.list('globex', { userId: 'bob' })).length > 0;
          // The pulls' deadlines (80% of the 100 s lease) pass: only the slow one is still running.
          for (const c of signals.get(80_000) ?? []) c.abort();
        });
      };
      const out = await s.tick();
      expect(quickDoneWhileSlowHung).toBe(true);
      expect(out.map((o) => [o.connectorId, o.outcome])).toEqual([
        [slow.id, 'failed'],
        [quick.id, 'synced'],
      ]);
      expect(out[0]?.error).toBe(
        'tracker pull failed: the pull took longer than 80 s (pages included); it was stopped',
      );
    } finally {
      await other.close();
    }
  });

  it('a pull whose lease is nearly over when a worker is free is not started (the claim lapses, a later round takes it)', async () => {
    const aborts: AbortController[] = [];
    const timeoutSignal = () => {
      const c = new AbortController();
      aborts.push(c);
      return c.signal;
    };
    const tasks = new TaskService({ store: taskStore, counters, clock });
    const s = new ConnectorSync({
      connectors,
      secrets,
      tasks,
      clock,
      timeoutSignal,
      leaseMs: 100_000,
      concurrency: 1,
    });
    tracker.faults.push({ hang: true });
    const slow = await addTracker();
    const late = await addCodehost();
    tracker.onHang = () => {
      clock.advance(89_500); // the first pull held its worker for most of the lease
      for (const c of aborts) c.abort();
    };
    const out = await s.tick();
    expect(out.map((o) => [o.connectorId, o.outcome])).toEqual([
      [slow.id, 'failed'],
      [late.id, 'skipped'],
    ]);
    expect(codehost.requests).toEqual([]);
  });
});
