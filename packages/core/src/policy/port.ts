import type { Scope, ScopeRef } from '../vocabulary';
import type { Policy, PolicyDomain, PolicyStatus } from './schema';

export interface PolicyFilter {
  scope?: Scope;
  domain?: PolicyDomain;
  /** One status or several; all statuses when absent. */
  status?: PolicyStatus | readonly PolicyStatus[];
  /** Only policies that target one of these nodes. */
  targets?: readonly ScopeRef[];
}

/**
 * Where policies are kept. What `get` and `list` hand out is never shared mutable state with the
 * store: a copy, or a frozen record (writing to it throws) — callers build a new object to change
 * one (`{ ...policy, status }`).
 */
export interface PolicyStore {
  /** Inserts a new policy; throws when the id exists. */
  insert(policy: Policy): Promise<void>;
  /** Replaces the stored policy with the same tenant and id; false when there is none. */
  update(policy: Policy): Promise<boolean>;
  get(tenantId: string, id: string): Promise<Policy | undefined>;
  /** Policies of the tenant matching the filter, ordered by createdAt then id. */
  list(tenantId: string, filter?: PolicyFilter): Promise<Policy[]>;
  count(tenantId: string, filter?: PolicyFilter): Promise<number>;
}
