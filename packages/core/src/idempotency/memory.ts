import { copy } from '../memory-util';
import type { IdempotencyStore } from './port';
import type { IdempotencyBegin, IdempotencyScope, StoredResponse } from './schema';

interface Row {
  fingerprint: string;
  expiresAt: number;
  response?: StoredResponse;
}

const keyOf = (s: IdempotencyScope): string => JSON.stringify([s.tenantId, s.principalId, s.key]);

/** `IdempotencyStore` in one process (the kernel's default). */
export class InMemoryIdempotencyStore implements IdempotencyStore {
  readonly #rows = new Map<string, Row>();

  async begin(
    scope: IdempotencyScope,
    fingerprint: string,
    now: Date,
    lockUntil: Date,
  ): Promise<IdempotencyBegin> {
    const k = keyOf(scope);
    const row = this.#rows.get(k);
    if (row && row.expiresAt > now.getTime()) {
      return row.response
        ? { state: 'completed', fingerprint: row.fingerprint, response: copy(row.response) }
        : { state: 'in_flight', fingerprint: row.fingerprint };
    }
    this.#rows.set(k, { fingerprint, expiresAt: lockUntil.getTime() });
    return { state: 'started' };
  }

  async complete(scope: IdempotencyScope, response: StoredResponse, expiresAt: Date): Promise<void> {
    const row = this.#rows.get(keyOf(scope));
    if (!row) throw new Error('no in-flight request holds this idempotency key');
    row.response = copy(response);
    row.expiresAt = expiresAt.getTime();
  }

  async release(scope: IdempotencyScope): Promise<void> {
    const k = keyOf(scope);
    if (this.#rows.get(k)?.response === undefined) this.#rows.delete(k);
  }

  async deleteExpired(now: Date): Promise<number> {
    let n = 0;
    for (const [k, row] of this.#rows) {
      if (row.expiresAt <= now.getTime()) {
        this.#rows.delete(k);
        n++;
      }
    }
    return n;
  }
}
