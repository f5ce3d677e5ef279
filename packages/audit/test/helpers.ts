import type {
  AuditCheckpoint,
  AuditEntryInput,
  AuditFilter,
  AuditRecord,
  AuditStore,
  ChainHead,
} from '@agentgov/core';
import { InMemoryAuditStore, InMemorySecretStore, ManualClock, matchesAuditFilter } from '@agentgov/core';
import { generateAuditKeys } from '../src/index';
import { createAuditLog } from '../src/log';

export const KEYS = await generateAuditKeys();

/**
 * Counts the turns of the event loop from now on (a `setImmediate` that schedules itself):
 * `turns()` so far; `stop()` ends the count.
 */
export function turnCounter(): { turns: () => number; stop: () => void } {
  let turns = 0;
  let running = true;
  const tick = () => {
    turns++;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  return {
    turns: () => turns,
    stop: () => {
      running = false;
    },
  };
}

export function secrets(): InMemorySecretStore {
  return new InMemorySecretStore({
    'audit-commitment-key': KEYS.commitmentKey,
    'audit-signing-key': KEYS.signingKey,
  });
}

export function entryInput(overrides: Partial<AuditEntryInput> = {}): AuditEntryInput {
  return {
    tenantId: 't1',
    userId: 'alice',
    actionType: 'tool_invocation',
    actionDetail: { tool: 'tracker_update', ticketId: 'ABC-1' },
    policyApplied: 'default',
    policyResult: 'allow',
    outcome: 'success',
    requestId: 'req-1',
    ...overrides,
  };
}

export function setup(store = new InMemoryAuditStore()) {
  const clock = new ManualClock('2026-01-01T00:00:00Z');
  const s = secrets();
  const log = createAuditLog({ store, secrets: s, clock });
  return { store, clock, secrets: s, log };
}

/**
 * An AuditStore over plain arrays that a test may mutate freely (tamper with rows, reorder,
 * delete). Everything else delegates to simple in-memory logic.
 */
export class RowsStore implements AuditStore {
  constructor(
    readonly rows: AuditRecord[],
    readonly cps: AuditCheckpoint[] = [],
    readonly tenantId = 't1',
  ) {}
  static async from(store: AuditStore, tenantId = 't1'): Promise<RowsStore> {
    const rows: AuditRecord[] = [];
    for await (const r of store.scan(tenantId)) rows.push(r);
    return new RowsStore(rows, await store.checkpoints(tenantId), tenantId);
  }
  async append(): Promise<AuditRecord[]> {
    throw new Error('read-only');
  }
  async head(tenantId: string): Promise<ChainHead | undefined> {
    const last = tenantId === this.tenantId ? this.rows.at(-1) : undefined;
    return last && { seq: last.seq, hash: last.hash };
  }
  async get(tenantId: string, id: string): Promise<AuditRecord | undefined> {
    const r = tenantId === this.tenantId ? this.rows.find((x) => x.entry.id === id) : undefined;
    return r && structuredClone(r);
  }
  async query(): Promise<{ records: AuditRecord[]; total: number }> {
    throw new Error('not used');
  }
  async *scan(
    tenantId: string,
    options: { fromSeq?: number; toSeq?: number; filter?: AuditFilter } = {},
  ): AsyncIterable<AuditRecord> {
    if (tenantId !== this.tenantId) return;
    // Positional like a SQL `ORDER BY seq` over tampered rows would not be: we yield in row
    // order so that reordering tests see the reordered rows.
    for (const r of this.rows) {
      if (options.fromSeq !== undefined && r.seq < options.fromSeq) continue;
      if (options.toSeq !== undefined && r.seq > options.toSeq) continue;
      if (options.filter && !matchesAuditFilter(r, options.filter)) continue;
      yield structuredClone(r);
    }
  }
  async anonymize(): Promise<number> {
    throw new Error('read-only');
  }
  async tenants(): Promise<string[]> {
    return this.rows.length ? [this.tenantId] : [];
  }
  async count(): Promise<number> {
    return this.rows.length;
  }
  async saveCheckpoint(c: AuditCheckpoint): Promise<void> {
    this.cps.push(c);
  }
  async checkpoints(): Promise<AuditCheckpoint[]> {
    return structuredClone(this.cps);
  }
}

/** A RowsStore that also has `scanPages` (the verifier's paged read), in pages of `pageSize` rows. */
export class PagedRowsStore extends RowsStore {
  pageSize = 5;
  async *scanPages(
    tenantId: string,
    options: { fromSeq?: number; toSeq?: number } = {},
  ): AsyncIterable<readonly AuditRecord[]> {
    let page: AuditRecord[] = [];
    for await (const r of this.scan(tenantId, options)) {
      page.push(r);
      if (page.length === this.pageSize) {
        yield page;
        page = [];
      }
    }
    if (page.length > 0) yield page;
  }
}
