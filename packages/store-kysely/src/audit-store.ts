import {
  type AuditCheckpoint,
  type AuditFilter,
  type AuditRecord,
  type AuditScanOptions,
  type AuditStore,
  type CallOptions,
  type ChainHead,
  checkAppendBatch,
  KeyedMutex,
} from '@agentgov/core';
import { type Kysely, sql, type Transaction } from 'kysely';
import {
  type AuditRow,
  insertRecords,
  lockHead,
  readHead,
  SELECT_COLUMNS,
  toRecord,
  whereFilter,
} from './audit-sql';
import type { AuditCheckpointsTable, Database, StoredRow } from './schema';
import { isoFromText, isoText, toNumber } from './sql-util';

const DEFAULT_SCAN_BATCH = 500;

/** One per kysely instance: every store over the same database object shares the per-tenant queue. */
const mutexes = new WeakMap<object, KeyedMutex>();
function mutexOf(db: object): KeyedMutex {
  let m = mutexes.get(db);
  if (!m) {
    m = new KeyedMutex();
    mutexes.set(db, m);
  }
  return m;
}

export interface KyselyAuditStoreOptions {
  /**
   * How appends of one tenant are serialized:
   * - `row` (default; PostgreSQL): the tenant's `audit_chain_heads` row is locked with
   *   `SELECT … FOR UPDATE` for the whole append, `build(head)` included — safe across processes;
   * - `process` (PGlite, whose data directory only one process can open): an in-process per-tenant
   *   queue; `build` runs outside the transaction so other tenants never wait for it, and the
   *   short write transaction re-checks the head under the row lock (and builds again on the new
   *   head when a transaction of the unit of work appended in between);
   * - `transaction`: the kysely instance is already a transaction (`KyselyUnitOfWork`): the head
   *   row lock alone serializes, held until that transaction ends; no in-process queue (waiting on
   *   it while holding the transaction's connection could deadlock).
   */
  lockMode?: 'row' | 'process' | 'transaction';
  /** Rows fetched per `scan` round trip when the caller gives no `batchSize` (default 500). */
  scanBatchSize?: number;
}

/**
 * `AuditStore` on PostgreSQL / PGlite. The kysely instance must run its queries in the schema the
 * migrations created (see `createPostgresKysely` / `createPGliteKysely`, which set `search_path`).
 *
 * Appends: one transaction per call — lock the tenant's row in `audit_chain_heads`
 * (`SELECT … FOR UPDATE`, created on first use), call `build(head)` inside the lock, check the
 * batch links to the head, insert all records with multi-row INSERTs and move the head. The row
 * lock serializes appends of one tenant across every process sharing the database; appends of one
 * process are first queued per tenant in memory so waiting appends do not hold pool connections.
 */
export class KyselyAuditStore implements AuditStore {
  readonly #db: Kysely<Database>;
  readonly #mutex: KeyedMutex;
  readonly #scanBatch: number;
  readonly #lockMode: 'row' | 'process' | 'transaction';

  constructor(db: Kysely<Database>, options: KyselyAuditStoreOptions = {}) {
    this.#db = db;
    this.#mutex = mutexOf(db);
    this.#lockMode = options.lockMode ?? 'row';
    this.#scanBatch = options.scanBatchSize ?? DEFAULT_SCAN_BATCH;
  }

