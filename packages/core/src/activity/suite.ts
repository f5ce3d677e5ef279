import { expect } from 'vitest';
import { defineConformanceSuite, STRING_255, UNICODE_SAMPLES } from '../testing/conformance';
import { FIXTURE_EPOCH } from '../testing/fixtures';
import type { ActivityTracker } from './port';

/** `minutes` after the fixture epoch (plus `ms`). */
const at = (minutes: number, ms = 0): Date => new Date(FIXTURE_EPOCH + minutes * 60_000 + ms);

const cases = {
  'touch/countActive: a user touched inside the window is counted (since is inclusive)': async (
    tracker: ActivityTracker,
  ) => {
    await tracker.touch('acme', 'alice', at(10));
    expect(await tracker.countActive('acme', at(0))).toBe(1);
    expect(await tracker.countActive('acme', at(10))).toBe(1);
    expect(await tracker.countActive('acme', at(10, 1))).toBe(0);
  },
  'countActive: distinct users are counted once (unicode, 255-character and case-different ids)': async (
    tracker: ActivityTracker,
  ) => {
    for (const minute of [1, 2, 3]) await tracker.touch('acme', 'alice', at(minute));
    const others = ['Alice', 'bob', ...UNICODE_SAMPLES, STRING_255];
    for (const u of others) await tracker.touch('acme', u, at(2));
    await tracker.touch('acme', 'bob', at(4));
    expect(await tracker.countActive('acme', at(0))).toBe(1 + others.length);
  },
  'countActive: users whose last request is before since are not counted': async (
    tracker: ActivityTracker,
  ) => {
    await tracker.touch('acme', 'alice', at(0));
    await tracker.touch('acme', 'bob', at(5));
    await tracker.touch('acme', 'carol', at(10));
    expect(await tracker.countActive('acme', at(5))).toBe(2);
    expect(await tracker.countActive('acme', at(6))).toBe(1);
    expect(await tracker.countActive('acme', at(11))).toBe(0);
  },
  'tenants: activity of one tenant is invisible to another (also to a tenant id sharing a prefix)': async (
    tracker: ActivityTracker,
  ) => {
    await tracker.touch('acme', 'alice', at(1));
    await tracker.touch('acme', 'bob', at(1));
    await tracker.touch('globex', 'alice', at(1));
    await tracker.touch('acme-eu', 'carol', at(1));
    expect(await tracker.countActive('acme', at(0))).toBe(2);
    expect(await tracker.countActive('globex', at(0))).toBe(1);
    expect(await tracker.countActive('acme-eu', at(0))).toBe(1);
    expect(await tracker.countActive('initech', at(0))).toBe(0);
  },
  'touch: a later request moves the user forward': async (tracker: ActivityTracker) => {
    await tracker.touch('acme', 'alice', at(0));
    await tracker.touch('acme', 'bob', at(0));
    await tracker.touch('acme', 'alice', at(10));
    expect(await tracker.countActive('acme', at(5))).toBe(1);
    expect(await tracker.countActive('acme', at(10))).toBe(1);
    // A user already outside the window comes back with a new request.
    await tracker.touch('acme', 'bob', at(12));
    expect(await tracker.countActive('acme', at(10))).toBe(2);
    expect(await tracker.countActive('acme', at(10, 1))).toBe(1);
    expect(await tracker.countActive('acme', at(12, 1))).toBe(0);
  },
  'countActive: a tenant with no activity counts 0': async (tracker: ActivityTracker) => {
    expect(await tracker.countActive('acme', at(0))).toBe(0);
    await tracker.touch('globex', 'alice', at(1));
    expect(await tracker.countActive('acme', at(0))).toBe(0);
    expect(await tracker.countActive('', at(0))).toBe(0);
  },
} satisfies Record<string, (tracker: ActivityTracker) => Promise<void>>;

export type ActivityTrackerCaseName = keyof typeof cases;
export const describeActivityTrackerConformance = defineConformanceSuite<
  ActivityTracker,
  ActivityTrackerCaseName
>('ActivityTracker', cases);
