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
} satisfies Record<string, (store: ConnectorStore) => Promise<void>>;

export type ConnectorStoreCaseName = keyof typeof cases;
export const describeConnectorStoreConformance = defineConformanceSuite<
  ConnectorStore,
  ConnectorStoreCaseName
>('ConnectorStore', cases);
