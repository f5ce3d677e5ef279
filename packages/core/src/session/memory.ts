import { copy } from '../memory-util';
import type { SessionRecord, SessionStore } from './port';

export class InMemorySessionStore implements SessionStore {
  readonly #rows = new Map<string, SessionRecord>();
  async create(session: SessionRecord): Promise<void> {
    if (this.#rows.has(session.idHash)) throw new Error('session already exists');
    this.#rows.set(session.idHash, copy(session));
  }
  async get(idHash: string): Promise<SessionRecord | undefined> {
    const s = this.#rows.get(idHash);
    return s && copy(s);
  }
  async delete(idHash: string): Promise<boolean> {
    return this.#rows.delete(idHash);
  }
  async deleteExpired(now: Date): Promise<number> {
    let n = 0;
    for (const [k, s] of this.#rows) {
      if (Date.parse(s.expiresAt) < now.getTime()) {
        this.#rows.delete(k);
        n++;
      }
    }
    return n;
  }
  async touch(idHash: string, lastSeenAt: string, expiresAt: string): Promise<boolean> {
    const s = this.#rows.get(idHash);
    if (!s) return false;
    this.#rows.set(idHash, { ...s, lastSeenAt, expiresAt });
    return true;
  }
  async listByUser(tenantId: string, userId: string): Promise<SessionRecord[]> {
    return [...this.#rows.values()]
      .filter((s) => s.tenantId === tenantId && s.userId === userId)
      .sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt) || (a.idHash < b.idHash ? -1 : 1))
      .map(copy);
  }
}
