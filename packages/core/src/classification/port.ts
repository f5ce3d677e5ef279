import type { ClassificationLevel } from '../classification-lattice';
import type { DataClassification } from './schema';

export interface ClassificationStore {
  /** Inserts or replaces the record of (tenantId, dataRef). */
  put(record: DataClassification): Promise<void>;
  get(tenantId: string, dataRef: string): Promise<DataClassification | undefined>;
  /** Records of the tenant ordered by dataRef. */
  list(tenantId: string, filter?: { level?: ClassificationLevel }): Promise<DataClassification[]>;
}
