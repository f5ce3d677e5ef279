import type { InstanceRegistry } from './port';

/** Instances of one process: instance id → expiry (ms since the epoch). */
export class InMemoryInstanceRegistry implements InstanceRegistry {
  readonly #until = new Map<string, number>();
  async heartbeat(instanceId: string, now: Date, ttlMs: number): Promise<void> {
    this.#until.set(instanceId, now.getTime() + ttlMs);
  }
  async countLive(now: Date): Promise<number> {
    let n = 0;
    for (const until of this.#until.values()) if (until > now.getTime()) n++;
    return n;
  }
  async remove(instanceId: string): Promise<void> {
    this.#until.delete(instanceId);
  }
}
