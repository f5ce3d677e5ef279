/**
 * Daily briefings on a schedule, in each user's time zone; one run per user and local day across
 * two "instances" sharing the run store; a missed run is caught up once; the scheduler runs its
 * rounds on injected timers and stops cleanly. ManualClock and hand-fired timers: no real waits.
 */
import {
  type Briefing,
  InMemoryBriefingStore,
  InMemoryScheduledRunStore,
  InMemoryTaskStore,
  ManualClock,
} from '@agentgov/core';
import { makeTask } from '@agentgov/core/testing';
import { beforeEach, describe, expect, it } from 'vitest';
import { BriefingService } from '../src/briefings';
import { BriefingSchedule, parseLocalTime } from '../src/sync/briefing-schedule';
import { type SchedulerTimers, WorkScheduler } from '../src/sync/scheduler';
import { localTime } from '../src/time-zone';

const T = 'acme';
let clock: ManualClock;
let store: InMemoryBriefingStore;
let runs: InMemoryScheduledRunStore;
let briefings: BriefingService;
const zones: Record<string, string> = { alice: 'Europe/Berlin', bob: 'America/New_York', carol: 'Not/AZone' };

function schedule(owner: string, over: Partial<ConstructorParameters<typeof BriefingSchedule>[0]> = {}) {
  return new BriefingSchedule({
    briefings,
    runs,
    tenants: async () => [T],
    users: async () => ['alice', 'bob', 'carol'],
    timeZoneOf: async (_t, u) => zones[u],
    at: '07:30',
    owner,
    clock,
    ...over,
  });
}
const who = (bs: Briefing[]) => bs.map((b) => b.userId).sort();

beforeEach(async () => {
  clock = new ManualClock('2026-11-26T05:00:00.000Z');
  store = new InMemoryBriefingStore();
  runs = new InMemoryScheduledRunStore();
  const tasks = new InMemoryTaskStore();
  await tasks.put(makeTask({ tenantId: T, userId: 'alice', title: 'Review the plan' }));
  briefings = new BriefingService({ store, tasks, clock });
});

describe('BriefingSchedule', () => {
  it("builds each user's briefing at the configured local time of their zone (UTC when unknown), once a day", async () => {
    const s = schedule('instance-1');
    expect(await s.tick()).toEqual([]); // 06:00 Berlin, 00:00 New York, 05:00 UTC
    clock.set('2026-11-26T06:30:00.000Z'); // 07:30 Berlin
    const first = await s.tick();
    expect(who(first)).toEqual(['alice']);
    expect(first[0]).toMatchObject({
      tenantId: T,
      deliveryChannel: 'web_ui',
      generatedAt: '2026-11-26T06:30:00.000Z',
    });
    expect(first[0]?.tasks).toHaveLength(1);
    clock.set('2026-11-26T07:29:59.000Z');
    expect(await s.tick()).toEqual([]);
    clock.set('2026-11-26T07:30:00.000Z'); // 07:30 UTC: carol (invalid zone → UTC)
    expect(who(await s.tick())).toEqual(['carol']);
    clock.set('2026-11-26T12:30:00.000Z'); // 07:30 New York
    expect(who(await s.tick())).toEqual(['bob']);
    clock.set('2026-11-26T22:00:00.000Z');
    expect(await s.tick()).toEqual([]);
    clock.set('2026-11-27T06:30:00.000Z'); // next day in Berlin
    expect(who(await s.tick())).toEqual(['alice']);
    expect(await runs.get(T, 'daily-briefing', 'alice:2026-11-27')).toMatchObject({ owner: 'instance-1' });
  });

  it('two instances sharing the run store build each briefing once', async () => {
    clock.set('2026-11-26T13:00:00.000Z');
    const [a, b] = await Promise.all([schedule('instance-1').tick(), schedule('instance-2').tick()]);
    expect([...who(a), ...who(b)].sort()).toEqual(['alice', 'bob', 'carol']);
    for (const user of ['alice', 'bob', 'carol']) expect((await store.latest(T, user))?.userId).toBe(user);
    expect(await schedule('instance-3').tick()).toEqual([]);
  });

  it('a run missed while the process was down is caught up once, never again that day', async () => {
    // Down over 07:30 Berlin; back at 15:00 Berlin: the briefing of the day is built now, once.
    clock.set('2026-11-26T14:00:00.000Z');
    expect(who(await schedule('after-restart', { users: async () => ['alice'] }).tick())).toEqual(['alice']);
    expect(await schedule('after-restart', { users: async () => ['alice'] }).tick()).toEqual([]);
  });

  it('a failed build gives the run back; the next tick builds it', async () => {
    clock.set('2026-11-26T06:30:00.000Z');
    let fail = true;
    const flaky = {
      generate: async (...args: Parameters<BriefingService['generate']>) => {
        if (fail) throw new Error('task store down');
        return briefings.generate(...args);
      },
    };
    const s = schedule('i', { briefings: flaky, users: async () => ['alice'] });
    expect(await s.tick()).toEqual([]);
    expect(await runs.get(T, 'daily-briefing', 'alice:2026-11-26')).toBeUndefined();
    fail = false;
    expect(who(await s.tick())).toEqual(['alice']);
  });

  it('asks the run store once per user and day, not on every tick', async () => {
    let claims = 0;
    const counted = {
      claim: (r: Parameters<InMemoryScheduledRunStore['claim']>[0]) => {
        claims++;
        return runs.claim(r);
      },
      release: runs.release.bind(runs),
      get: runs.get.bind(runs),
    };
    clock.set('2026-11-26T13:00:00.000Z');
    const s = schedule('i', { runs: counted });
    await s.tick();
    expect(claims).toBe(3);
    await s.tick();
    await schedule('other', { runs: counted }).tick(); // another process: asks once, learns all three are taken
    await s.tick();
    expect(claims).toBe(6);
    clock.set('2026-11-27T13:00:00.000Z');
    expect(who(await s.tick())).toEqual(['alice', 'bob', 'carol']);
    expect(claims).toBe(9);
  });

  it('refuses a malformed time', () => {
    expect(() => schedule('i', { at: '7:30' })).toThrow(/HH:MM/);
    expect(parseLocalTime('23:59')).toBe(1439);
    expect(parseLocalTime('24:00')).toBeUndefined();
  });
});

