import { expect } from 'vitest';
import { newId } from '../ids';
import {
  defineConformanceSuite,
  type RecordAccess,
  roundTripCase,
  STRING_255,
  shuffled,
  UNICODE_SAMPLES,
} from '../testing/conformance';
import { isoAt, makeTask } from '../testing/fixtures';
import type { TaskStore } from './port';
import type { Task, TaskStatus } from './schema';

const A = 'tenant-a';
const B = 'tenant-b';

type TaskFilter = NonNullable<Parameters<TaskStore['list']>[1]>;

async function seed(store: TaskStore): Promise<Task[]> {
  const specs: Partial<Task>[] = [
    { userId: 'alice', status: 'discovered', discoveredAt: isoAt(0) },
    { userId: 'bob', status: 'active', discoveredAt: isoAt(1) },
    { userId: 'alice', status: 'active', discoveredAt: isoAt(1) },
    { userId: 'alice', status: 'completed', discoveredAt: isoAt(1) },
    { userId: 'carol', status: 'archived', discoveredAt: isoAt(2) },
    { userId: 'bob', status: 'completed', discoveredAt: isoAt(3) },
    { userId: 'alice', status: 'archived', discoveredAt: isoAt(4) },
  ];
  const mine = specs.map((s) => makeTask({ tenantId: A, ...s }));
  for (const t of shuffled(mine)) await store.put(t);
  await store.put(makeTask({ tenantId: B, userId: 'alice', status: 'active' }));
  return mine.sort((a, b) =>
    a.discoveredAt !== b.discoveredAt ? (a.discoveredAt < b.discoveredAt ? -1 : 1) : a.id < b.id ? -1 : 1,
  );
}

function matches(t: Task, f: TaskFilter): boolean {
  return (
    (f.userId === undefined || t.userId === f.userId) &&
    (f.status === undefined || f.status.includes(t.status))
  );
}

const tasks: RecordAccess<TaskStore, Task> = {
  write: (store, t) => store.put(t),
  read: (store, t) => store.get(t.tenantId, t.id),
};

const cases = {
  'put/get: every field round-trips (nullables, nested signals, unicode, 255 chars)': roundTripCase(
    tasks,
    () => {
      const rich = makeTask({
        tenantId: A,
        userId: STRING_255,
        title: STRING_255,
        description: UNICODE_SAMPLES.join('\n'),
        priorityScore: 100,
        status: 'completed',
        sources: [
          { system: 'tracker', id: 'ENG-42', url: 'https://tracker.example.com/ENG-42' },
          { system: 'mail', id: 'msg-東京', url: '' },
        ],
        correlationId: newId(),
        correlationConfidence: 0.85,
        deadline: '2025-07-08T09:10:11.012Z',
        urgencySignals: {
          senderSeniority: 0.75,
          followUpCount: 4,
          slaTimer: 'PT4H',
          blockingRelationships: ['ENG-43', 'ENG-44'],
        },
        classification: 'restricted',
        discoveredAt: '2025-07-01T00:00:00.000Z',
        completedAt: '2025-07-02T00:00:00.000Z',
        archivedAt: '2025-08-01T00:00:00.000Z',
        purgeAt: '2025-10-30T00:00:00.000Z',
      });
      const plain = makeTask({ tenantId: A, priorityScore: 0 });
      expect(plain.correlationId).toBeNull();
      expect(plain.urgencySignals.senderSeniority).toBeNull();
      return [rich, plain];
    },
    () => makeTask({ tenantId: A }),
  ),
  'put: replaces an existing task with the same id': async (store: TaskStore) => {
    const t = makeTask({ tenantId: A });
    await store.put(t);
    const done: Task = { ...t, status: 'completed', completedAt: isoAt(30), priorityScore: 5 };
    await store.put(done);
    expect(await store.get(A, t.id)).toEqual(done);
    expect(await store.list(A)).toEqual([done]);
  },
  'delete: removes and returns true; false when absent': async (store: TaskStore) => {
    const t = makeTask({ tenantId: A });
    const keep = makeTask({ tenantId: A });
    await store.put(t);
    await store.put(keep);
    expect(await store.delete(A, t.id)).toBe(true);
    expect(await store.get(A, t.id)).toBeUndefined();
    expect(await store.delete(A, t.id)).toBe(false);
    expect(await store.delete(A, newId())).toBe(false);
    expect(await store.list(A)).toEqual([keep]);
  },
  'tenant isolation: get, list, delete, and put of the same id in another tenant': async (
    store: TaskStore,
  ) => {
    const t = makeTask({ tenantId: A });
    await store.put(t);
    expect(await store.get(B, t.id)).toBeUndefined();
    expect(await store.list(B)).toEqual([]);
    expect(await store.delete(B, t.id)).toBe(false);
    expect(await store.get(A, t.id)).toEqual(t);
    // put keys by (tenantId, id): the same id in another tenant is another record.
    const other: Task = { ...t, tenantId: B, title: 'tenant b copy' };
    await store.put(other);
    expect(await store.get(A, t.id)).toEqual(t);
    expect(await store.get(B, t.id)).toEqual(other);
  },
  'list: ordered by discoveredAt then id': async (store: TaskStore) => {
    const all = await seed(store);
    expect(await store.list(A)).toEqual(all);
    expect(await store.list(A, {})).toEqual(all);
  },
  'list: filters by user, by statuses and both': async (store: TaskStore) => {
    const all = await seed(store);
    const filters: TaskFilter[] = [
      { userId: 'alice' },
      { userId: 'nobody' },
      { status: ['active'] },
      { status: ['completed', 'archived'] },
      { status: ['purged'] },
      { userId: 'alice', status: ['active', 'archived'] },
      { userId: 'bob', status: ['discovered'] },
    ];
    for (const f of filters) expect(await store.list(A, f)).toEqual(all.filter((t) => matches(t, f)));
  },
  'list: an empty status list matches nothing': async (store: TaskStore) => {
    await seed(store);
    expect(await store.list(A, { status: [] as TaskStatus[] })).toEqual([]);
  },
  'copy: mutating inputs or returned tasks does not change the store': async (store: TaskStore) => {
    const t = makeTask({ tenantId: A, sources: [{ system: 'tracker', id: 'X-1', url: 'u' }] });
    const snapshot = structuredClone(t);
    await store.put(t);
    t.sources.push({ system: 'x', id: 'y', url: 'z' });
    t.urgencySignals.blockingRelationships.push('injected');
    const got = (await store.get(A, t.id)) as Task;
    expect(got).toEqual(snapshot);
    got.title = 'changed';
    const listed = await store.list(A);
    (listed[0] as Task).urgencySignals.followUpCount = 99;
    expect(await store.get(A, t.id)).toEqual(snapshot);
  },
} satisfies Record<string, (store: TaskStore) => Promise<void>>;

export type TaskStoreCaseName = keyof typeof cases;
export const describeTaskStoreConformance = defineConformanceSuite<TaskStore, TaskStoreCaseName>(
  'TaskStore',
  cases,
);
