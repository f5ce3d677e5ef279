import {
  createUlidFactory,
  isUlid,
  isUuid,
  KeyedMutex,
  ManualClock,
  newId,
  systemClock,
} from '@agentgov/core';
import { decodeTime } from 'ulid';
import { describe, expect, it } from 'vitest';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const CROCKFORD = /^[0-9A-HJKMNP-TV-Z]{26}$/;

describe('ids', () => {
  it('newId is a lower-case UUID v4, unique', () => {
    const ids = Array.from({ length: 1000 }, newId);
    for (const id of ids) {
      expect(id).toMatch(UUID_V4);
      expect(isUuid(id)).toBe(true);
    }
    expect(new Set(ids).size).toBe(ids.length);
    expect(isUuid('not-a-uuid')).toBe(false);
    expect(isUuid('00000000-0000-0000-0000-000000000000')).toBe(false);
  });

  it('ULIDs are 26 Crockford base-32 characters', () => {
    const next = createUlidFactory();
    const id = next();
    expect(id).toHaveLength(26);
    expect(id).toMatch(CROCKFORD);
    expect(isUlid(id)).toBe(true);
    expect(isUlid(`${id}0`)).toBe(false);
    expect(isUlid('I'.repeat(26))).toBe(false);
  });

  it('10,000 ULIDs within one millisecond (clock not advancing) are strictly increasing', () => {
    const clock = new ManualClock('2025-01-01T00:00:00.000Z');
    const next = createUlidFactory(clock);
    const ids = Array.from({ length: 10_000 }, next);
    for (let i = 1; i < ids.length; i++) expect((ids[i - 1] as string) < (ids[i] as string)).toBe(true);
    expect(new Set(ids).size).toBe(10_000);
    for (const id of [ids[0], ids[9_999]]) expect(decodeTime(id as string)).toBe(clock.now().getTime());
  });

  it('ULIDs are time-ordered across clock advances and carry the clock’s time', () => {
    const clock = new ManualClock('2025-01-01T00:00:00.000Z');
    const next = createUlidFactory(clock);
    const ids: string[] = [];
    for (const step of [1, 1000, 7, 3_600_000, 86_400_000 * 365]) {
      ids.push(next(), next());
      clock.advance(step);
    }
    ids.push(next());
    expect([...ids].sort()).toEqual(ids);
    expect(decodeTime(ids.at(-1) as string)).toBe(clock.now().getTime());
    // A fresh factory on a later clock sorts after every earlier id.
    clock.advance(1);
    expect(createUlidFactory(clock)() > (ids.at(-1) as string)).toBe(true);
  });
});

describe('clocks', () => {
  it('ManualClock only moves when told', () => {
    const clock = new ManualClock('2025-01-01T00:00:00.000Z');
    const t = clock.now().getTime();
    expect(clock.now().getTime()).toBe(t);
    clock.advance(1500);
    expect(clock.now().toISOString()).toBe('2025-01-01T00:00:01.500Z');
    clock.set(0);
    expect(clock.now().getTime()).toBe(0);
    expect(new ManualClock().now().getTime()).toBe(0);
  });
  it('the system clock follows Date.now', () => {
    const before = Date.now();
    const t = systemClock.now().getTime();
    expect(t).toBeGreaterThanOrEqual(before);
    expect(t).toBeLessThanOrEqual(Date.now());
  });
});

const tick = () => new Promise((r) => setTimeout(r, 1));

describe('KeyedMutex', () => {
  it('runs work of one key one at a time, in call order', async () => {
    const mutex = new KeyedMutex();
    const log: string[] = [];
    let active = 0;
    let maxActive = 0;
    const jobs = Array.from({ length: 20 }, (_, i) =>
      mutex.run('k', async () => {
        active++;
        maxActive = Math.max(maxActive, active);
        log.push(`start ${i}`);
        await tick();
        log.push(`end ${i}`);
        active--;
        return i;
      }),
    );
    expect(await Promise.all(jobs)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(maxActive).toBe(1);
    expect(log).toEqual(Array.from({ length: 20 }, (_, i) => [`start ${i}`, `end ${i}`]).flat());
  });

  it('runs work of different keys concurrently', async () => {
    const mutex = new KeyedMutex();
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const blocked = mutex.run('a', () => gate.then(() => 'a'));
    const other = await mutex.run('b', async () => 'b'); // must not wait for 'a'
    expect(other).toBe('b');
    release();
    expect(await blocked).toBe('a');
  });

  it('a failing job rejects its caller but does not block the queue', async () => {
    const mutex = new KeyedMutex();
    const order: number[] = [];
    const failing = mutex.run('k', async () => {
      order.push(1);
      throw new Error('boom');
    });
    const next = mutex.run('k', async () => {
      order.push(2);
      return 'ok';
    });
    await expect(failing).rejects.toThrow('boom');
    expect(await next).toBe('ok');
    expect(order).toEqual([1, 2]);
  });
});
