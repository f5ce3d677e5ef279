/**
 * The append path of `KyselyAuditStore` (lock modes `row` and `process`): group commit of the
 * appends of one tenant and one function call per group.
 *
 * Appends of one tenant queue in memory (one queue per kysely instance and tenant). While a group
 * is being written, newly arrived appends wait and form the next group, so N concurrent callers
 * cost one round trip, not N. A group is written by ONE autocommit call of `audit_append`
 * (migration 0006) with the records as one JSON parameter: a compare-and-set of the tenant's head
 * row (`audit_chain_heads`: `UPDATE … WHERE seq = <expected> AND hash = <expected>`, or its
 * upsert for an empty chain) and, only when the head moved, the INSERT of the records and of
 * their lookup rows (a group of one plain record on a known head: one prepared statement doing
 * the same compare-and-set and INSERTs, `audit-append-one.ts`). The head row's lock (taken by
 * that UPDATE until the call commits) serializes writers across processes exactly as
 * `SELECT … FOR UPDATE` did; a writer whose
 * expected head is stale matches no row, writes nothing and retries under the locking protocol
 * (`BEGIN; SELECT … FOR UPDATE; build; audit_append; COMMIT`), which always succeeds. The head
 * expected is the one this process last wrote (kept per tenant), so the usual append reads
 * nothing first.
 *
 * Guarantees kept: every record links to the head it is stored after (the CAS makes a stale
 * `build` unstorable); a caller is resolved only after the call that wrote its records has
 * committed; one caller's failing `build` or aborted signal fails that caller alone; when the
 * group's call fails, each caller is retried alone, so one bad record fails only its caller.
 */
import { type AuditRecord, type CallOptions, type ChainHead, checkAppendBatch } from '@agentgov/core';
import type { Kysely, Transaction } from 'kysely';
import { appendRows, insertRecords, lockHead, MAX_CALL_RECORDS, readHead } from './audit-sql';
import type { Database } from './schema';

type Build = (head: ChainHead | undefined) => AuditRecord[] | Promise<AuditRecord[]>;

interface Waiter {
  build: Build;
  options: CallOptions | undefined;
  resolve: (records: AuditRecord[]) => void;
  reject: (error: unknown) => void;
}

/** Records per group call (a group is also cut after MAX_GROUP_CALLERS callers). */
const MAX_GROUP_RECORDS = 3000;
/** Callers per group. */
const MAX_GROUP_CALLERS = 256;

/**
 * Writes a group's records (built on `expected`) when the tenant's head still is `expected`: one
 * `audit_append` call, or for a batch too large for one call the locking protocol with chunked
 * calls. False (nothing written) when the head moved.
 */
async function writeGroup(
  db: Kysely<Database>,
  tenantId: string,
  expected: ChainHead | undefined,
  records: readonly AuditRecord[],
): Promise<boolean> {
  if (records.length <= MAX_CALL_RECORDS) return appendRows(db, tenantId, expected, records);
  return db.transaction().execute(async (trx) => {
    const current = await lockHead(trx, tenantId);
    if (current?.seq !== expected?.seq || current?.hash !== expected?.hash) return false;
    await insertRecords(trx, tenantId, current, records);
    return true;
  });
}

/** A caller's records: built on `head`, checked to link to it and to belong to the tenant. */
async function buildOn(
  tenantId: string,
  waiter: Waiter,
  head: ChainHead | undefined,
): Promise<AuditRecord[]> {
  waiter.options?.signal?.throwIfAborted();
  const records = await waiter.build(head);
  checkAppendBatch(head, records);
  for (const r of records) {
    if (r.entry.tenantId !== tenantId) throw new Error('audit record of another tenant');
  }
  waiter.options?.signal?.throwIfAborted();
  return records;
}

/** The locking protocol for one caller (after a stale head or a failed group). */
async function lockedAppend(
  db: Kysely<Database>,
  tenantId: string,
  build: Build,
  options: CallOptions | undefined,
): Promise<{ records: AuditRecord[]; head: ChainHead | undefined }> {
  return db.transaction().execute(async (trx: Transaction<Database>) => {
    const head = await lockHead(trx, tenantId);
    const records = await buildOn(tenantId, { build, options, resolve() {}, reject() {} }, head);
    if (records.length === 0) return { records, head };
    await insertRecords(trx, tenantId, head, records);
    const last = records.at(-1) as AuditRecord;
    return { records, head: { seq: last.seq, hash: last.hash } };
  });
}

