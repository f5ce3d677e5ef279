import { expect } from 'vitest';
import { newId } from '../ids';
import {
  defineConformanceSuite,
  expectRejects,
  STRING_255,
  shuffled,
  UNICODE_SAMPLES,
} from '../testing/conformance';
import { isoAt, makeConnector } from '../testing/fixtures';
import type { ConnectorStore } from './port';
import type { Connector } from './schema';

const A = 'tenant-a';
const B = 'tenant-b';

type ConnectorFilter = Parameters<ConnectorStore['list']>[1];

function byCreatedThenId(a: Connector, b: Connector): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

async function seed(store: ConnectorStore): Promise<Connector[]> {
  const specs: Partial<Connector>[] = [
    { type: 'mail', status: 'active', createdAt: isoAt(0) },
    { type: 'tracker', status: 'active', createdAt: isoAt(1) },
    { type: 'tracker', status: 'disabled', createdAt: isoAt(1) },
    { type: 'codehost', status: 'error', errorDetails: 'token expired', createdAt: isoAt(1) },
    { type: 'drive', status: 'active', createdAt: isoAt(2) },
    { type: 'mail', status: 'disabled', createdAt: isoAt(3) },
  ];
  const mine = specs.map((s) => makeConnector({ tenantId: A, ...s }));
  for (const c of shuffled(mine)) await store.insert(c);
  await store.insert(makeConnector({ tenantId: B, type: 'mail' }));
  return mine.sort(byCreatedThenId);
}

