/**
 * The append path of `KyselyAuditStore` (lock modes `row` and `process`): group commit of the
 * appends of one tenant and one statement per group.
 *
 * Appends of one tenant queue in memory (one queue per kysely instance and tenant). While a group
 * is being written, newly arrived appends wait and form the next group, so N concurrent callers
 * cost one round trip, not N. A group is written by ONE autocommit statement: a compare-and-set
 * of the tenant's head row (`audit_chain_heads`: `UPDATE … WHERE seq = <expected> AND hash =
 * <expected>`, or its upsert for an empty chain) and, in the same statement, the INSERT of the
 * records, which inserts nothing unless the head moved. The head row's lock (taken by that UPDATE
 * until the statement commits) serializes writers across processes exactly as `SELECT … FOR
 * UPDATE` did; a writer whose expected head is stale matches no row, writes nothing and retries
 * under the locking protocol (`BEGIN; SELECT … FOR UPDATE; build; INSERT; COMMIT`), which always
 * succeeds. The head expected is the one this process last wrote (kept per tenant), so the usual
 * append reads nothing first.
 *
 * Guarantees kept: every record links to the head it is stored after (the CAS makes a stale
 * `build` unstorable); a caller is resolved only after the statement that wrote its records has
 * committed; one caller's failing `build` or aborted signal fails that caller alone; when the
 * group's statement fails, each caller is retried alone, so one bad record fails only its caller.
 */
import { type AuditRecord, type CallOptions, type ChainHead, checkAppendBatch } from '@agentgov/core';
import { CompiledQuery, type Kysely, type Transaction } from 'kysely';
import { insertRecords, lockHead, readHead } from './audit-sql';
import type { Database } from './schema';

type Build = (head: ChainHead | undefined) => AuditRecord[] | Promise<AuditRecord[]>;

interface Waiter {
  build: Build;
  options: CallOptions | undefined;
  resolve: (records: AuditRecord[]) => void;
  reject: (error: unknown) => void;
}

/** Records per group statement: 19 parameters each stays below PostgreSQL's 65,535 (with room). */
const MAX_STATEMENT_RECORDS = 3000;
/** Callers per group (a group is also cut when its records would exceed MAX_STATEMENT_RECORDS). */
const MAX_GROUP_CALLERS = 256;

const COLUMNS = `tenant_id, seq, id, user_id, "timestamp", action_type, action_detail, data_accessed,
  model_used, model_tokens, data_classification, policy_applied, policy_result, policy_reason, outcome,
  request_id, prev_hash, hash, commitments`;
/** One row's placeholders, typed (the VALUES list is the source of an INSERT … SELECT). */
const ROW_TYPES = [
  'text',
  'bigint',
  'text',
  'text',
  'timestamptz',
  'text',
  'jsonb',
  'jsonb',
  'text',
  'jsonb',
  'text',
  'text',
  'text',
  'text',
  'text',
  'text',
  'text',
  'text',
  'jsonb',
] as const;
const PER_ROW = ROW_TYPES.length;
const HEAD_PARAMS = 5;

/** `VALUES` lists by row count (statement text is built once per count). */
const valuesText = new Map<number, string>();
function valuesOf(n: number): string {
  let text = valuesText.get(n);
  if (text === undefined) {
    const rows: string[] = [];
    for (let r = 0; r < n; r++) {
      const base = HEAD_PARAMS + r * PER_ROW;
      rows.push(`(${ROW_TYPES.map((t, c) => `$${base + c + 1}::${t}`).join(', ')})`);
    }
    text = rows.join(',\n');
    if (n <= 64) valuesText.set(n, text);
  }
  return text;
}

/**
 * $1 tenant, $2 new seq, $3 new hash, $4 expected seq, $5 expected hash. The head moves only from
 * the expected head; the records are inserted only when it did; `moved` is 1 or 0.
 */
