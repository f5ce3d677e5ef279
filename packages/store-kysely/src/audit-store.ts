/**
 * `KyselyAuditStore`: the `AuditStore` port on PostgreSQL / PGlite — appends (group commit in
 * `audit-append.ts`, the SQL in `audit-sql.ts`), lookups and queries, the keyset scans the
 * verifier reads (`audit-pages.ts`), anonymization and checkpoints.
 */
import {
  type AuditCheckpoint,
  type AuditFilter,
  type AuditHashScanOptions,
  type AuditLeaf,
  type AuditRecord,
  type AuditScanOptions,
  type AuditStore,
  type CallOptions,
  type ChainHead,
  checkAppendBatch,
  clonePlain,
  KeyedMutex,
} from '@agentgov/core';
import { type Kysely, sql, type Transaction } from 'kysely';
import { AppendGroups } from './audit-append';
import { hashPages, leafOr, leafPages, recordPages } from './audit-pages';
import { countQuery, getById, insertRecords, lockHead, pageQuery, readHead, toRecord } from './audit-sql';
import type { AuditCheckpointsTable, Database, StoredRow } from './schema';
import { isoFromText, isoText, toNumber } from './sql-util';

const DEFAULT_SCAN_BATCH = 500;
/** Hashes per `scanHashes` round trip when the caller gives no `batchSize`. */
const DEFAULT_HASH_BATCH = 10_000;

/**
 * One per kysely instance: every store over the same database object shares the per-tenant
 * mutex and the group committer (so concurrent appends of one tenant form one group).
 */
const shared = new WeakMap<object, { mutex: KeyedMutex; groups: AppendGroups }>();
function sharedOf(db: Kysely<Database>): { mutex: KeyedMutex; groups: AppendGroups } {
  let s = shared.get(db);
  if (!s) {
    const mutex = new KeyedMutex();
    s = { mutex, groups: new AppendGroups(db, (tenantId, fn) => mutex.run(tenantId, fn)) };
    shared.set(db, s);
  }
  return s;
}

export interface KyselyAuditStoreOptions {
  /**
   * How appends of one tenant are serialized:
   * - `row` (default; PostgreSQL) and `process` (PGlite): appends of one tenant are grouped in
   *   memory (group commit) and each group is written by one `audit_append` call that
   *   compare-and-sets the tenant's `audit_chain_heads` row and inserts the records (see
   *   `audit-append.ts`): the row lock that call takes serializes writers across processes; a writer whose head was stale
   *   writes nothing and retries with `SELECT … FOR UPDATE` held across `build(head)`;
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
 * Appends: concurrent appends of one tenant in this process form one group; `build(head)` of each
 * caller runs in turn on the head the previous one produced, the batch is checked to link to it,
 * and the group is written by one autocommit `audit_append` call that moves the tenant's head in
 * `audit_chain_heads` only from the head the records were built on and inserts them in the same
 * call. A stale head (another process appended) writes nothing; the append is then redone
 * under `SELECT … FOR UPDATE`, `build` called again on the locked head. Callers are resolved only
 * after their call committed. Waiting appends hold no pool connection.
 */
export class KyselyAuditStore implements AuditStore {
  readonly #db: Kysely<Database>;
  readonly #mutex: KeyedMutex;
  readonly #groups: AppendGroups;
  readonly #scanBatch: number;
  readonly #lockMode: 'row' | 'process' | 'transaction';

  constructor(db: Kysely<Database>, options: KyselyAuditStoreOptions = {}) {
    this.#db = db;
    const { mutex, groups } = sharedOf(db);
    this.#mutex = mutex;
    this.#groups = groups;
    this.#lockMode = options.lockMode ?? 'row';
    this.#scanBatch = options.scanBatchSize ?? DEFAULT_SCAN_BATCH;
  }

