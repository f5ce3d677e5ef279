import { ok, type Result } from 'neverthrow';
import type { Clock } from '../clock';
import { systemClock } from '../clock';
import type { GovernanceError } from '../errors';
import { createUlidFactory } from '../ids';
import { KeyedMutex } from '../mutex';
import { clonePlain as copy, frozenClonePlain } from '../plain-clone';
import { parseWith } from '../result';
import type { UndoJournal } from '../unit-of-work/journal';
import type { CallOptions } from '../vocabulary';
import { fastAuditEntry } from './fast-entry';
import type {
  AuditCheckpoint,
  AuditFilter,
  AuditHashScanOptions,
  AuditRecord,
  AuditScanOptions,
  AuditSink,
  AuditStore,
  ChainHead,
} from './port';
import { type AuditEntry, type AuditEntryInput, AuditEntrySchema } from './schema';

/** Whether a record matches an audit filter (shared by every store that filters in memory). */
export function matchesAuditFilter(record: AuditRecord, filter: AuditFilter): boolean {
  return auditFilterTest(filter)(record);
}

/**
 * `matchesAuditFilter` for one filter and many records: the filter's time bounds are parsed and
 * its users gathered once, not once per record.
 */
export function auditFilterTest(filter: AuditFilter): (record: AuditRecord) => boolean {
  const { userId, actionType, policyResult, requestId } = filter;
  // An org admin's read names every user of the org: a set, not a list walked per record.
  const userIds = filter.userIds && new Set(filter.userIds);
  const from = filter.from === undefined ? undefined : Date.parse(filter.from);
  const to = filter.to === undefined ? undefined : Date.parse(filter.to);
  const toSeq = filter.toSeq;
  return (record) => {
    if (toSeq !== undefined && record.seq > toSeq) return false;
    const e = record.entry;
    if (userId !== undefined && e.userId !== userId) return false;
    if (userIds !== undefined && !userIds.has(e.userId)) return false;
    if (actionType !== undefined && e.actionType !== actionType) return false;
    if (policyResult !== undefined && e.policyResult !== policyResult) return false;
    if (requestId !== undefined && e.requestId !== requestId) return false;
    if (from === undefined && to === undefined) return true;
    const t = Date.parse(e.timestamp);
    if (from !== undefined && t < from) return false;
    if (to !== undefined && t > to) return false;
    return true;
  };
}

