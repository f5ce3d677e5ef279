/**
 * The governed server's A2A task store: the SDK's `TaskStore` contract (tasks scoped to the caller
 * the request authenticated, ListTasks newest first with its page tokens — as the SDK's
 * InMemoryTaskStore answers them), plus what a long-running server needs and the SDK's store does
 * not do: it forgets. A task that ended (completed, failed, canceled, rejected) is kept
 * `retainMs` after it ended (default 1 h: time for its caller to read the result), any task at
 * most `maxAgeMs` (default 24 h, past any human decision window), and never more than `maxTasks`
 * (default 10,000; the oldest ended ones go first, then the oldest). `onEvict` lets the server
 * drop what it keeps beside a task.
 */
import { type ListTasksRequest, type ListTasksResponse, type Task, TaskState } from '@a2a-js/sdk';
import type { ServerCallContext, TaskStore } from '@a2a-js/sdk/server';
import type { Clock } from '@agentgov/core';

export interface TaskRetention {
  /** How long an ended task stays readable, in ms (default 3,600,000). */
  retainMs?: number;
  /** How long any task stays, in ms (default 86,400,000). */
  maxAgeMs?: number;
  /** At most this many tasks (default 10,000). */
  maxTasks?: number;
}

const ENDED: ReadonlySet<TaskState> = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
]);
const DEFAULT_PAGE_SIZE = 50;

interface Kept {
  scope: string;
  task: Task;
  savedAt: number;
  endedAt: number | undefined;
}

/** Whose task it is: the tenant and the authenticated caller of the request (never the body). */
const scopeOf = (context: ServerCallContext): string =>
  `${context.tenant ?? ''}\u0000${context.user?.userName ?? 'unknown'}`;

const pageToken = (task: Task) =>
  Buffer.from(`${task.status?.timestamp ?? ''}|${task.id}`).toString('base64');

export class RetainingTaskStore implements TaskStore {
  readonly #tasks = new Map<string, Kept>();
  readonly #clock: Clock;
  readonly #retainMs: number;
  readonly #maxAgeMs: number;
  readonly #maxTasks: number;
  readonly #onEvict: (taskId: string) => void;

  constructor(options: TaskRetention & { clock: Clock; onEvict?: (taskId: string) => void }) {
    this.#clock = options.clock;
    this.#retainMs = options.retainMs ?? 3_600_000;
    this.#maxAgeMs = options.maxAgeMs ?? 86_400_000;
    this.#maxTasks = Math.max(1, options.maxTasks ?? 10_000);
    this.#onEvict = options.onEvict ?? (() => {});
  }

  /** How many tasks are kept (after forgetting what is due). */
  get size(): number {
    this.#sweep();
    return this.#tasks.size;
  }

  async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    this.#sweep();
    const kept = this.#tasks.get(taskId);
    return kept && kept.scope === scopeOf(context) ? structuredClone(kept.task) : undefined;
  }

  async save(task: Task, context: ServerCallContext): Promise<void> {
    const now = this.#clock.now().getTime();
    const before = this.#tasks.get(task.id);
    const ended = task.status?.state !== undefined && ENDED.has(task.status.state);
    this.#tasks.delete(task.id); // re-inserted last: the map's order is the order of last saves
    this.#tasks.set(task.id, {
      scope: before?.scope ?? scopeOf(context),
      task: structuredClone(task),
      savedAt: before?.savedAt ?? now,
      endedAt: ended ? (before?.endedAt ?? now) : undefined,
    });
    this.#sweep();
  }

  async list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    this.#sweep();
    const scope = scopeOf(context);
    const { contextId, status, statusTimestampAfter, includeArtifacts } = params;
    const pageSize = params.pageSize || DEFAULT_PAGE_SIZE;
    const after = statusTimestampAfter ? new Date(statusTimestampAfter as never).getTime() : undefined;
    let tasks = [...this.#tasks.values()]
      .filter((k) => k.scope === scope)
      .map((k) => k.task)
      .filter(
        (t) =>
          (!contextId || t.contextId === contextId) &&
          (!status || t.status?.state === status) &&
          (after === undefined ||
            (t.status?.timestamp !== undefined && new Date(t.status.timestamp).getTime() > after)),
      )
      .sort((a, b) => {
        const ta = a.status?.timestamp ?? '';
        const tb = b.status?.timestamp ?? '';
        return tb !== ta ? tb.localeCompare(ta) : b.id.localeCompare(a.id);
      });
    const totalSize = tasks.length;
    if (params.pageToken) {
      const at = tasks.findIndex((t) => pageToken(t) === params.pageToken);
      tasks = at === -1 ? [] : tasks.slice(at + 1);
    }
    const page = tasks.slice(0, pageSize);
    const last = page.at(-1);
    return {
      tasks: page.map((t) => {
        const copy = structuredClone(t);
        if (!includeArtifacts) copy.artifacts = [];
        return copy;
      }),
      nextPageToken: last && tasks.length > page.length ? pageToken(last) : '',
      pageSize,
      totalSize,
    };
  }

  #forget(taskId: string): void {
    this.#tasks.delete(taskId);
    this.#onEvict(taskId);
  }

  #lastSweep = Number.NEGATIVE_INFINITY;

  /** Forgets what is due: by age at most once a second, by count whenever over the cap. */
  #sweep(): void {
    const now = this.#clock.now().getTime();
    if (now - this.#lastSweep < 1000 && this.#tasks.size <= this.#maxTasks) return;
    this.#lastSweep = now;
    for (const [id, k] of this.#tasks)
      if ((k.endedAt !== undefined && now - k.endedAt >= this.#retainMs) || now - k.savedAt >= this.#maxAgeMs)
        this.#forget(id);
    if (this.#tasks.size <= this.#maxTasks) return;
    // Over the cap: the ended tasks first, oldest first (the map's order), then the oldest.
    for (const [id, k] of this.#tasks) {
      if (this.#tasks.size <= this.#maxTasks) return;
      if (k.endedAt !== undefined) this.#forget(id);
    }
    for (const id of this.#tasks.keys()) {
      if (this.#tasks.size <= this.#maxTasks) return;
      this.#forget(id);
    }
  }
}