  append(
    tenantId: string,
    build: (head: ChainHead | undefined) => AuditRecord[] | Promise<AuditRecord[]>,
    options?: CallOptions,
  ): Promise<AuditRecord[]> {
    if (this.#lockMode === 'transaction') return this.#appendIn(this.#db, tenantId, build, options);
    return this.#mutex.run(tenantId, async () => {
      options?.signal?.throwIfAborted();
      if (this.#lockMode === 'process') {
        // PGlite: one session for the whole process, so holding a transaction open during `build`
        // would stall every other tenant. The per-tenant in-process lock (shared by every store
        // over this kysely instance) serializes the plain appends; the write re-checks the head,
        // and builds again when a unit-of-work transaction appended in between.
        for (let attempt = 1; ; attempt++) {
          const head = await this.head(tenantId);
          const records = await this.#built(tenantId, head, build, options);
          if (records.length === 0) return [];
          const written = await this.#db.transaction().execute(async (trx) => {
            const current = await lockHead(trx, tenantId);
            if (current?.seq !== head?.seq || current?.hash !== head?.hash) return false;
            await insertRecords(trx, tenantId, records);
            return true;
          });
          if (written) return structuredClone(records);
          if (attempt >= 5) {
            throw new Error(`audit chain head of tenant ${tenantId} moved during append (another writer)`);
          }
        }
      }
      return this.#db.transaction().execute((trx) => this.#appendIn(trx, tenantId, build, options));
    });
  }

  /** Locks the tenant's head row in `trx`, builds on it, inserts the records. */
  async #appendIn(
    trx: Kysely<Database>,
    tenantId: string,
    build: (head: ChainHead | undefined) => AuditRecord[] | Promise<AuditRecord[]>,
    options?: CallOptions,
  ): Promise<AuditRecord[]> {
    options?.signal?.throwIfAborted();
    const tx = trx as Transaction<Database>;
    const head = await lockHead(tx, tenantId);
    const records = await this.#built(tenantId, head, build, options);
    if (records.length === 0) return [];
    await insertRecords(tx, tenantId, records);
    return structuredClone(records);
  }

  async #built(
    tenantId: string,
    head: ChainHead | undefined,
    build: (head: ChainHead | undefined) => AuditRecord[] | Promise<AuditRecord[]>,
    options?: CallOptions,
  ): Promise<AuditRecord[]> {
    const records = await build(head);
    checkAppendBatch(head, records);
    for (const r of records) {
      if (r.entry.tenantId !== tenantId) throw new Error('audit record of another tenant');
    }
    options?.signal?.throwIfAborted();
    return records;
  }

  head(tenantId: string): Promise<ChainHead | undefined> {
    return readHead(this.#db, tenantId);
  }

  async get(tenantId: string, id: string): Promise<AuditRecord | undefined> {
    const { rows } = await sql<AuditRow>`SELECT ${SELECT_COLUMNS} FROM audit_entries
      WHERE tenant_id = ${tenantId} AND id = ${id} ORDER BY seq LIMIT 1`.execute(this.#db);
    const row = rows[0];
    return row && toRecord(row);
  }

  async query(
    tenantId: string,
    filter: AuditFilter,
    page: { offset: number; limit: number; order?: 'asc' | 'desc' },
  ): Promise<{ records: AuditRecord[]; total: number }> {
    const where = whereFilter(tenantId, filter);
    const order = page.order === 'desc' ? sql`DESC` : sql`ASC`;
    const [list, count] = await Promise.all([
      sql<AuditRow>`SELECT ${SELECT_COLUMNS} FROM audit_entries WHERE ${where}
        ORDER BY seq ${order} LIMIT ${Math.max(0, page.limit)} OFFSET ${Math.max(0, page.offset)}`.execute(
        this.#db,
      ),
      sql<{ n: string }>`SELECT count(*)::text AS n FROM audit_entries WHERE ${where}`.execute(this.#db),
    ]);
    return { records: list.rows.map(toRecord), total: toNumber(count.rows[0]?.n ?? 0) };
  }

  /** Keyset pagination: `WHERE seq > last ORDER BY seq LIMIT batch`, one page in memory at a time. */
  async *scan(tenantId: string, options: AuditScanOptions = {}): AsyncIterable<AuditRecord> {
    const batch = Math.max(1, options.batchSize ?? this.#scanBatch);
    const where = whereFilter(tenantId, options.filter);
    let last = (options.fromSeq ?? 1) - 1;
    for (;;) {
      options.signal?.throwIfAborted();
      const upper = options.toSeq === undefined ? sql`` : sql` AND seq <= ${options.toSeq}`;
      const { rows } = await sql<AuditRow>`SELECT ${SELECT_COLUMNS} FROM audit_entries
        WHERE ${where} AND seq > ${last}${upper} ORDER BY seq LIMIT ${batch}`.execute(this.#db);
      for (const row of rows) {
        options.signal?.throwIfAborted();
        const record = toRecord(row);
        last = record.seq;
        yield record;
      }
      if (rows.length < batch) return;
    }
  }

  /**
   * Goes through `audit_anonymize()` in SQL (the only path the append-only trigger lets through):
   * rewrites `user_id` and the committed `actionDetail` paths equal to `userId`, nothing else.
   */
  async anonymize(tenantId: string, userId: string, replacement: string): Promise<number> {
    const run = async () => {
      const { rows } = await sql<{ n: string }>`
        SELECT audit_anonymize(${tenantId}, ${userId}, ${replacement})::text AS n`.execute(this.#db);
      return toNumber(rows[0]?.n ?? 0);
    };
    return this.#lockMode === 'transaction' ? run() : this.#mutex.run(tenantId, run);
  }

  async tenants(): Promise<string[]> {
    const { rows } = await sql<{ tenant_id: string }>`
      SELECT tenant_id FROM audit_chain_heads WHERE seq > 0 ORDER BY tenant_id COLLATE "C"`.execute(this.#db);
    return rows.map((r) => r.tenant_id);
  }

  async count(tenantId?: string): Promise<number> {
    const where = tenantId === undefined ? sql`TRUE` : sql`tenant_id = ${tenantId}`;
    const { rows } = await sql<{
      n: string;
    }>`SELECT count(*)::text AS n FROM audit_entries WHERE ${where}`.execute(this.#db);
    return toNumber(rows[0]?.n ?? 0);
  }

  async saveCheckpoint(checkpoint: AuditCheckpoint): Promise<void> {
    await this.#db
      .insertInto('audit_checkpoints')
      .values({
        tenant_id: checkpoint.tenantId,
        tree_size: checkpoint.treeSize,
        root_hash: checkpoint.rootHash,
        issued_at: checkpoint.issuedAt,
        jws: checkpoint.jws,
      })
      .execute();
  }

  async checkpoints(tenantId: string): Promise<AuditCheckpoint[]> {
    const { rows } = await sql<StoredRow<AuditCheckpointsTable>>`
      SELECT tenant_id, tree_size::text AS tree_size_text, root_hash, ${isoText('issued_at')} AS issued_at_text, jws
      FROM audit_checkpoints WHERE tenant_id = ${tenantId} ORDER BY tree_size`.execute(this.#db);
    return rows.map((r) => ({
      tenantId: r.tenant_id,
      treeSize: toNumber(r.tree_size_text),
      rootHash: r.root_hash,
      issuedAt: isoFromText(r.issued_at_text),
      jws: r.jws,
    }));
  }
}
