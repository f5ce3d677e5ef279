import { byKeys, copy, TenantMap } from '../memory-util';
import type { TaskStore } from './port';
import type { Task, TaskStatus } from './schema';

export class InMemoryTaskStore implements TaskStore {
  readonly #rows = new TenantMap<Task>();
  async put(task: Task): Promise<void> {
    this.#rows.set(task.tenantId, task.id, copy(task));
  }
  async get(tenantId: string, id: string): Promise<Task | undefined> {
    const t = this.#rows.get(tenantId, id);
    return t && copy(t);
  }
  async list(
    tenantId: string,
    filter: { userId?: string; status?: readonly TaskStatus[] } = {},
  ): Promise<Task[]> {
    return this.#rows
      .values(tenantId)
      .filter(
        (t) =>
          (!filter.userId || t.userId === filter.userId) &&
          (!filter.status || filter.status.includes(t.status)),
      )
      .sort(
        byKeys(
          (t) => t.discoveredAt,
          (t) => t.id,
        ),
      )
      .map(copy);
  }
  async delete(tenantId: string, id: string): Promise<boolean> {
    return this.#rows.delete(tenantId, id);
  }
}
