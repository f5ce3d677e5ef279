import { expect } from 'vitest';
import { newId } from '../ids';
import {
  defineConformanceSuite,
  duplicateKeyCase,
  type RecordAccess,
  roundTripCase,
  STRING_255,
  shuffled,
  UNICODE_SAMPLES,
} from '../testing/conformance';
import { isoAt, makeBriefing } from '../testing/fixtures';
import type { BriefingStore } from './port';
import type { Briefing } from './schema';

const A = 'tenant-a';
const B = 'tenant-b';

function richBriefing(): Briefing {
  const taskId = newId();
  return makeBriefing({
    tenantId: A,
    userId: STRING_255,
    generatedAt: '2025-09-01T06:00:00.123Z',
    tasks: [
      { taskId, rank: 1 },
      { taskId: newId(), rank: 2 },
    ],
    timeBlocks: [
      { start: '2025-09-01T09:00:00.000Z', end: '2025-09-01T10:30:00.000Z', taskId, label: 'Deep work 🧠' },
      { start: '2025-09-01T12:00:00.000Z', end: '2025-09-01T13:00:00.000Z', taskId: null, label: 'Lunch' },
    ],
    autoResponseSummary: {
      sent: 3,
      byType: { information_query: 3 },
      notes: [UNICODE_SAMPLES[1]],
      none: null,
    },
    orgNewsItems: [{ title: UNICODE_SAMPLES[3], relevance: 'must-read', source: 'intranet' }],
    docChangeAlerts: [{ docId: 'doc-1', summary: 'Policy updated', impact: 'high' }],
    alerts: [{ type: 'connector', message: 'tracker token expires soon', severity: 'warning' }],
    connectorStatus: { mail: 'ok', tracker: 'partial', drive: 'unreachable' },
    deliveryChannel: 'email',
    deliveredAt: '2025-09-01T06:00:05.000Z',
  });
}

const briefings: RecordAccess<BriefingStore, Briefing> = {
  write: (store, b) => store.insert(b),
  read: (store, b) => store.get(b.tenantId, b.id),
};

const cases = {
  'insert/get: every field round-trips (nullables, nested arrays, maps, unicode)': roundTripCase(
    briefings,
    () => {
      const plain = makeBriefing({ tenantId: A });
      expect(plain.deliveredAt).toBeNull();
      return [richBriefing(), plain];
    },
    () => makeBriefing({ tenantId: A }),
  ),
  'insert: a duplicate id throws and keeps the original': duplicateKeyCase(
    briefings,
    () => makeBriefing({ tenantId: A }),
    (b): Briefing => ({ ...b, deliveryChannel: 'web_ui' }),
  ),
  'latest: the most recently generated briefing of the user': async (store: BriefingStore) => {
    expect(await store.latest(A, 'alice')).toBeUndefined();
    const mine = [3, 0, 7, 5].map((m) =>
      makeBriefing({ tenantId: A, userId: 'alice', generatedAt: isoAt(m) }),
    );
    for (const b of shuffled(mine)) await store.insert(b);
    await store.insert(makeBriefing({ tenantId: A, userId: 'bob', generatedAt: isoAt(9) }));
    await store.insert(makeBriefing({ tenantId: B, userId: 'alice', generatedAt: isoAt(10) }));
    expect(await store.latest(A, 'alice')).toEqual(mine[2]);
    expect((await store.latest(A, 'bob'))?.generatedAt).toBe(isoAt(9));
    expect(await store.latest(A, 'carol')).toBeUndefined();
    expect((await store.latest(B, 'alice'))?.generatedAt).toBe(isoAt(10));
  },
  'markDelivered: sets deliveredAt and returns true; false when absent': async (store: BriefingStore) => {
    const b = makeBriefing({ tenantId: A });
    await store.insert(b);
    expect(await store.markDelivered(A, b.id, isoAt(1, 500))).toBe(true);
    expect(await store.get(A, b.id)).toEqual({ ...b, deliveredAt: isoAt(1, 500) });
    expect(await store.markDelivered(A, newId(), isoAt(2))).toBe(false);
  },
  'tenant isolation: get, latest and markDelivered': async (store: BriefingStore) => {
    const b = makeBriefing({ tenantId: A, userId: 'alice' });
    await store.insert(b);
    expect(await store.get(B, b.id)).toBeUndefined();
    expect(await store.latest(B, 'alice')).toBeUndefined();
    expect(await store.markDelivered(B, b.id, isoAt(3))).toBe(false);
    expect(await store.get(A, b.id)).toEqual(b);
  },
  'copy: mutating inputs or returned briefings does not change the store': async (store: BriefingStore) => {
    const b = richBriefing();
    const snapshot = structuredClone(b);
    await store.insert(b);
    b.tasks.push({ taskId: newId(), rank: 9 });
    b.connectorStatus.mail = 'error';
    const got = (await store.get(A, b.id)) as Briefing;
    expect(got).toEqual(snapshot);
    got.alerts.length = 0;
    const latest = (await store.latest(A, b.userId)) as Briefing;
    expect(latest).toEqual(snapshot);
    latest.deliveredAt = null;
    expect(await store.get(A, b.id)).toEqual(snapshot);
  },
} satisfies Record<string, (store: BriefingStore) => Promise<void>>;

export type BriefingStoreCaseName = keyof typeof cases;
export const describeBriefingStoreConformance = defineConformanceSuite<BriefingStore, BriefingStoreCaseName>(
  'BriefingStore',
  cases,
);
