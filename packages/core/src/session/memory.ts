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
}