/** Reads and writes a dotted path (`actionDetail.initiatorUserId`) of a plain object. */
export function getPath(target: unknown, path: string): unknown {
  let cur: unknown = target;
  for (const part of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

export function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let cur: Record<string, unknown> = target;
  for (const part of parts.slice(0, -1)) {
    const next = cur[part];
    if (next === null || typeof next !== 'object') return;
    cur = next as Record<string, unknown>;
  }
  cur[parts.at(-1) as string] = value;
}

/** The identifier paths of a record that hold `userId`: what its GDPR erasure rewrites. */
function pathsHolding(record: AuditRecord, userId: string): string[] {
  const paths = record.entry.userId === userId ? ['userId'] : [];
  for (const path of Object.keys(record.commitments)) {
    if (path.startsWith('actionDetail.') && getPath(record.entry, path) === userId) paths.push(path);
  }
  return paths;
}

/**
 * Rewrites the clear identifiers of one record for GDPR erasure; true when anything changed.
 * Only `entry.userId` and the `actionDetail` paths named in `commitments` are ever touched.
 */
export function anonymizeRecord(record: AuditRecord, userId: string, replacement: string): boolean {
  const paths = pathsHolding(record, userId);
  for (const path of paths) setPath(record.entry as unknown as Record<string, unknown>, path, replacement);
  return paths.length > 0;
}

export function checkAppendBatch(head: ChainHead | undefined, records: readonly AuditRecord[]): void {
  let seq = head?.seq ?? 0;
  let prev = head?.hash ?? '0'.repeat(64);
  for (const r of records) {
    if (r.seq !== seq + 1)
      throw new Error(`audit append out of sequence: expected seq ${seq + 1}, got ${r.seq}`);
    if (r.prevHash !== prev) throw new Error(`audit append does not link to the chain head at seq ${r.seq}`);
    seq = r.seq;
    prev = r.hash;
  }
}

export class InMemoryAuditStore implements AuditStore {
  /** The chains; their records are frozen (`scanPages` hands them out as they are). */
  readonly #chains = new Map<string, AuditRecord[]>();
  readonly #checkpoints = new Map<string, AuditCheckpoint[]>();
  readonly #mutex = new KeyedMutex();
  /** Per tenant, the lock holders and waiters (`#locked` runs) not yet settled. */
  readonly #lockers = new Map<string, number>();

  /**
   * When nothing holds or awaits the tenant's lock and `build` returns its records synchronously
   * (an audit log's does), the whole append runs now, synchronously — nothing can interleave, so
   * that is the lock — and the promise returned is already settled. Otherwise it takes the lock.
   */
  append(
    tenantId: string,
    build: (head: ChainHead | undefined) => AuditRecord[] | Promise<AuditRecord[]>,
    options?: CallOptions,
  ): Promise<AuditRecord[]> {
    if (this.#lockers.has(tenantId))
      return this.#locked(tenantId, () => this.#appendLocked(tenantId, build, options));
    let built: AuditRecord[] | Promise<AuditRecord[]>;
    let head: ChainHead | undefined;
    try {
      options?.signal?.throwIfAborted();
      head = this.#head(tenantId);
      built = build(head);
      if (Array.isArray(built)) return Promise.resolve(this.#store(tenantId, head, built, options));
    } catch (error) {
      return Promise.reject(error);
    }
    // An async build: the lock is held while it runs (the head it was given stays the head).
    const pending = built;
    return this.#locked(tenantId, async () => this.#store(tenantId, head, await pending, options));
  }

  /** `work` under the tenant's lock, counted in `#lockers` until it settles. */
  #locked<T>(tenantId: string, work: () => Promise<T>): Promise<T> {
    this.#lockers.set(tenantId, (this.#lockers.get(tenantId) ?? 0) + 1);
    const release = () => {
      const n = (this.#lockers.get(tenantId) ?? 1) - 1;
      if (n > 0) this.#lockers.set(tenantId, n);
      else this.#lockers.delete(tenantId);
    };
    const result = this.#mutex.run(tenantId, work);
    result.then(release, release);
    return result;
  }

  #head(tenantId: string): ChainHead | undefined {
    const last = this.#chains.get(tenantId)?.at(-1);
    return last && { seq: last.seq, hash: last.hash };
  }

  async #appendLocked(
    tenantId: string,
    build: (head: ChainHead | undefined) => AuditRecord[] | Promise<AuditRecord[]>,
    options?: CallOptions,
  ): Promise<AuditRecord[]> {
    options?.signal?.throwIfAborted();
    const head = this.#head(tenantId);
    return this.#store(tenantId, head, await build(head), options);
  }

  /** Checks the built records against `head` and stores them (the caller holds the lock). */
  #store(
    tenantId: string,
    head: ChainHead | undefined,
    records: AuditRecord[],
    options: CallOptions | undefined,
  ): AuditRecord[] {
    checkAppendBatch(head, records);
    for (const r of records) {
      if (r.entry.tenantId !== tenantId) throw new Error('audit record of another tenant');
    }
    options?.signal?.throwIfAborted();
    // Copies first, then one push: nothing can fail between the checks and the write. The
    // chain keeps its own (frozen) copies, so the built records go back to the caller as they
    // are, as a database store returns them: one copy per record, not two.
    const copies = records.map(frozenClonePlain);
    let chain = this.#chains.get(tenantId);
    if (!chain) {
      chain = [];
      this.#chains.set(tenantId, chain);
    }
    for (const r of copies) chain.push(r);
    return records;
  }

  #anonymizeLocked(tenantId: string, userId: string, replacement: string): number {
    // Copy on write: a stored record is frozen, so a reader holding it never sees it change.
    const chain = this.#chains.get(tenantId) ?? [];
    let n = 0;
    for (let i = 0; i < chain.length; i++) {
      const record = chain[i] as AuditRecord;
      if (pathsHolding(record, userId).length === 0) continue;
      const updated = copy(record);
      anonymizeRecord(updated, userId, replacement);
      chain[i] = frozenClonePlain(updated);
      n++;
    }
    return n;
  }

  /**
   * This store as seen by an in-memory transaction (`InMemoryUnitOfWork`). Its first write to a
   * tenant's chain takes that chain's lock and keeps it until the transaction ends (like the
   * database's row lock), so nothing links onto records a rollback may remove.
   */
  journaled(journal: UndoJournal): AuditStore {
    const held = new Set<string>();
    const hold = async (tenantId: string) => {
      if (held.has(tenantId)) return;
      held.add(tenantId);
      let release = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      journal.onEnd(release);
      await new Promise<void>((acquired) => {
        void this.#locked(tenantId, async () => {
          acquired();
          await released;
        });
      });
    };
    return {
      append: async (tenantId, build, options) => {
        await hold(tenantId);
        const length = this.#chains.get(tenantId)?.length ?? 0;
        const records = await this.#appendLocked(tenantId, build, options);
        journal.record(() => {
          this.#chains.get(tenantId)?.splice(length);
        });
        return records;
      },
      anonymize: async (tenantId, userId, replacement) => {
        await hold(tenantId);
        const chain = this.#chains.get(tenantId) ?? [];
        const before = chain.slice(); // the records are frozen: anonymize replaces, never rewrites
        const n = this.#anonymizeLocked(tenantId, userId, replacement);
        journal.record(() => {
          chain.splice(0, chain.length, ...before);
        });
        return n;
      },
      head: (tenantId) => this.head(tenantId),
      get: (tenantId, id) => this.get(tenantId, id),
      query: (tenantId, filter, page) => this.query(tenantId, filter, page),
      scan: (tenantId, options) => this.scan(tenantId, options),
      scanHashes: (tenantId, options) => this.scanHashes(tenantId, options),
      scanPages: (tenantId, options) => this.scanPages(tenantId, options),
      tenants: () => this.tenants(),
      count: (tenantId) => this.count(tenantId),
      saveCheckpoint: (checkpoint) => this.saveCheckpoint(checkpoint),
      checkpoints: (tenantId) => this.checkpoints(tenantId),
      latestCheckpoint: (tenantId) => this.latestCheckpoint(tenantId),
    };
  }

  async head(tenantId: string): Promise<ChainHead | undefined> {
    return this.#head(tenantId);
  }

  async get(tenantId: string, id: string): Promise<AuditRecord | undefined> {
    const r = this.#chains.get(tenantId)?.find((x) => x.entry.id === id);
    return r && copy(r);
  }

  async query(
    tenantId: string,
    filter: AuditFilter,
    page: { offset: number; limit: number; order?: 'asc' | 'desc' },
  ): Promise<{ records: AuditRecord[]; total: number }> {
    const all = (this.#chains.get(tenantId) ?? []).filter(auditFilterTest(filter));
    if (page.order === 'desc') all.reverse();
    return { records: all.slice(page.offset, page.offset + page.limit).map(copy), total: all.length };
  }

  async *scan(tenantId: string, options: AuditScanOptions = {}): AsyncIterable<AuditRecord> {
    const chain = this.#chains.get(tenantId) ?? [];
    const matches = options.filter && auditFilterTest(options.filter);
    for (const r of chain) {
      options.signal?.throwIfAborted();
      if (options.fromSeq !== undefined && r.seq < options.fromSeq) continue;
      if (options.toSeq !== undefined && r.seq > options.toSeq) break;
      if (matches && !matches(r)) continue;
      yield copy(r);
    }
  }

  async *scanHashes(tenantId: string, options: AuditHashScanOptions = {}): AsyncIterable<string[]> {
    for (const page of this.#pages(tenantId, options, 10_000)) {
      options.signal?.throwIfAborted();
      yield page.map((r) => r.hash);
    }
  }

  /** Pages of the stored (frozen) records themselves: no copy per record. */
  async *scanPages(
    tenantId: string,
    options: AuditHashScanOptions = {},
  ): AsyncIterable<readonly AuditRecord[]> {
    for (const page of this.#pages(tenantId, options, 1000)) {
      options.signal?.throwIfAborted();
      yield page;
    }
  }

  /** Slices of the chain for seq fromSeq..toSeq, `batchSize` (default `size`) records each. */
  *#pages(tenantId: string, options: AuditHashScanOptions, size: number): Iterable<AuditRecord[]> {
    const chain = this.#chains.get(tenantId) ?? [];
    const batch = Math.max(1, options.batchSize ?? size);
    // seq s sits at index s − 1 (the chain is gap-free from 1).
    let i = Math.max(0, (options.fromSeq ?? 1) - 1);
    const end = Math.min(chain.length, options.toSeq ?? chain.length);
    while (i < end) {
      const page = chain.slice(i, Math.min(end, i + batch));
      i += page.length;
      yield page;
    }
  }

  async anonymize(tenantId: string, userId: string, replacement: string): Promise<number> {
    return this.#locked(tenantId, async () => this.#anonymizeLocked(tenantId, userId, replacement));
  }

  async tenants(): Promise<string[]> {
    return [...this.#chains.keys()].filter((t) => (this.#chains.get(t)?.length ?? 0) > 0).sort();
  }

  async count(tenantId?: string): Promise<number> {
    if (tenantId !== undefined) return this.#chains.get(tenantId)?.length ?? 0;
    let n = 0;
    for (const chain of this.#chains.values()) n += chain.length;
    return n;
  }

  async saveCheckpoint(checkpoint: AuditCheckpoint): Promise<void> {
    const list = this.#checkpoints.get(checkpoint.tenantId) ?? [];
    if (list.some((c) => c.treeSize === checkpoint.treeSize)) {
      throw new Error(`checkpoint of tree size ${checkpoint.treeSize} already exists`);
    }
    list.push(copy(checkpoint));
    list.sort((a, b) => a.treeSize - b.treeSize);
    this.#checkpoints.set(checkpoint.tenantId, list);
  }

  async checkpoints(tenantId: string): Promise<AuditCheckpoint[]> {
    return (this.#checkpoints.get(tenantId) ?? []).map(copy);
  }

  async latestCheckpoint(tenantId: string): Promise<AuditCheckpoint | undefined> {
    const last = this.#checkpoints.get(tenantId)?.at(-1);
    return last && copy(last);
  }
}

/** An AuditSink that keeps validated entries in memory (tests, demos). No hash chain. */
export class InMemoryAuditSink implements AuditSink {
  readonly entries: AuditEntry[] = [];
  readonly #clock: Clock;
  readonly #ulid: () => string;
  constructor(clock: Clock = systemClock) {
    this.#clock = clock;
    this.#ulid = createUlidFactory(clock);
  }
  async append(input: AuditEntryInput): Promise<Result<AuditEntry, GovernanceError>> {
    const id = this.#ulid();
    const timestamp = input.timestamp ?? this.#clock.now().toISOString();
    // Our own typed callers' entries take the accept-only fast path (what the schema would
    // return); anything else, every refusal included, is the schema's to judge.
    const fast = fastAuditEntry(input, id, timestamp);
    if (fast) {
      this.entries.push(copy(fast));
      return ok(fast);
    }
    const parsed = parseWith(AuditEntrySchema, {
      ...input,
      id,
      timestamp,
    });
    if (parsed.isErr()) return parsed;
    // The parsed entry is new, but its actionDetail values are the caller's: the kept entry is a
    // copy, the returned one needs none (it shares nothing with what this sink keeps).
    this.entries.push(copy(parsed.value));
    return ok(parsed.value);
  }
}
