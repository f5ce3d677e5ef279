import type { Tenant } from './schema';

export interface TenantStore {
  /** Registers the tenant when unknown (idempotent, race-free); returns the stored record. */
  ensure(tenant: { id: string; name?: string }, now: Date): Promise<Tenant>;
  get(id: string): Promise<Tenant | undefined>;
  /** All tenants, ordered by id. */
  list(): Promise<Tenant[]>;
}
