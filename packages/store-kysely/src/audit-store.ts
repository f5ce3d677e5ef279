import {
  type AuditCheckpoint,
  type AuditEntry,
  type AuditFilter,
  type AuditRecord,
  type AuditScanOptions,
  type AuditStore,
  type CallOptions,
  type ChainHead,
  checkAppendBatch,
  KeyedMutex,
} from '@agentgov/core';
import { type Kysely, type RawBuilder, sql, type Transaction } from 'kysely';
import type { Database } from './schema';
import { isoFromText, isoText, jsonb, toNumber } from './sql-util';

const ZERO_HASH = '0'.repeat(64);
/** Rows per INSERT statement: 19 parameters each stays far below PostgreSQL's 65,535. */
const INSERT_CHUNK = 1000;
const DEFAULT_SCAN_BATCH = 500;

interface AuditRow {
  tenant_id: string;
  seq_text: string;
  id: string;
  user_id: string;
  ts: string;
  action_type: string;
  action_detail: Record<string, unknown>;
  data_accessed: unknown[];
  model_used: string | null;
  model_tokens: { input: number; output: number } | null;
  data_classification: string;
  policy_applied: string;
  policy_result: string;
  policy_reason: string;
  outcome: string;
  request_id: string;
  prev_hash: string;
  hash: string;
  commitments: Record<string, string>;
}

const SELECT_COLUMNS = sql`tenant_id, seq::text AS seq_text, id, user_id, ${isoText('timestamp')} AS ts, action_type,
  action_detail, data_accessed, model_used, model_tokens, data_classification, policy_applied,
  policy_result, policy_reason, outcome, request_id, prev_hash, hash, commitments`;

/** Rebuilds the record from its columns (every field comes from the stored bytes). */
function toRecord(r: AuditRow): AuditRecord {
  const entry = {
    id: r.id,
    tenantId: r.tenant_id,
    userId: r.user_id,
    timestamp: isoFromText(r.ts),
    actionType: r.action_type,
    actionDetail: r.action_detail,
    dataAccessed: r.data_accessed,
    modelUsed: r.model_used,
    modelTokens: r.model_tokens,
    dataClassification: r.data_classification,
    policyApplied: r.policy_applied,
    policyResult: r.policy_result,
    policyReason: r.policy_reason,
    outcome: r.outcome,
    requestId: r.request_id,
  } as AuditEntry;
  return {
    entry,
    seq: toNumber(r.seq_text),
    prevHash: r.prev_hash,
    hash: r.hash,
    commitments: r.commitments,
  };
}

function rowValues(r: AuditRecord): RawBuilder<unknown> {
  const e = r.entry;
  return sql`(${e.tenantId}, ${r.seq}, ${e.id}, ${e.userId}, ${e.timestamp}::timestamptz, ${e.actionType},
    ${jsonb(e.actionDetail ?? {})}, ${jsonb(e.dataAccessed ?? [])}, ${e.modelUsed ?? null}, ${jsonb(e.modelTokens ?? null)},
    ${e.dataClassification}, ${e.policyApplied}, ${e.policyResult}, ${e.policyReason ?? ''}, ${e.outcome},
    ${e.requestId}, ${r.prevHash}, ${r.hash}, ${jsonb(r.commitments ?? {})})`;
}

const INSERT_HEAD = sql`INSERT INTO audit_entries (tenant_id, seq, id, user_id, "timestamp", action_type,
  action_detail, data_accessed, model_used, model_tokens, data_classification, policy_applied,
  policy_result, policy_reason, outcome, request_id, prev_hash, hash, commitments) VALUES `;

