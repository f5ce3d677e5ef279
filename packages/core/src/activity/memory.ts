import type { ActivityTracker } from './port';

/** Activity of one process: tenant → user → time of the last request (ms since the epoch). */
export class InMemoryActivityTracker implements ActivityTracker {
  readonly #seen = new Map<string, Map<string, number>>();
  async touch(tenantId: string, userId: string, now: Date): Promise<void> {
    let t = this.#seen.get(tenantId);
    if (!t) {
      t = new Map();
      this.#seen.set(tenantId, t);
    }
    t.set(userId, now.getTime());
  }
  async countActive(tenantId: string, since: Date): Promise<number> {
    const t = this.#seen.get(tenantId);
    if (!t) return 0;
    let n = 0;
    for (const [u, at] of t) {
      if (at >= since.getTime()) n++;
      else t.delete(u);
    }
    return n;
  }
}
