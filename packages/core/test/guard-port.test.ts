import { describe, expect, it } from 'vitest';
import { GovernanceError, guardPort, ManualClock, nowMs, systemClock } from '../src/index';

class Port {
  calls = 0;
  async ok(x: number): Promise<number> {
    this.calls++;
    return x * 2;
  }
  async down(): Promise<number> {
    throw new Error('ECONNREFUSED');
  }
  async typed(): Promise<number> {
    throw new GovernanceError('invalid_type', 'no such thing');
  }
  sync(): number {
    throw new Error('boom');
  }
  *items(): Iterable<number> {
    yield 1;
  }
}

describe('guardPort', () => {
  it('maps a thrown or rejected error to 503 service_unavailable, keeping typed errors', async () => {
    const port = guardPort(new Port(), 'test store');
    expect(await port.ok(2)).toBe(4);
    const down = await port.down().catch((e: unknown) => e);
    expect(down).toBeInstanceOf(GovernanceError);
    expect(down).toMatchObject({ code: 'service_unavailable', message: 'The test store is unavailable' });
    expect((down as Error).cause).toEqual(new Error('ECONNREFUSED'));
    expect(await port.typed().catch((e: unknown) => e)).toMatchObject({
      code: 'invalid_type',
      message: 'no such thing',
    });
    expect(() => port.sync()).toThrow(expect.objectContaining({ code: 'service_unavailable' }));
    expect([...port.items()]).toEqual([1]);
    expect(port.calls).toBe(1);
  });

  it('hands out one wrapper per method, and a new one when the method is replaced', async () => {
    const target = new Port();
    const port = guardPort(target, 'test store');
    const first = port.ok;
    expect(port.ok).toBe(first);
    expect(port.down).not.toBe(first);
    target.ok = async (x: number) => x + 1;
    expect(port.ok).not.toBe(first);
    expect(await port.ok(2)).toBe(3);
    expect(await first(2)).toBe(4); // a wrapper taken earlier still calls the method it wrapped
  });
});

describe('nowMs', () => {
  it('is the clock’s time in ms, with or without a nowMs method', () => {
    const clock = new ManualClock('2025-01-01T00:00:00.000Z');
    clock.advance(1234);
    expect(nowMs(clock)).toBe(clock.now().getTime());
    expect(nowMs({ now: () => new Date(42) })).toBe(42);
    const before = Date.now();
    const t = nowMs(systemClock);
    expect(t).toBeGreaterThanOrEqual(before);
    expect(t).toBeLessThanOrEqual(Date.now());
  });
});