function whereFilter(tenantId: string, filter: AuditFilter = {}): RawBuilder<unknown> {
  const parts: RawBuilder<unknown>[] = [sql`tenant_id = ${tenantId}`];
  if (filter.userId !== undefined) parts.push(sql`user_id = ${filter.userId}`);
  if (filter.userIds !== undefined) {
    parts.push(
      filter.userIds.length === 0
        ? sql`FALSE`
        : sql`user_id IN (${sql.join(filter.userIds.map((u) => sql`${u}`))})`,
    );
  }
  if (filter.actionType !== undefined) parts.push(sql`action_type = ${filter.actionType}`);
  if (filter.policyResult !== undefined) parts.push(sql`policy_result = ${filter.policyResult}`);
  if (filter.requestId !== undefined) parts.push(sql`request_id = ${filter.requestId}`);
  if (filter.from !== undefined) parts.push(sql`"timestamp" >= ${filter.from}::timestamptz`);
  if (filter.to !== undefined) parts.push(sql`"timestamp" <= ${filter.to}::timestamptz`);
  return sql.join(parts, sql` AND `);
}

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
   *   short write transaction re-checks the head under the row lock.
   */
  lockMode?: 'row' | 'process';
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
  readonly #lockMode: 'row' | 'process';

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
    return this.#mutex.run(tenantId, async () => {
      options?.signal?.throwIfAborted();
      if (this.#lockMode === 'process') {
        // PGlite: one session for the whole process, so holding a transaction open during `build`
        // would stall every other tenant. The per-tenant in-process lock (shared by every store
        // over this kysely instance) already serializes; the write re-checks the head.
        const head = await this.head(tenantId);
        const records = await this.#built(tenantId, head, build, options);
        if (records.length === 0) return [];
        await this.#db.transaction().execute(async (trx) => {
          const current = await lockHead(trx, tenantId);
          if (current?.seq !== head?.seq || current?.hash !== head?.hash) {
            throw new Error(`audit chain head of tenant ${tenantId} moved during append (another writer)`);
          }
          await insertRecords(trx, tenantId, records);
        });
        return structuredClone(records);
      }
      return this.#db.transaction().execute(async (trx) => {
        const head = await lockHead(trx, tenantId);
        const records = await this.#built(tenantId, head, build, options);
        if (records.length === 0) return [];
        await insertRecords(trx, tenantId, records);
        return structuredClone(records);
      });
    });
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

  async head(tenantId: string): Promise<ChainHead | undefined> {
    const { rows } = await sql<{ seq: string; hash: string }>`
      SELECT seq::text AS seq, hash FROM audit_chain_heads WHERE tenant_id = ${tenantId} AND seq > 0`.execute(
      this.#db,
    );
    const row = rows[0];
    return row && { seq: toNumber(row.seq), hash: row.hash };
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
    return this.#mutex.run(tenantId, async () => {
      const { rows } = await sql<{ n: string }>`
        SELECT audit_anonymize(${tenantId}, ${userId}, ${replacement})::text AS n`.execute(this.#db);
      return toNumber(rows[0]?.n ?? 0);
    });
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
    await sql`INSERT INTO audit_checkpoints (tenant_id, tree_size, root_hash, issued_at, jws)
      VALUES (${checkpoint.tenantId}, ${checkpoint.treeSize}, ${checkpoint.rootHash},
              ${checkpoint.issuedAt}::timestamptz, ${checkpoint.jws})`.execute(this.#db);
  }

  async checkpoints(tenantId: string): Promise<AuditCheckpoint[]> {
    const { rows } = await sql<{
      tenant_id: string;
      tree_size_text: string;
      root_hash: string;
      ts: string;
      jws: string;
    }>`
      SELECT tenant_id, tree_size::text AS tree_size_text, root_hash, ${isoText('issued_at')} AS ts, jws
      FROM audit_checkpoints WHERE tenant_id = ${tenantId} ORDER BY tree_size`.execute(this.#db);
    return rows.map((r) => ({
      tenantId: r.tenant_id,
      treeSize: toNumber(r.tree_size_text),
      rootHash: r.root_hash,
      issuedAt: isoFromText(r.ts),
      jws: r.jws,
    }));
  }
}

/** Inserts the records with multi-row INSERTs and moves the tenant's head (inside the caller's transaction). */
async function insertRecords(
  trx: Transaction<Database>,
  tenantId: string,
  records: AuditRecord[],
): Promise<void> {
  const last = records.at(-1);
  if (!last) return;
  for (let i = 0; i < records.length; i += INSERT_CHUNK) {
    const chunk = records.slice(i, i + INSERT_CHUNK);
    const insert = sql`${INSERT_HEAD}${sql.join(chunk.map(rowValues))}`;
    if (i + INSERT_CHUNK >= records.length) {
      // Last (usually only) chunk: insert and move the head in one round trip.
      await sql`WITH inserted AS (${insert} RETURNING 1)
        UPDATE audit_chain_heads SET seq = ${last.seq}, hash = ${last.hash}, updated_at = now()
        WHERE tenant_id = ${tenantId}`.execute(trx);
    } else {
      await insert.execute(trx);
    }
  }
}

/** Locks (creating on first use) the tenant's head row; the head, or undefined for an empty chain. */
async function lockHead(trx: Transaction<Database>, tenantId: string): Promise<ChainHead | undefined> {
  const select = sql<{ seq: string; hash: string }>`
    SELECT seq::text AS seq, hash FROM audit_chain_heads WHERE tenant_id = ${tenantId} FOR UPDATE`;
  let row = (await select.execute(trx)).rows[0];
  if (!row) {
    await sql`INSERT INTO audit_chain_heads (tenant_id, seq, hash) VALUES (${tenantId}, 0, ${ZERO_HASH})
      ON CONFLICT (tenant_id) DO NOTHING`.execute(trx);
    row = (await select.execute(trx)).rows[0];
    if (!row) throw new Error(`could not lock the audit chain head of tenant ${tenantId}`);
  }
  const seq = toNumber(row.seq);
  return seq === 0 ? undefined : { seq, hash: row.hash };
}