/**
 * The group committer of one kysely instance: a queue per tenant, drained one group at a time
 * (`run` wraps each group's write, e.g. in the per-tenant in-process mutex).
 */
export class AppendGroups {
  readonly #db: Kysely<Database>;
  readonly #run: <T>(tenantId: string, fn: () => Promise<T>) => Promise<T>;
  readonly #queues = new Map<string, Waiter[]>();
  /** The head this process last wrote or read per tenant (a hint: the CAS checks it). */
  readonly #heads = new Map<string, ChainHead | undefined>();

  constructor(db: Kysely<Database>, run: <T>(tenantId: string, fn: () => Promise<T>) => Promise<T>) {
    this.#db = db;
    this.#run = run;
  }

  append(tenantId: string, build: Build, options: CallOptions | undefined): Promise<AuditRecord[]> {
    return new Promise<AuditRecord[]>((resolve, reject) => {
      const waiter: Waiter = { build, options, resolve, reject };
      const queue = this.#queues.get(tenantId);
      if (queue) {
        queue.push(waiter);
        return;
      }
      this.#queues.set(tenantId, [waiter]);
      void this.#drain(tenantId);
    });
  }

  /** Forgets the cached head (after a write this committer did not do, e.g. in tests). */
  forget(tenantId: string): void {
    this.#heads.delete(tenantId);
  }

  async #drain(tenantId: string): Promise<void> {
    const queue = this.#queues.get(tenantId) as Waiter[];
    while (queue.length > 0) {
      const group = queue.splice(0, MAX_GROUP_CALLERS);
      try {
        await this.#run(tenantId, () => this.#write(tenantId, group));
      } catch (error) {
        for (const w of group) w.reject(error);
      }
    }
    this.#queues.delete(tenantId);
  }

  async #head(tenantId: string): Promise<ChainHead | undefined> {
    if (this.#heads.has(tenantId)) return this.#heads.get(tenantId);
    const head = await readHead(this.#db, tenantId);
    this.#heads.set(tenantId, head);
    return head;
  }

  /** Builds every caller's records in turn on one head, writes them in one call. */
  async #write(tenantId: string, group: Waiter[]): Promise<void> {
    const head = await this.#head(tenantId);
    const parts: { waiter: Waiter; records: AuditRecord[] }[] = [];
    const all: AuditRecord[] = [];
    const later: Waiter[] = [];
    let tip = head;
    for (const waiter of group) {
      if (all.length >= MAX_GROUP_RECORDS) {
        later.push(waiter); // the next group
        continue;
      }
      let records: AuditRecord[];
      try {
        records = await buildOn(tenantId, waiter, tip);
      } catch (error) {
        waiter.reject(error);
        continue;
      }
      parts.push({ waiter, records });
      for (const r of records) all.push(r);
      const last = records.at(-1);
      if (last) tip = { seq: last.seq, hash: last.hash };
    }
    if (later.length > 0) (this.#queues.get(tenantId) as Waiter[]).unshift(...later);
    if (parts.length === 0) return;
    let written: boolean;
    try {
      // The records are serialized into the call's JSON parameter (`rowsJson`) before any caller
      // is resolved: what is stored cannot change afterwards, so each caller gets the records
      // its own `build` made (nothing else holds them) instead of a copy of them.
      written = await writeGroup(this.#db, tenantId, head, all);
    } catch (error) {
      this.#heads.delete(tenantId);
      if (parts.length === 1) {
        (parts[0] as { waiter: Waiter }).waiter.reject(error);
        return;
      }
      // The group's call failed: each caller alone, so a bad record fails its caller only.
      await this.#oneByOne(
        tenantId,
        parts.map((p) => p.waiter),
      );
      return;
    }
    if (!written) {
      // Another writer moved the head: the locking protocol, caller by caller.
      this.#heads.delete(tenantId);
      await this.#oneByOne(
        tenantId,
        parts.map((p) => p.waiter),
      );
      return;
    }
    this.#heads.set(tenantId, tip);
    for (const { waiter, records } of parts) waiter.resolve(records);
  }

  async #oneByOne(tenantId: string, waiters: Waiter[]): Promise<void> {
    for (const waiter of waiters) {
      try {
        const { records, head } = await lockedAppend(this.#db, tenantId, waiter.build, waiter.options);
        this.#heads.set(tenantId, head);
        waiter.resolve(records);
      } catch (error) {
        this.#heads.delete(tenantId);
        waiter.reject(error);
      }
    }
  }
}
