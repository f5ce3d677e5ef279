import { copy } from '../memory-util';
import type { ScheduledRun, ScheduledRunStore } from './port';

/** Scheduled runs of one process. */
export class InMemoryScheduledRunStore implements ScheduledRunStore {
  readonly #runs = new Map<string, ScheduledRun>();
  async claim(run: ScheduledRun): Promise<boolean> {
    const k = keyOf(run.tenantId, run.job, run.key);
    if (this.#runs.has(k)) return false;
    this.#runs.set(k, copy(run));
    return true;
  }
  async release(tenantId: string, job: string, key: string): Promise<boolean> {
    return this.#runs.delete(keyOf(tenantId, job, key));
  }
  async get(tenantId: string, job: string, key: string): Promise<ScheduledRun | undefined> {
    const r = this.#runs.get(keyOf(tenantId, job, key));
    return r && copy(r);
  }
}

const keyOf = (tenantId: string, job: string, key: string) => JSON.stringify([tenantId, job, key]);
