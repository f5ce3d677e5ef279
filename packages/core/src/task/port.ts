import type { Task, TaskStatus } from './schema';

export interface TaskStore {
  /** Inserts or replaces by (tenantId, id). */
  put(task: Task): Promise<void>;
  get(tenantId: string, id: string): Promise<Task | undefined>;
  /** Tasks of the tenant (optionally of one user / statuses) ordered by discoveredAt then id. */
  list(tenantId: string, filter?: { userId?: string; status?: readonly TaskStatus[] }): Promise<Task[]>;
  /** Permanently deletes (retention purge); false when absent. */
  delete(tenantId: string, id: string): Promise<boolean>;
}
