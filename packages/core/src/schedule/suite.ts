import { expect } from 'vitest';
import { defineConformanceSuite, STRING_255, UNICODE_SAMPLES } from '../testing/conformance';
import type { ScheduledRun, ScheduledRunStore } from './port';

const run = (over: Partial<ScheduledRun> = {}): ScheduledRun => ({
  tenantId: 'tenant-a',
  job: 'daily-briefing',
  key: 'alice:2026-11-26',
  owner: 'instance-1',
  claimedAt: '2026-11-26T07:00:00.000Z',
  ...over,
});

const cases = {
  'claim: the first claim of a run wins, every later one loses and keeps the first': async (
    store: ScheduledRunStore,
  ) => {
    expect(await store.claim(run())).toBe(true);
    expect(await store.claim(run({ owner: 'instance-2', claimedAt: '2026-11-26T07:00:01.000Z' }))).toBe(
      false,
    );
    expect(await store.get('tenant-a', 'daily-briefing', 'alice:2026-11-26')).toEqual(run());
  },
  'claim: tenant, job and key each name a different run': async (store: ScheduledRunStore) => {
    expect(await store.claim(run())).toBe(true);
    expect(await store.claim(run({ tenantId: 'tenant-b' }))).toBe(true);
    expect(await store.claim(run({ job: 'other-job' }))).toBe(true);
    expect(await store.claim(run({ key: 'alice:2026-11-27' }))).toBe(true);
    expect(await store.claim(run({ key: 'bob:2026-11-26' }))).toBe(true);
    expect(await store.get('tenant-c', 'daily-briefing', 'alice:2026-11-26')).toBeUndefined();
  },
  'claim: concurrent claims of one run, exactly one wins': async (store: ScheduledRunStore) => {
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => store.claim(run({ owner: `instance-${i}` }))),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    const kept = await store.get('tenant-a', 'daily-briefing', 'alice:2026-11-26');
    expect(kept?.owner).toBe(`instance-${results.indexOf(true)}`);
  },
  'release: a released run can be claimed again; releasing an unknown run is false': async (
    store: ScheduledRunStore,
  ) => {
    expect(await store.release('tenant-a', 'daily-briefing', 'alice:2026-11-26')).toBe(false);
    await store.claim(run());
    expect(await store.release('tenant-a', 'daily-briefing', 'alice:2026-11-26')).toBe(true);
    expect(await store.get('tenant-a', 'daily-briefing', 'alice:2026-11-26')).toBeUndefined();
    expect(await store.claim(run({ owner: 'instance-2' }))).toBe(true);
  },
  'round trip: unicode and 255-character keys': async (store: ScheduledRunStore) => {
    const rich = run({ key: STRING_255, owner: UNICODE_SAMPLES.join(' ') });
    expect(await store.claim(rich)).toBe(true);
    expect(await store.get(rich.tenantId, rich.job, rich.key)).toEqual(rich);
  },
} satisfies Record<string, (store: ScheduledRunStore) => Promise<void>>;

export type ScheduledRunStoreCaseName = keyof typeof cases;
export const describeScheduledRunStoreConformance = defineConformanceSuite<
  ScheduledRunStore,
  ScheduledRunStoreCaseName
>('ScheduledRunStore', cases);