describe('localTime', () => {
  it('gives the local date and time across DST changes', () => {
    expect(localTime(Date.parse('2026-03-29T00:59:59Z'), 'Europe/Berlin')).toEqual({
      date: '2026-03-29',
      hour: 1,
      minute: 59,
    });
    expect(localTime(Date.parse('2026-03-29T01:00:00Z'), 'Europe/Berlin')).toEqual({
      date: '2026-03-29',
      hour: 3,
      minute: 0,
    });
    expect(localTime(Date.parse('2026-11-26T03:00:00Z'), 'America/New_York')).toEqual({
      date: '2026-11-25',
      hour: 22,
      minute: 0,
    });
    expect(localTime(Date.parse('2026-11-26T12:00:00Z'), 'Pacific/Kiritimati')).toEqual({
      date: '2026-11-27',
      hour: 2,
      minute: 0,
    });
  });
});

describe('WorkScheduler', () => {
  function handTimers() {
    const pending = new Map<number, { run: () => void; ms: number }>();
    let next = 0;
    const timers: SchedulerTimers = {
      setTimeout: (run, ms) => {
        pending.set(++next, { run, ms });
        return next;
      },
      clearTimeout: (h) => void pending.delete(h as number),
    };
    return { timers, pending };
  }

  it('runs a round at start, the next one interval after the end of the last, and stops cleanly', async () => {
    const { timers, pending } = handTimers();
    const ran: string[] = [];
    const s = new WorkScheduler({
      timers,
      intervalMs: 15_000,
      jobs: [
        { name: 'a', run: async () => ran.push('a') },
        {
          name: 'b',
          run: async () => {
            ran.push('b');
            throw new Error('b fails; a still runs next round');
          },
        },
      ],
    });
    s.start();
    await s.tick(); // the round start() began
    expect(ran).toEqual(['a', 'b']);
    expect([...pending.values()].map((p) => p.ms)).toEqual([15_000]);
    const [id, timer] = [...pending.entries()][0] ?? expect.unreachable('a timer is pending');
    pending.delete(id);
    timer.run();
    await s.tick();
    expect(ran).toEqual(['a', 'b', 'a', 'b']);
    expect(pending.size).toBe(1);
    await s.stop();
    expect(pending.size).toBe(0);
  });

  it('stop aborts the round in progress and waits for it', async () => {
    const { timers, pending } = handTimers();
    let seen: AbortSignal | undefined;
    let release: () => void = () => {};
    const s = new WorkScheduler({
      timers,
      jobs: [
        {
          name: 'slow',
          run: (signal) => {
            seen = signal;
            return new Promise<void>((resolve) => {
              release = resolve;
            });
          },
        },
        { name: 'after', run: async () => expect.unreachable('runs after stop') },
      ],
    });
    s.start();
    const stopped = s.stop();
    expect(seen?.aborted).toBe(true);
    release();
    await stopped;
    expect(pending.size).toBe(0);
  });
});