const cases = {
  'insert/get: every field round-trips (nullables, nested config, unicode, 255 chars)': async (
    store: ConnectorStore,
  ) => {
    const rich = makeConnector({
      tenantId: A,
      type: 'codehost',
      userId: STRING_255,
      permissions: 'admin',
      defaultClassification: 'public',
      status: 'error',
      credentialsRef: STRING_255,
      lastSyncAt: '2025-06-07T08:09:10.011Z',
      errorDetails: UNICODE_SAMPLES.join('\n'),
      config: {
        baseUrl: 'https://code.example.com',
        projects: ['ENG', 'OPS', '東京'],
        webhookSecretRef: 'codehost-webhook',
        nested: { retries: 3, ratio: 0.5, enabled: false, none: null, deep: [{ a: [1, 2] }] },
        'ключ 🔑': 'значение',
      },
      createdAt: '2025-06-01T00:00:00.001Z',
    });
    const plain = makeConnector({ tenantId: A });
    expect(plain.userId).toBeNull();
    await store.insert(rich);
    await store.insert(plain);
    expect(await store.get(A, rich.id)).toEqual(rich);
    expect(await store.get(A, plain.id)).toEqual(plain);
    expect(await store.get(A, newId())).toBeUndefined();
  },
  'insert: a duplicate id throws and keeps the original': async (store: ConnectorStore) => {
    const c = makeConnector({ tenantId: A });
    await store.insert(c);
    await expectRejects(store.insert({ ...c, credentialsRef: 'other' }));
    expect(await store.get(A, c.id)).toEqual(c);
    expect(await store.list(A)).toHaveLength(1);
  },
  'update: replaces and returns true; false when absent': async (store: ConnectorStore) => {
    const c = makeConnector({ tenantId: A });
    await store.insert(c);
    const disabled: Connector = { ...c, status: 'disabled', lastSyncAt: isoAt(9), config: { x: 1 } };
    expect(await store.update(disabled)).toBe(true);
    expect(await store.get(A, c.id)).toEqual(disabled);
    const ghost = makeConnector({ tenantId: A });
    expect(await store.update(ghost)).toBe(false);
    expect(await store.get(A, ghost.id)).toBeUndefined();
    expect(await store.list(A)).toHaveLength(1);
  },
  'tenant isolation: get, list and update': async (store: ConnectorStore) => {
    const c = makeConnector({ tenantId: A });
    await store.insert(c);
    expect(await store.get(B, c.id)).toBeUndefined();
    expect(await store.list(B)).toEqual([]);
    expect(await store.update({ ...c, tenantId: B, status: 'disabled' })).toBe(false);
    expect(await store.get(A, c.id)).toEqual(c);
  },
  'list: ordered by createdAt then id': async (store: ConnectorStore) => {
    const all = await seed(store);
    expect(await store.list(A)).toEqual(all);
    expect(await store.list(A, {})).toEqual(all);
  },
  'list: filters by status, by type and both': async (store: ConnectorStore) => {
    const all = await seed(store);
    const filters: NonNullable<ConnectorFilter>[] = [
      { status: 'active' },
      { status: 'disabled' },
      { status: 'error' },
      { type: 'tracker' },
      { type: 'calendar' },
      { type: 'mail', status: 'disabled' },
      { type: 'tracker', status: 'active' },
      { type: 'drive', status: 'error' },
    ];
    for (const f of filters) {
      expect(await store.list(A, f)).toEqual(
        all.filter((c) => (!f.status || c.status === f.status) && (!f.type || c.type === f.type)),
      );
    }
  },
  'copy: mutating inputs or returned connectors does not change the store': async (store: ConnectorStore) => {
    const c = makeConnector({ tenantId: A, config: { projects: ['ENG'] } });
    const snapshot = structuredClone(c);
    await store.insert(c);
    (c.config.projects as string[]).push('injected');
    const got = (await store.get(A, c.id)) as Connector;
    expect(got).toEqual(snapshot);
    got.config.projects = [];
    const listed = await store.list(A);
    (listed[0] as Connector).status = 'disabled';
    expect(await store.get(A, c.id)).toEqual(snapshot);
  },
  'claimSync: due at once when new; only wanted types, never disabled; the lease hides it until it ends':
    async (store: ConnectorStore) => {
      const tracker = makeConnector({ tenantId: A, type: 'tracker', createdAt: isoAt(0) });
      const errored = makeConnector({ tenantId: B, type: 'codehost', status: 'error', createdAt: isoAt(1) });
      await store.insert(tracker);
      await store.insert(errored);
      await store.insert(makeConnector({ tenantId: A, type: 'tracker', status: 'disabled' }));
      await store.insert(makeConnector({ tenantId: A, type: 'mail' }));
      const claimed = await store.claimSync(isoAt(10), isoAt(20), 10, ['tracker', 'codehost']);
      expect(claimed).toEqual([
        { connector: tracker, failures: 0 },
        { connector: errored, failures: 0 },
      ]);
      expect(await store.claimSync(isoAt(19), isoAt(30), 10, ['tracker', 'codehost'])).toEqual([]);
      // update (an admin's change) leaves the pull state alone: still leased.
      expect(await store.update({ ...tracker, config: { x: 1 } })).toBe(true);
      expect(await store.claimSync(isoAt(19), isoAt(30), 10, ['tracker'])).toEqual([]);
      const again = await store.claimSync(isoAt(20), isoAt(30), 10, ['tracker']);
      expect(again.map((c) => c.connector.id)).toEqual([tracker.id]);
      expect(again[0]?.connector.config).toEqual({ x: 1 });
    },
  'claimSync: never-pulled first, then by due time; at most limit': async (store: ConnectorStore) => {
    const [c1, c2, c3] = [0, 1, 2].map((i) =>
      makeConnector({ tenantId: i === 1 ? B : A, type: 'tracker', createdAt: isoAt(i) }),
    ) as [Connector, Connector, Connector];
    for (const c of shuffled([c1, c2, c3])) await store.insert(c);
    const first = await store.claimSync(isoAt(10), isoAt(11), 2, ['tracker']);
    expect(first.map((c) => c.connector.id)).toEqual([c1.id, c2.id]);
    const ok = { at: isoAt(10), ok: true, failures: 0, status: 'active' as const, errorDetails: null };
    expect(await store.finishSync(A, c1.id, { ...ok, nextSyncAt: isoAt(15) })).toBe(true);
    expect(await store.finishSync(B, c2.id, { ...ok, nextSyncAt: isoAt(12) })).toBe(true);
    const second = await store.claimSync(isoAt(20), isoAt(21), 3, ['tracker']);
    expect(second.map((c) => c.connector.id)).toEqual([c3.id, c2.id, c1.id]);
    expect(await store.claimSync(isoAt(20), isoAt(21), 0, ['tracker'])).toEqual([]);
  },
  'finishSync: success sets lastSyncAt and clears an error; failures count; a failure keeps lastSyncAt':
    async (store: ConnectorStore) => {
      const c = makeConnector({ tenantId: A, type: 'codehost' });
      await store.insert(c);
      await store.claimSync(isoAt(1), isoAt(2), 1, ['codehost']);
      expect(
        await store.finishSync(A, c.id, {
          at: isoAt(1),
          ok: true,
          failures: 0,
          status: 'active',
          errorDetails: null,
          nextSyncAt: isoAt(5),
        }),
      ).toBe(true);
      expect(await store.get(A, c.id)).toEqual({ ...c, lastSyncAt: isoAt(1) });
      await store.claimSync(isoAt(5), isoAt(6), 1, ['codehost']);
      const failed = {
        at: isoAt(5),
        ok: false,
        failures: 3,
        status: 'error' as const,
        errorDetails: 'HTTP 502 from the code host',
        nextSyncAt: isoAt(7),
      };
      expect(await store.finishSync(A, c.id, failed)).toBe(true);
      expect(await store.get(A, c.id)).toEqual({
        ...c,
        status: 'error',
        errorDetails: 'HTTP 502 from the code host',
        lastSyncAt: isoAt(1),
      });
      const claimed = await store.claimSync(isoAt(7), isoAt(8), 1, ['codehost']);
      expect(claimed.map((x) => [x.connector.status, x.failures])).toEqual([['error', 3]]);
      await store.finishSync(A, c.id, {
        ...failed,
        at: isoAt(7),
        ok: true,
        failures: 0,
        status: 'active',
        errorDetails: null,
      });
      expect(await store.get(A, c.id)).toEqual({ ...c, lastSyncAt: isoAt(7) });
    },
  'finishSync: false when absent or disabled meanwhile (it stays disabled)': async (
    store: ConnectorStore,
  ) => {
    const c = makeConnector({ tenantId: A });
    await store.insert(c);
    await store.claimSync(isoAt(1), isoAt(2), 1, ['tracker']);
    await store.update({ ...c, status: 'disabled' });
    const ok = {
      at: isoAt(1),
      ok: true,
      failures: 0,
      status: 'active' as const,
      errorDetails: null,
      nextSyncAt: isoAt(2),
    };
    expect(await store.finishSync(A, c.id, ok)).toBe(false);
    expect(await store.get(A, c.id)).toEqual({ ...c, status: 'disabled' });
    expect(await store.finishSync(B, c.id, ok)).toBe(false);
    expect(await store.finishSync(A, newId(), ok)).toBe(false);
  },
  'scheduleSync: moves the next pull (sooner or later), keeps the failure count; false when absent': async (
    store: ConnectorStore,
  ) => {
    const c = makeConnector({ tenantId: A });
    await store.insert(c);
    await store.claimSync(isoAt(1), isoAt(2), 1, ['tracker']);
    await store.finishSync(A, c.id, {
      at: isoAt(1),
      ok: false,
      failures: 2,
      status: 'active',
      errorDetails: null,
      nextSyncAt: isoAt(50),
    });
    expect(await store.claimSync(isoAt(3), isoAt(4), 1, ['tracker'])).toEqual([]);
    expect(await store.scheduleSync(A, c.id, isoAt(3))).toBe(true);
    expect(await store.claimSync(isoAt(3), isoAt(60), 1, ['tracker'])).toEqual([
      { connector: c, failures: 2 },
    ]);
    expect(await store.scheduleSync(A, c.id, isoAt(70))).toBe(true);
    expect(await store.claimSync(isoAt(65), isoAt(80), 1, ['tracker'])).toEqual([]);
    expect(await store.scheduleSync(B, c.id, isoAt(3))).toBe(false);
    expect(await store.scheduleSync(A, newId(), isoAt(3))).toBe(false);
  },
  'claimSync: concurrent claims never hand out one connector twice': async (store: ConnectorStore) => {
    const all = Array.from({ length: 6 }, (_, i) =>
      makeConnector({ tenantId: i % 2 ? A : B, createdAt: isoAt(i) }),
    );
    for (const c of all) await store.insert(c);
    const results = await Promise.all(
      Array.from({ length: 4 }, () => store.claimSync(isoAt(10), isoAt(20), 2, ['tracker'])),
    );
    const ids = results.flat().map((c) => c.connector.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.sort()).toEqual(all.map((c) => c.id).sort());
  },
  'bindSecretRefs: first tenant to name a reference holds it, under every spelling, for good': async (
    store: ConnectorStore,
  ) => {
    expect(await store.bindSecretRefs(A, ['mail-token', 'wh-1'])).toEqual([]);
    expect(await store.bindSecretRefs(A, ['mail-token', 'wh-1', 'wh-2'])).toEqual([]);
    expect(await store.bindSecretRefs(B, ['MAIL_TOKEN', 'b-own', 'Wh.1', 'wh-2'])).toEqual([
      'MAIL_TOKEN',
      'Wh.1',
      'wh-2',
    ]);
    // The free one of B's was bound to B: now A cannot name it.
    expect(await store.bindSecretRefs(A, ['B_OWN'])).toEqual(['B_OWN']);
    expect(await store.bindSecretRefs(B, ['b-own'])).toEqual([]);
    // Binding is not touched by connectors coming and going.
    const c = makeConnector({ tenantId: A, credentialsRef: 'mail-token' });
    await store.insert(c);
    await store.update({ ...c, status: 'disabled', credentialsRef: 'other' });
    expect(await store.bindSecretRefs(B, ['mail-token'])).toEqual(['mail-token']);
    expect(await store.bindSecretRefs(A, [])).toEqual([]);
    expect(await store.bindSecretRefs(A, [STRING_255])).toEqual([]);
    expect(await store.bindSecretRefs(B, [STRING_255.toLowerCase()])).toEqual([STRING_255.toLowerCase()]);
  },
  'bindSecretRefs: concurrent binds of one reference by many tenants — exactly one holds it': async (
    store: ConnectorStore,
  ) => {
    const tenants = Array.from({ length: 6 }, (_, i) => `tenant-${i}`);
    const results = await Promise.all(tenants.map((t) => store.bindSecretRefs(t, ['shared-token'])));
    const winners = tenants.filter((_, i) => results[i]?.length === 0);
    expect(winners).toHaveLength(1);
    for (const t of tenants)
      expect(await store.bindSecretRefs(t, ['shared-token'])).toEqual(
        t === winners[0] ? [] : ['shared-token'],
      );
  },
} satisfies Record<string, (store: ConnectorStore) => Promise<void>>;

export type ConnectorStoreCaseName = keyof typeof cases;
export const describeConnectorStoreConformance = defineConformanceSuite<
  ConnectorStore,
  ConnectorStoreCaseName
>('ConnectorStore', cases);
