import { clonePlain } from './plain-clone';

/**
 * Copies a record in and out of an in-memory store so callers never share mutable state with it
 * (a plain-data deep copy, several times cheaper than `structuredClone`; see ./plain-clone.ts).
 */
export const copy = <T>(value: T): T => clonePlain(value);

export function byKeys<T>(...keys: ((item: T) => string | number)[]) {
  return (a: T, b: T): number => {
    for (const key of keys) {
      const x = key(a);
      const y = key(b);
      if (x < y) return -1;
      if (x > y) return 1;
    }
    return 0;
  };
}

/** A two-level map keyed by tenant, then by id. */
export class TenantMap<V> {
  readonly #data = new Map<string, Map<string, V>>();
  get(tenantId: string, id: string): V | undefined {
    return this.#data.get(tenantId)?.get(id);
  }
  has(tenantId: string, id: string): boolean {
    return this.#data.get(tenantId)?.has(id) ?? false;
  }
  set(tenantId: string, id: string, value: V): void {
    let inner = this.#data.get(tenantId);
    if (!inner) {
      inner = new Map();
      this.#data.set(tenantId, inner);
    }
    inner.set(id, value);
  }
  delete(tenantId: string, id: string): boolean {
    return this.#data.get(tenantId)?.delete(id) ?? false;
  }
  values(tenantId: string): V[] {
    return [...(this.#data.get(tenantId)?.values() ?? [])];
  }
  tenants(): string[] {
    return [...this.#data.keys()].filter((t) => (this.#data.get(t)?.size ?? 0) > 0);
  }
}
