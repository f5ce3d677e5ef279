import type { ClassificationLevel } from '../classification-lattice';
import { byKeys, copy, TenantMap } from '../memory-util';
import type { ClassificationStore } from './port';
import type { DataClassification } from './schema';

export class InMemoryClassificationStore implements ClassificationStore {
  readonly #rows = new TenantMap<DataClassification>();
  async put(record: DataClassification): Promise<void> {
    this.#rows.set(record.tenantId, record.dataRef, copy(record));
  }
  async get(tenantId: string, dataRef: string): Promise<DataClassification | undefined> {
    const r = this.#rows.get(tenantId, dataRef);
    return r && copy(r);
  }
  async list(tenantId: string, filter: { level?: ClassificationLevel } = {}): Promise<DataClassification[]> {
    return this.#rows
      .values(tenantId)
      .filter((r) => !filter.level || r.level === filter.level)
      .sort(byKeys((r) => r.dataRef))
      .map(copy);
  }
}
