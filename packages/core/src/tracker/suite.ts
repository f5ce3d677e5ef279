import { expect } from 'vitest';
import { newId } from '../ids';
import { defineConformanceSuite, STRING_255, shuffled, UNICODE_SAMPLES } from '../testing/conformance';
import { isoAt } from '../testing/fixtures';
import { makeActivity, makeDelivery, makeTrackerWrite } from './fixtures';
import type { TrackerWrite } from './schema';
import type { WorkTrackingStore } from './store';

const A = 'tenant-a';
const B = 'tenant-b';

const cases = {
  'recordDelivery: stores delivery, activities and writes; every field round-trips': async (
    store: WorkTrackingStore,
  ) => {
    const delivery = makeDelivery({ tenantId: A, deliveryId: 'gh-1', event: 'pull_request' });
    const activity = makeActivity({
      tenantId: A,
      userId: STRING_255,
      kind: 'pr_merged',
      occurredAt: '2025-03-04T05:06:07.089Z',
      deliveryId: 'gh-1',
      subject: 'acme/app#12',
      title: UNICODE_SAMPLES.join(' '),
      url: 'https://code.example.com/acme/app/pull/12',
      tickets: ['ENG-12', 'OPS-3'],
      detail: { commits: 3, nested: { a: [1, null, 'x'] } },
    });
    const write = makeTrackerWrite({
      tenantId: A,
      tool: 'tracker_transition',
      ticketId: 'ENG-12',
      comment: null,
      transitionName: 'Done',
      attempts: 2,
      lastError: 'HTTP 503',
      nextAttemptAt: '2025-03-04T05:07:00.000Z',
      createdAt: '2025-03-04T05:06:07.100Z',
      deliveryId: 'gh-1',
      policyReason: UNICODE_SAMPLES[0],
    });
    expect(await store.hasDelivery(A, 'codehost', 'gh-1')).toBe(false);
    expect(await store.recordDelivery({ delivery, activities: [activity], writes: [write] })).toBe(
      'recorded',
    );
    expect(await store.hasDelivery(A, 'codehost', 'gh-1')).toBe(true);
    expect(await store.hasDelivery(A, 'tracker', 'gh-1')).toBe(false);
    expect(await store.hasDelivery(B, 'codehost', 'gh-1')).toBe(false);
    expect(
      await store.activities(A, { userId: STRING_255, from: isoAt(0), to: '2026-01-01T00:00:00.000Z' }),
    ).toEqual([activity]);
    expect(await store.getWrite(A, write.id)).toEqual(write);
    expect(await store.listWrites(A)).toEqual([write]);
  },
  'recordDelivery: a duplicate delivery id records nothing and says so': async (store: WorkTrackingStore) => {
    const first = makeDelivery({ tenantId: A, deliveryId: 'gh-7' });
    expect(
      await store.recordDelivery({
        delivery: first,
        activities: [makeActivity({ tenantId: A })],
        writes: [],
      }),
    ).toBe('recorded');
    const again = {
      delivery: { ...first, event: 'push' },
      activities: [makeActivity({ tenantId: A, userId: 'alice', occurredAt: isoAt(5) })],
      writes: [makeTrackerWrite({ tenantId: A })],
    };
    expect(await store.recordDelivery(again)).toBe('duplicate');
    expect(await store.listWrites(A)).toEqual([]);
    expect(await store.activities(A, { userId: 'alice', from: isoAt(0), to: isoAt(60) })).toHaveLength(1);
    // The same id from the other source, or in another tenant, is another delivery.
    expect(
      await store.recordDelivery({ delivery: { ...first, source: 'tracker' }, activities: [], writes: [] }),
    ).toBe('recorded');
    expect(
      await store.recordDelivery({ delivery: { ...first, tenantId: B }, activities: [], writes: [] }),
    ).toBe('recorded');
  },
  'recordDelivery: aliases — a delivery known under any of its ids is a duplicate; nothing of it is kept':
    async (store: WorkTrackingStore) => {
      const body = `sha256:${'ab'.repeat(32)}`;
      const first = makeDelivery({ tenantId: A, deliveryId: 'gh-1' });
      expect(
        await store.recordDelivery({ delivery: first, activities: [], writes: [], aliases: [body] }),
      ).toBe('recorded');
      expect(await store.hasDelivery(A, first.source, 'gh-1')).toBe(true);
      expect(await store.hasDelivery(A, first.source, body)).toBe(true);
      // The same body under a new id (a replay): duplicate, and neither its id nor its writes are kept.
      const replay = {
        delivery: { ...first, deliveryId: 'gh-2' },
        activities: [makeActivity({ tenantId: A, userId: 'alice', occurredAt: isoAt(5) })],
        writes: [makeTrackerWrite({ tenantId: A })],
        aliases: [body],
      };
      expect(await store.recordDelivery(replay)).toBe('duplicate');
      expect(await store.hasDelivery(A, first.source, 'gh-2')).toBe(false);
      expect(await store.listWrites(A)).toEqual([]);
      expect(await store.activities(A, { userId: 'alice', from: isoAt(0), to: isoAt(60) })).toEqual([]);
      // A new body under the first id: duplicate too. Another source or tenant: another delivery.
      expect(
        await store.recordDelivery({
          delivery: first,
          activities: [],
          writes: [],
          aliases: [`sha256:${'cd'.repeat(32)}`],
        }),
      ).toBe('duplicate');
      expect(await store.hasDelivery(A, first.source, `sha256:${'cd'.repeat(32)}`)).toBe(false);
      expect(
        await store.recordDelivery({
          delivery: { ...first, tenantId: B },
          activities: [],
          writes: [],
          aliases: [body],
        }),
      ).toBe('recorded');
    },
  'recordDelivery: concurrent deliveries of one id record exactly once': async (store: WorkTrackingStore) => {
    const d = makeDelivery({ tenantId: A, deliveryId: 'race' });
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        store.recordDelivery({
          delivery: d,
          activities: [makeActivity({ tenantId: A, occurredAt: isoAt(i) })],
          writes: [makeTrackerWrite({ tenantId: A })],
        }),
      ),
    );
    expect(results.filter((r) => r === 'recorded')).toHaveLength(1);
    expect(await store.listWrites(A)).toHaveLength(1);
    expect(await store.activities(A, { userId: 'alice', from: isoAt(0), to: isoAt(60) })).toHaveLength(1);
  },
  'activities: one user, half-open [from, to), ordered by occurredAt then id, tenant-isolated': async (
    store: WorkTrackingStore,
  ) => {
    const mine = [10, 0, 30, 59, 20].map((m) =>
      makeActivity({ tenantId: A, userId: 'alice', occurredAt: isoAt(m) }),
    );
    const others = [
      makeActivity({ tenantId: A, userId: 'bob', occurredAt: isoAt(10) }),
      makeActivity({ tenantId: A, userId: 'alice', occurredAt: isoAt(60) }),
      makeActivity({ tenantId: A, userId: 'alice', occurredAt: isoAt(-1) }),
      makeActivity({ tenantId: B, userId: 'alice', occurredAt: isoAt(10) }),
    ];
    let n = 0;
    for (const a of shuffled([...mine, ...others])) {
      await store.recordDelivery({
        delivery: makeDelivery({ tenantId: a.tenantId, deliveryId: `d-${n++}` }),
        activities: [a],
        writes: [],
      });
    }
    const got = await store.activities(A, { userId: 'alice', from: isoAt(0), to: isoAt(60) });
    expect(got.map((a) => a.occurredAt)).toEqual([0, 10, 20, 30, 59].map((m) => isoAt(m)));
    expect(await store.activities(B, { userId: 'alice', from: isoAt(0), to: isoAt(60) })).toHaveLength(1);
    expect(await store.activities(A, { userId: 'carol', from: isoAt(0), to: isoAt(60) })).toEqual([]);
  },
  'claimWrites: due pending writes of every tenant, oldest first, leased once': async (
    store: WorkTrackingStore,
  ) => {
    const due = [3, 1, 2].map((m) => makeTrackerWrite({ tenantId: A, nextAttemptAt: isoAt(m) }));
    const otherTenant = makeTrackerWrite({ tenantId: B, nextAttemptAt: isoAt(4) });
    const later = makeTrackerWrite({ tenantId: A, nextAttemptAt: isoAt(30) });
    const done = makeTrackerWrite({ tenantId: A, nextAttemptAt: isoAt(0), state: 'delivered' });
    const failed = makeTrackerWrite({ tenantId: A, nextAttemptAt: isoAt(0), state: 'failed' });
    await store.recordDelivery({
      delivery: makeDelivery({ tenantId: A }),
      activities: [],
      writes: [...due, later, done, failed],
    });
    await store.recordDelivery({
      delivery: makeDelivery({ tenantId: B }),
      activities: [],
      writes: [otherTenant],
    });
    const first = await store.claimWrites(isoAt(10), isoAt(15), 3);
    expect(first.map((w) => w.id)).toEqual([due[1], due[2], due[0]].map((w) => w?.id));
    expect(first.every((w) => w.nextAttemptAt === isoAt(15))).toBe(true);
    const second = await store.claimWrites(isoAt(10), isoAt(15), 10);
    expect(second.map((w) => w.id)).toEqual([otherTenant.id]);
    expect(await store.claimWrites(isoAt(10), isoAt(15), 10)).toEqual([]);
    // After the lease ran out the writes are due again.
    expect(await store.claimWrites(isoAt(15), isoAt(20), 10)).toHaveLength(4);
    expect(await store.claimWrites(isoAt(100), isoAt(120), 0)).toEqual([]);
  },
  'claimWrites: writes due at the same time come oldest (createdAt) first': async (
    store: WorkTrackingStore,
  ) => {
    const ws = [3, 1, 2, 0].map((ms) =>
      makeTrackerWrite({ tenantId: A, nextAttemptAt: isoAt(1), createdAt: isoAt(0, ms) }),
    );
    await store.recordDelivery({ delivery: makeDelivery({ tenantId: A }), activities: [], writes: ws });
    const got = await store.claimWrites(isoAt(1), isoAt(2), 10);
    expect(got.map((w) => w.createdAt)).toEqual([0, 1, 2, 3].map((ms) => isoAt(0, ms)));
  },
  'claimWrites: concurrent claims never hand out a write twice': async (store: WorkTrackingStore) => {
    const writes = Array.from({ length: 12 }, (_, i) =>
      makeTrackerWrite({ tenantId: A, nextAttemptAt: isoAt(i) }),
    );
    await store.recordDelivery({ delivery: makeDelivery({ tenantId: A }), activities: [], writes });
    const claims = await Promise.all(
      Array.from({ length: 4 }, () => store.claimWrites(isoAt(60), isoAt(90), 5)),
    );
    const ids = claims.flat().map((w) => w.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBe(12);
  },
  'updateWrite / listWrites: replace by id, filter by state and delivery, ordered by createdAt': async (
    store: WorkTrackingStore,
  ) => {
    const ws = [2, 0, 1].map((m) =>
      makeTrackerWrite({ tenantId: A, createdAt: isoAt(m), deliveryId: `d-${m % 2}` }),
    );
    await store.recordDelivery({ delivery: makeDelivery({ tenantId: A }), activities: [], writes: ws });
    const w = ws[0] as TrackerWrite;
    const delivered: TrackerWrite = { ...w, state: 'delivered', attempts: 1, deliveredAt: isoAt(3) };
    expect(await store.updateWrite(delivered)).toBe(true);
    expect(await store.getWrite(A, w.id)).toEqual(delivered);
    expect(await store.updateWrite(makeTrackerWrite({ tenantId: A }))).toBe(false);
    expect(await store.updateWrite({ ...delivered, tenantId: B })).toBe(false);
    expect(await store.getWrite(B, w.id)).toBeUndefined();
    expect((await store.listWrites(A)).map((x) => x.createdAt)).toEqual([isoAt(0), isoAt(1), isoAt(2)]);
    expect((await store.listWrites(A, { state: 'delivered' })).map((x) => x.id)).toEqual([w.id]);
    expect((await store.listWrites(A, { state: 'pending' })).length).toBe(2);
    expect((await store.listWrites(A, { deliveryId: 'd-0' })).map((x) => x.createdAt)).toEqual([
      isoAt(0),
      isoAt(2),
    ]);
    expect(await store.listWrites(B)).toEqual([]);
    expect(await store.getWrite(A, newId())).toBeUndefined();
  },
  'counters: increment from zero, per tenant, concurrent increments add up': async (
    store: WorkTrackingStore,
  ) => {
    expect(await store.counters(A)).toEqual({});
    await store.increment(A, 'tasksDiscovered');
    await store.increment(A, 'tasksDiscovered', 4);
    await Promise.all(Array.from({ length: 10 }, () => store.increment(A, 'modelCalls')));
    await store.increment(B, 'modelCalls', 2);
    expect(await store.counters(A)).toEqual({ tasksDiscovered: 5, modelCalls: 10 });
    expect(await store.counters(B)).toEqual({ modelCalls: 2 });
  },
  'copy: mutating inputs or returned records does not change the store': async (store: WorkTrackingStore) => {
    const a = makeActivity({ tenantId: A, tickets: ['ENG-1'] });
    const w = makeTrackerWrite({ tenantId: A });
    const snapA = structuredClone(a);
    const snapW = structuredClone(w);
    await store.recordDelivery({ delivery: makeDelivery({ tenantId: A }), activities: [a], writes: [w] });
    a.tickets.push('X-1');
    w.ticketId = 'X-2';
    const got = await store.activities(A, { userId: 'alice', from: isoAt(0), to: isoAt(1) });
    expect(got).toEqual([snapA]);
    (got[0] as typeof a).tickets.length = 0;
    expect(await store.activities(A, { userId: 'alice', from: isoAt(0), to: isoAt(1) })).toEqual([snapA]);
    expect(await store.getWrite(A, snapW.id)).toEqual(snapW);
  },
} satisfies Record<string, (store: WorkTrackingStore) => Promise<void>>;

export type WorkTrackingStoreCaseName = keyof typeof cases;
export const describeWorkTrackingStoreConformance = defineConformanceSuite<
  WorkTrackingStore,
  WorkTrackingStoreCaseName
>('WorkTrackingStore', cases);
