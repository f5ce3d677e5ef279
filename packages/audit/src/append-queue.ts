/**
 * Group commit of a log's appends, per tenant: the entries of every `append` / `appendBatch` of a
 * tenant made in the same turn of the event loop (`Promise.all` over appends, the requests read in
 * one turn), or while that tenant's previous write is still in flight (a database round trip),
 * are built and written together: one `build(head)` and one `store.append` call. The first write
 * waits for the end of its turn (`setImmediate`), not just for the microtask checkpoint: a store
 * that answers at once (in memory, embedded PGlite on this thread) is never in flight, and
 * without that wait each request of a busy server would be a write of its own (POST /decisions on
 * embedded PGlite: 2.2k → 5.9k requests/s). Writes of a tenant run one at a time, in call order;
 * different tenants never wait for each other.
 *
 * Each caller's entries were validated and prepared before they were queued (an invalid input
 * fails its own call and never reaches a group), and each caller is settled with its own entries
 * only once the call that wrote them has returned: nothing acknowledged can be missing. A group's
 * write is atomic (the store's contract), so when it fails nothing of it is written: its callers
 * are then written again one by one, each getting its own outcome (a record the database refuses
 * fails only its caller; a store that is down fails each). A caller with an abort signal is
 * written in a call of its own (the store checks that signal).
 */
import type { AuditEntry, AuditRecord, CallOptions } from '@agentgov/core';
import type { LogContext } from './log-context';
import { type Pending, recordBuilder } from './record-builder';

/** How a queued caller is told: its entries as written, or the error of its group's write. */
export type Settle = (entries: AuditEntry[] | undefined, error?: unknown) => void;

interface Waiter {
  entries: readonly Pending[];
  options: CallOptions | undefined;
  settle: Settle;
  /** Written in a call of its own (its group's write failed: it is retried alone). */
  alone?: boolean;
}

interface TenantQueue {
  waiting: Waiter[];
  /** A write is scheduled or in flight: later callers wait for the next group. */
  busy: boolean;
}

/** Entries per group (a caller's own batch is never split: a larger one goes alone). */
const MAX_GROUP_ENTRIES = 1000;

export class AppendQueue {
  readonly #ctx: LogContext;
  readonly #tenants = new Map<string, TenantQueue>();

  constructor(ctx: LogContext) {
    this.#ctx = ctx;
  }

  /**
   * Queues a caller's entries of one tenant (validated and prepared; the log's commitment keys are
   * loaded): written with the others of this checkpoint, `settle` called once.
   */
  push(
    tenantId: string,
    entries: readonly Pending[],
    options: CallOptions | undefined,
    settle: Settle,
  ): void {
    let queue = this.#tenants.get(tenantId);
    if (!queue) {
      queue = { waiting: [], busy: false };
      this.#tenants.set(tenantId, queue);
    }
    queue.waiting.push({ entries, options: options?.signal ? options : undefined, settle });
    if (queue.busy) return;
    queue.busy = true;
    const scheduled = queue;
    // At the end of this turn of the event loop: everything the turn brings (the other requests
    // read in it) joins the group, also when the store answers at once and is never in flight.
    setImmediate(() => this.#write(tenantId, scheduled));
  }

  /** Writes the next group of the tenant's waiting callers; the following group when it returns. */
  #write(tenantId: string, queue: TenantQueue): void {
    const group = takeGroup(queue.waiting);
    if (group.length === 0) {
      queue.busy = false;
      if (this.#tenants.get(tenantId) === queue) this.#tenants.delete(tenantId);
      return;
    }
    const first = group[0] as Waiter;
    let entries = first.entries;
    if (group.length > 1) {
      const all: Pending[] = [];
      for (const w of group) for (const e of w.entries) all.push(e);
      entries = all;
    }
    let written: Promise<AuditRecord[]>;
    try {
      const keys = this.#ctx.loadedKeys();
      if (!keys) throw new Error('audit append queued before the commitment keys were loaded');
      const build = recordBuilder(entries, keys.get(tenantId), this.#ctx);
      written = this.#ctx.store.append(tenantId, build, first.options);
    } catch (error) {
      written = Promise.reject(error);
    }
    written.then(
      (records) => {
        let at = 0;
        for (const w of group) {
          const end = at + w.entries.length;
          const mine: AuditEntry[] = [];
          for (; at < end; at++) mine.push((records[at] as AuditRecord).entry);
          settleSafely(w.settle, mine);
        }
        this.#write(tenantId, queue);
      },
      (error: unknown) => {
        // Atomic: nothing of the group was written. Alone, each caller gets its own outcome (a
        // record the database refuses fails only its caller), in the same order, before the rest.
        if (group.length > 1) {
          for (const w of group) w.alone = true;
          queue.waiting.unshift(...group);
        } else settleSafely(first.settle, undefined, error);
        this.#write(tenantId, queue);
      },
    );
  }
}

/**
 * The leading callers that share one write: those without a signal, up to MAX_GROUP_ENTRIES
 * entries (at least one caller); a caller with a signal goes alone.
 */
function takeGroup(waiting: Waiter[]): Waiter[] {
  if (waiting.length === 0) return [];
  const first = waiting[0] as Waiter;
  if (first.options !== undefined || first.alone || waiting.length === 1) {
    waiting.shift();
    return [first];
  }
  let n = 0;
  let count = 0;
  while (n < waiting.length) {
    const w = waiting[n] as Waiter;
    if (w.options !== undefined || w.alone || (n > 0 && count + w.entries.length > MAX_GROUP_ENTRIES)) break;
    count += w.entries.length;
    n++;
  }
  return waiting.splice(0, n);
}

/** A settle callback never stops the queue (they only resolve promises; this is a guard). */
function settleSafely(settle: Settle, entries: AuditEntry[] | undefined, error?: unknown): void {
  try {
    settle(entries, error);
  } catch {
    // nothing to do: the caller's promise is settled by its own callback
  }
}