  append(
    tenantId: string,
    build: (head: ChainHead | undefined) => AuditRecord[] | Promise<AuditRecord[]>,
    options?: CallOptions,
  ): Promise<AuditRecord[]> {
    if (this.#lockMode === 'transaction') return this.#appendIn(this.#db, tenantId, build, options);
    if (options?.signal?.aborted) return Promise.reject(options.signal.reason);
    return this.#groups.append(tenantId, build, options);
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
    await insertRecords(tx, tenantId, head, records);
    return clonePlain(records);
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

  /** Reads one partition: see `getById`. */
  async get(tenantId: string, id: string): Promise<AuditRecord | undefined> {
    const row = await getById(this.#db, tenantId, id);
    return row && toRecord(row);
  }

  async query(
    tenantId: string,
    filter: AuditFilter,
    page: { offset: number; limit: number; order?: 'asc' | 'desc' },
  ): Promise<{ records: AuditRecord[]; total: number }> {
    const [list, count] = await Promise.all([
      pageQuery(tenantId, filter, page).execute(this.#db),
      countQuery(tenantId, filter).execute(this.#db),
    ]);
    return { records: list.rows.map(toRecord), total: toNumber(count.rows[0]?.n ?? 0) };
  }

  /** The records one by one, read a page at a time by `#pages` (see there). */
  async *scan(tenantId: string, options: AuditScanOptions = {}): AsyncIterable<AuditRecord> {
    for await (const records of this.#pages(tenantId, options)) {
      for (const record of records) {
        options.signal?.throwIfAborted();
        yield record;
      }
    }
  }

  /** The records of seq fromSeq..toSeq a page at a time (see `#pages`). */
  scanPages(tenantId: string, options: AuditHashScanOptions = {}): AsyncIterable<AuditRecord[]> {
    return leafOr(
      this.#db,
      () => this.#pages(tenantId, options, true),
      () => this.#pages(tenantId, options, false),
    );
  }

  /**
   * The leaves of seq fromSeq..toSeq a page at a time, for the verifier's leaf check: `seq, id,
   * prev_hash, hash, leaf` only (no entry column read or parsed). A page with a row stored without
   * a leaf (before migration 0009) is read again whole, its records returned as `AuditRecord`s;
   * so is every page of a database not migrated to 0009 yet (no `leaf` column: the read-only CLI
   * verifies it without migrating it).
   */
  scanLeaves(
    tenantId: string,
    options: AuditHashScanOptions = {},
  ): AsyncIterable<readonly (AuditLeaf | AuditRecord)[]> {
    const batch = Math.max(1, options.batchSize ?? this.#scanBatch);
    return leafOr<AuditLeaf | AuditRecord>(
      this.#db,
      () => leafPages(this.#db, tenantId, batch, options),
      () => this.#pages(tenantId, options, false),
    );
  }

  /** Records a page at a time (see `recordPages`), with their leaves when `leaf`. */
  #pages(tenantId: string, options: AuditScanOptions, leaf = false): AsyncIterable<AuditRecord[]> {
    return recordPages(this.#db, tenantId, Math.max(1, options.batchSize ?? this.#scanBatch), options, leaf);
  }

  /**
   * Keyset pages of the `hash` column only, each page aggregated by PostgreSQL into one text value
   * (one row per page, not one per record); the next page is fetched while the caller uses the
   * current one. A page whose stored hashes are not all 64 characters is read again row by row.
   */
  scanHashes(tenantId: string, options: AuditHashScanOptions = {}): AsyncIterable<string[]> {
    return hashPages(this.#db, tenantId, Math.max(1, options.batchSize ?? DEFAULT_HASH_BATCH), options);
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
      SELECT ${CHECKPOINT_COLUMNS}
      FROM audit_checkpoints WHERE tenant_id = ${tenantId} ORDER BY tree_size`.execute(this.#db);
    return rows.map(checkpointOf);
  }

  async latestCheckpoint(tenantId: string): Promise<AuditCheckpoint | undefined> {
    const { rows } = await sql<StoredRow<AuditCheckpointsTable>>`
      SELECT ${CHECKPOINT_COLUMNS}
      FROM audit_checkpoints WHERE tenant_id = ${tenantId} ORDER BY tree_size DESC LIMIT 1`.execute(this.#db);
    const row = rows[0];
    return row && checkpointOf(row);
  }
}

const CHECKPOINT_COLUMNS = sql`tenant_id, tree_size::text AS tree_size_text, root_hash,
  ${isoText('issued_at')} AS issued_at_text, jws`;

function checkpointOf(r: StoredRow<AuditCheckpointsTable>): AuditCheckpoint {
  return {
    tenantId: r.tenant_id,
    treeSize: toNumber(r.tree_size_text),
    rootHash: r.root_hash,
    issuedAt: isoFromText(r.issued_at_text),
    jws: r.jws,
  };
}
