/** Source of the current time; injected everywhere time matters so tests can control it. */
export interface Clock {
  now(): Date;
  /**
   * The current time in ms since the epoch, without making a Date (optional: `nowMs(clock)`
   * falls back to `now().getTime()`). When present it must agree with `now()`.
   */
  nowMs?(): number;
}

/** The clock's time in ms since the epoch: `clock.nowMs()` when it has one, else `now().getTime()`. */
export function nowMs(clock: Clock): number {
  return clock.nowMs ? clock.nowMs() : clock.now().getTime();
}

export const systemClock: Clock = { now: () => new Date(), nowMs: Date.now };

/** A clock that only moves when told to: for tests and deterministic tools. */
export class ManualClock implements Clock {
  #ms: number;
  constructor(start: Date | string | number = 0) {
    this.#ms = new Date(start).getTime();
  }
  now(): Date {
    return new Date(this.#ms);
  }
  nowMs(): number {
    return this.#ms;
  }
  set(to: Date | string | number): void {
    this.#ms = new Date(to).getTime();
  }
  advance(ms: number): void {
    this.#ms += ms;
  }
}