function casStatement(n: number, emptyChain: boolean): string {
  const head = emptyChain
    ? `INSERT INTO audit_chain_heads (tenant_id, seq, hash) VALUES ($1, $2::bigint, $3)
       ON CONFLICT (tenant_id) DO UPDATE SET seq = EXCLUDED.seq, hash = EXCLUDED.hash, updated_at = now()
       WHERE audit_chain_heads.seq = $4::bigint AND audit_chain_heads.hash = $5
       RETURNING 1 AS one`
    : `UPDATE audit_chain_heads SET seq = $2::bigint, hash = $3, updated_at = now()
       WHERE tenant_id = $1 AND seq = $4::bigint AND hash = $5
       RETURNING 1 AS one`;
  return `WITH moved AS (${head}),
  inserted AS (INSERT INTO audit_entries (${COLUMNS})
    SELECT v.* FROM (VALUES ${valuesOf(n)}) AS v WHERE EXISTS (SELECT 1 FROM moved) RETURNING 1)
  SELECT (SELECT count(*) FROM moved)::int AS moved, (SELECT count(*) FROM inserted)::int AS inserted`;
}

const json = (value: unknown): string | null =>
  value === null || value === undefined ? null : JSON.stringify(value);

function pushRow(params: unknown[], r: AuditRecord): void {
  const e = r.entry;
  params.push(
    e.tenantId,
    r.seq,
    e.id,
    e.userId,
    e.timestamp,
    e.actionType,
    JSON.stringify(e.actionDetail ?? {}),
    JSON.stringify(e.dataAccessed ?? []),
    e.modelUsed ?? null,
    json(e.modelTokens),
    e.dataClassification,
    e.policyApplied,
    e.policyResult,
    e.policyReason ?? '',
    e.outcome,
    e.requestId,
    r.prevHash,
    r.hash,
    JSON.stringify(r.commitments ?? {}),
  );
}

const ZERO_HASH = '0'.repeat(64);

/**
 * Writes `records` (built on `expected`) in one statement when the tenant's head still is
 * `expected`; false (nothing written) when it moved.
 */
async function compareAndAppend(
  db: Kysely<Database>,
  tenantId: string,
  expected: ChainHead | undefined,
  records: readonly AuditRecord[],
): Promise<boolean> {
  const last = records.at(-1);
  if (!last) return true;
  if (records.length > MAX_STATEMENT_RECORDS) {
    // Too many parameters for one statement: the locking protocol, chunked INSERTs.
    return db.transaction().execute(async (trx) => {
      const current = await lockHead(trx, tenantId);
      if (current?.seq !== expected?.seq || current?.hash !== expected?.hash) return false;
      await insertRecords(trx, tenantId, [...records]);
      return true;
    });
  }
  const params: unknown[] = [tenantId, last.seq, last.hash, expected?.seq ?? 0, expected?.hash ?? ZERO_HASH];
  for (const r of records) pushRow(params, r);
  const { rows } = await db.executeQuery<{ moved: number; inserted: number }>(
    CompiledQuery.raw(casStatement(records.length, expected === undefined), params),
  );
  const row = rows[0];
  if (row?.moved === 1 && row.inserted === records.length) return true;
  if (row?.moved === 0 && row.inserted === 0) return false;
  throw new Error(`audit append of tenant ${tenantId}: unexpected result ${JSON.stringify(row)}`);
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
    await insertRecords(trx, tenantId, records);
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

  /** Builds every caller's records in turn on one head, writes them in one statement. */
  async #write(tenantId: string, group: Waiter[]): Promise<void> {
    const head = await this.#head(tenantId);
    const parts: { waiter: Waiter; records: AuditRecord[] }[] = [];
    const all: AuditRecord[] = [];
    const later: Waiter[] = [];
    let tip = head;
    for (const waiter of group) {
      if (all.length >= MAX_STATEMENT_RECORDS) {
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
      written = await compareAndAppend(this.#db, tenantId, head, all);
    } catch (error) {
      this.#heads.delete(tenantId);
      if (parts.length === 1) {
        (parts[0] as { waiter: Waiter }).waiter.reject(error);
        return;
      }
      // One statement for the group failed: each caller alone, so a bad record fails its caller only.
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
    for (const { waiter, records } of parts) waiter.resolve(structuredClone(records));
  }

  async #oneByOne(tenantId: string, waiters: Waiter[]): Promise<void> {
    for (const waiter of waiters) {
      try {
        const { records, head } = await lockedAppend(this.#db, tenantId, waiter.build, waiter.options);
        this.#heads.set(tenantId, head);
        waiter.resolve(structuredClone(records));
      } catch (error) {
        this.#heads.delete(tenantId);
        waiter.reject(error);
      }
    }
  }
}
