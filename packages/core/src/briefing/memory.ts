import { byKeys, copy, TenantMap } from '../memory-util';
import type { BriefingStore } from './port';
import type { Briefing } from './schema';

export class InMemoryBriefingStore implements BriefingStore {
  readonly #rows = new TenantMap<Briefing>();
  async insert(briefing: Briefing): Promise<void> {
    if (this.#rows.has(briefing.tenantId, briefing.id))
      throw new Error(`briefing ${briefing.id} already exists`);
    this.#rows.set(briefing.tenantId, briefing.id, copy(briefing));
  }
  async get(tenantId: string, id: string): Promise<Briefing | undefined> {
    const b = this.#rows.get(tenantId, id);
    return b && copy(b);
  }
  async latest(tenantId: string, userId: string): Promise<Briefing | undefined> {
    const mine = this.#rows
      .values(tenantId)
      .filter((b) => b.userId === userId)
      .sort(
        byKeys(
          (b) => b.generatedAt,
          (b) => b.id,
        ),
      );
    const last = mine.at(-1);
    return last && copy(last);
  }
  async markDelivered(tenantId: string, id: string, deliveredAt: string): Promise<boolean> {
    const b = this.#rows.get(tenantId, id);
    if (!b) return false;
    b.deliveredAt = deliveredAt;
    return true;
  }
}
