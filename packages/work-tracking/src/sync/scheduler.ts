/**
 * The work-tracking scheduler: runs its jobs (connector pulls, daily briefings) one after the
 * other every `intervalMs`, the next round timed from the end of the previous one, on injected
 * timers (tests fire them by hand: no real waits). `stop` cancels the next round, aborts the one
 * in progress and waits for it to end. A job that throws is logged; the others still run.
 */
import type { Logger } from '@agentgov/core';

/** Timers the scheduler uses (default: the global ones, unref'd so they never keep a process up). */
export interface SchedulerTimers {
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemTimers: SchedulerTimers = {
  setTimeout(run, ms) {
    const t = setTimeout(run, ms);
    t.unref?.();
    return t;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export interface ScheduledJob {
  name: string;
  run(signal: AbortSignal): Promise<unknown>;
}

export interface WorkSchedulerOptions {
  jobs: readonly ScheduledJob[];
  /** Pause between rounds in ms (default 15 000). */
  intervalMs?: number;
  timers?: SchedulerTimers;
  logger?: Logger;
}

export class WorkScheduler {
  readonly #o: WorkSchedulerOptions;
  readonly #timers: SchedulerTimers;
  #handle: unknown;
  #running: Promise<void> | undefined;
  #abort = new AbortController();
  #started = false;
  constructor(options: WorkSchedulerOptions) {
    this.#o = options;
    this.#timers = options.timers ?? systemTimers;
  }

  /** Starts the rounds: the first at once. */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.#abort = new AbortController();
    void this.tick();
  }

  /** Runs one round now (unless one is running: then waits for that one). */
  tick(): Promise<void> {
    this.#running ??= this.#round().finally(() => {
      this.#running = undefined;
      if (this.#started && !this.#abort.signal.aborted) {
        this.#handle = this.#timers.setTimeout(() => void this.tick(), this.#o.intervalMs ?? 15_000);
      }
    });
    return this.#running;
  }

  async stop(): Promise<void> {
    this.#started = false;
    if (this.#handle !== undefined) this.#timers.clearTimeout(this.#handle);
    this.#handle = undefined;
    this.#abort.abort(new Error('scheduler stopped'));
    await this.#running;
  }

  async #round(): Promise<void> {
    if (this.#handle !== undefined) this.#timers.clearTimeout(this.#handle);
    this.#handle = undefined;
    for (const job of this.#o.jobs) {
      const signal = this.#abort.signal;
      if (signal.aborted) return;
      try {
        await job.run(signal);
      } catch (error) {
        if (!signal.aborted)
          this.#o.logger?.error(`scheduled job ${job.name} failed`, { error: String(error) });
      }
    }
  }
}
