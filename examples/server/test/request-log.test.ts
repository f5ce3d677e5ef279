import fc from 'fast-check';
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isoTime } from '../src/request-log';

afterEach(() => {
  vi.useRealTimers();
});

describe('request log time', () => {
  it("writes pino's isoTime text, made again whenever the millisecond changes", () => {
    vi.useFakeTimers();
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 8.64e15 }), { minLength: 1, maxLength: 20 }),
        (times) => {
          for (const ms of times) {
            vi.setSystemTime(ms);
            const expected = pino.stdTimeFunctions.isoTime();
            expect(isoTime()).toBe(expected);
            // again in the same millisecond (the kept text)
            expect(isoTime()).toBe(expected);
          }
        },
      ),
    );
  });
});
