/**
 * The SQL side of `KyselyAuditStore`: how a record maps to its row and back, the query filter,
 * the lookups by id and by request id (pruned to the entries' partitions through the lookup tables
 * of migration 0006), and the SQL of an append: lock or read the tenant's head, and the
 * `audit_append` call that moves the head and inserts the records in one round trip.
 */
import type { AuditEntry, AuditFilter, AuditRecord, ChainHead } from '@agentgov/core';
import { CompiledQuery, type Kysely, type RawBuilder, sql, type Transaction } from 'kysely';
import { APPEND_ONE, oneRowParams } from './audit-append-one';
import { prepared } from './prepared';
import type { AuditChainHeadsTable, AuditEntriesTable, Database, StoredRow } from './schema';
import { isoFromText, isoText, toNumber } from './sql-util';

const ZERO_HASH = '0'.repeat(64);

/** A row as read back; `leaf` only where it was selected (`scanLeaves`), never by `SELECT_COLUMNS`. */
export type AuditRow = Omit<StoredRow<AuditEntriesTable>, 'leaf'> & { leaf?: string | null };

export const SELECT_COLUMNS = sql`tenant_id, seq::text AS seq_text, id, user_id,
  ${isoText('timestamp')} AS timestamp_text, action_type, action_detail, data_accessed, model_used, model_tokens,
  data_classification, policy_applied, policy_result, policy_reason, outcome, request_id, prev_hash, hash, commitments`;

/** What the verifier's leaf check reads of a row (`leafPage`): no entry columns. */
export interface LeafRow {
  seq_text: string;
  id: string;
  prev_hash: string;
  hash: string;
  leaf: string | null;
}

/**
 * One keyset page of a tenant's leaves, seq after..toSeq (`AuditStore.scanLeaves`): the place and
 * the leaf of each row, none of its entry columns.
 */
export function leafPage(tenantId: string, after: number, toSeq: number | undefined, batch: number) {
  const upper = toSeq === undefined ? sql`` : sql` AND seq <= ${toSeq}`;
  return sql<LeafRow>`SELECT seq::text AS seq_text, id, prev_hash, hash, leaf FROM audit_entries
    WHERE tenant_id = ${tenantId} AND seq > ${after}${upper} ORDER BY seq LIMIT ${batch}`;
}

/** Rebuilds the record from its columns (every field comes from the stored bytes). */
export function toRecord(r: AuditRow): AuditRecord {
  const entry = {
    id: r.id,
    tenantId: r.tenant_id,
    userId: r.user_id,
    timestamp: isoFromText(r.timestamp_text),
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
  const record: AuditRecord = {
    entry,
    seq: toNumber(r.seq_text),
    prevHash: r.prev_hash,
    hash: r.hash,
    commitments: r.commitments,
  };
  if (typeof r.leaf === 'string') record.leaf = r.leaf;
  return record;
}

export function whereFilter(tenantId: string, filter: AuditFilter = {}): RawBuilder<unknown> {
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
  // (Read from `entriesOf(tenantId, filter)`, which already narrows to the request's entries.)
  if (filter.requestId !== undefined) parts.push(sql`request_id = ${filter.requestId}`);
  if (filter.from !== undefined) parts.push(sql`"timestamp" >= ${filter.from}::timestamptz`);
  if (filter.to !== undefined) parts.push(sql`"timestamp" <= ${filter.to}::timestamptz`);
  if (filter.toSeq !== undefined) parts.push(sql`seq <= ${filter.toSeq}`);
  return sql.join(parts, sql` AND `);
}

/** One page of a tenant's entries matching `filter`, in seq order (`AuditStore.query`). */
export function pageQuery(
  tenantId: string,
  filter: AuditFilter,
  page: { offset: number; limit: number; order?: 'asc' | 'desc' },
): RawBuilder<AuditRow> {
  const order = page.order === 'desc' ? sql`DESC` : sql`ASC`;
  return sql<AuditRow>`SELECT ${SELECT_COLUMNS} FROM ${entriesOf(tenantId, filter)}
    WHERE ${whereFilter(tenantId, filter)} ORDER BY seq ${order} LIMIT ${Math.max(0, page.limit)} OFFSET ${Math.max(0, page.offset)}`;
}

/** How many of a tenant's entries match `filter` (the `total` of `AuditStore.query`). */
export function countQuery(tenantId: string, filter: AuditFilter): RawBuilder<{ n: string }> {
  return sql<{ n: string }>`SELECT count(*)::text AS n FROM ${entriesOf(tenantId, filter)}
    WHERE ${whereFilter(tenantId, filter)}`;
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const DAY_MS = 24 * 3600 * 1000;

/** The last millisecond of year 9999: no entry's timestamp is later (the input bounds). */
const LAST_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * The milliseconds of a ULID's time; undefined when `id` is not a ULID or its time is beyond a
 * day before what a Date can hold (`audit_ulid_ms` in migration 0006 reads it the same way).
 */
function ulidMs(id: string): number | undefined {
  if (id.length !== 26) return undefined;
  let ms = 0;
  for (let i = 0; i < 10; i++) {
    const digit = CROCKFORD.indexOf((id[i] as string).toUpperCase());
    if (digit < 0) return undefined;
    ms = ms * 32 + digit;
  }
  return ms > 8.64e15 - DAY_MS ? undefined : ms;
}

/** An ISO 8601 date-time with a UTC offset: what `Date.parse` and PostgreSQL read the same way. */
const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/;

/**
 * Whether an entry must be listed in `audit_id_index`: its id does not tell its partition (not a
 * ULID, or the entry's timestamp is not within a day of the id's time, the window `get` reads).
 * When unsure (a timestamp in another format), it is listed: a listed entry is always found.
 */
export function idOutsideItsTime(id: string, timestamp: string): boolean {
  const ms = ulidMs(id);
  if (ms === undefined || !ISO_WITH_OFFSET.test(timestamp)) return true;
  const t = Date.parse(timestamp); // whole ms, truncated: within the window iff the stored value is
  return !(t >= ms - DAY_MS && t < ms + DAY_MS);
}

/**
 * The rows a filtered read of a tenant's entries starts from: `audit_entries`, or, with a request
 * id, that request's entries through `audit_request_index` (their partitions only). The source
 * has the columns of `audit_entries` and its name, so `whereFilter` applies as it is.
 */
export function entriesOf(tenantId: string, filter: AuditFilter = {}): RawBuilder<unknown> {
  if (filter.requestId === undefined) return sql`audit_entries`;
  // A nested loop over the request's lookup rows whose inner side (a LATERAL subquery, kept a
  // subquery by OFFSET 0) reads one entry by primary key: PostgreSQL prunes to that entry's
  // partition at run time whatever its estimates.
  return sql`(SELECT e.* FROM audit_request_index x CROSS JOIN LATERAL (SELECT * FROM audit_entries e
      WHERE e.tenant_id = x.tenant_id AND e.seq = x.seq AND e."timestamp" = x."timestamp" OFFSET 0) e
    WHERE x.tenant_id = ${tenantId} AND x.request_id = ${filter.requestId}) AS audit_entries`;
}

/** The three statements of a get by id; see `getById`. */
export interface GetByIdQueries {
  /** In the partition(s) of the id's day, unless the id is listed (undefined: not a ULID). */
  near: RawBuilder<AuditRow> | undefined;
  /** Through `audit_id_index`: one row per listed key, its entry's columns NULL when not there. */
  listed: RawBuilder<AuditRow>;
  /** Every partition (for a listed entry no longer at its listed key). */
  anywhere: RawBuilder<AuditRow>;
}

/** The statements of a get by id (exported for the EXPLAIN tests). */
export function getByIdQueries(tenantId: string, id: string): GetByIdQueries {
  const ms = ulidMs(id);
  // An id whose day reaches past year 9999 has no entry near it (none is timestamped there, and
  // PostgreSQL would not read the bound's ISO form, +010000-…): only a listed entry can have it.
  const near =
    ms === undefined || ms > LAST_MS - DAY_MS
      ? undefined
      : sql<AuditRow>`SELECT ${SELECT_COLUMNS} FROM audit_entries WHERE tenant_id = ${tenantId} AND id = ${id}
          AND "timestamp" >= ${new Date(ms - DAY_MS).toISOString()}::timestamptz
          AND "timestamp" < ${new Date(ms + DAY_MS).toISOString()}::timestamptz
          AND NOT EXISTS (SELECT 1 FROM audit_id_index WHERE tenant_id = ${tenantId} AND id = ${id})
        ORDER BY seq LIMIT 1`;
  const listed = sql<AuditRow>`SELECT ${SELECT_COLUMNS} FROM (SELECT e.* FROM audit_id_index x
      LEFT JOIN LATERAL (SELECT * FROM audit_entries e
        WHERE e.tenant_id = x.tenant_id AND e.seq = x.seq AND e."timestamp" = x."timestamp" OFFSET 0) e ON TRUE
      WHERE x.tenant_id = ${tenantId} AND x.id = ${id}) AS e
    ORDER BY seq NULLS LAST LIMIT 1`;
  const anywhere = sql<AuditRow>`SELECT ${SELECT_COLUMNS} FROM audit_entries
    WHERE tenant_id = ${tenantId} AND id = ${id} ORDER BY seq LIMIT 1`;
  return { near, listed, anywhere };
}

/**
 * An entry by id, reading one partition. An entry whose id tells its partition (a ULID within a day
 * of the entry's timestamp: every entry the log appends with its own clock) is read from the
 * partition(s) of its id's day, whose time bounds let PostgreSQL prune the others at plan time.
 * Any other entry is listed in `audit_id_index` and read by primary key from its partition (run-time
 * pruning); the id's day is then not read. Only a listed entry no longer at its listed key (its
 * timestamp changed with the triggers disabled) is looked for in every partition, so that a
 * tampered row still reads back as stored.
 */
export async function getById(
  db: Kysely<Database>,
  tenantId: string,
  id: string,
): Promise<AuditRow | undefined> {
  const { near, listed, anywhere } = getByIdQueries(tenantId, id);
  if (near) {
    const row = (await near.execute(db)).rows[0];
    if (row) return row;
  }
  const row = (await listed.execute(db)).rows[0];
  if (row === undefined || row.seq_text !== null) return row; // not listed, or found at its key
  return (await anywhere.execute(db)).rows[0];
}

type HeadRow = Pick<StoredRow<AuditChainHeadsTable>, 'seq_text' | 'hash'>;

/** The tenant's head (undefined for an empty chain), read without locking. */
export async function readHead(db: Kysely<Database>, tenantId: string): Promise<ChainHead | undefined> {
  const { rows } = await sql<HeadRow>`
    SELECT seq::text AS seq_text, hash FROM audit_chain_heads WHERE tenant_id = ${tenantId} AND seq > 0`.execute(
    db,
  );
  const row = rows[0];
  return row && { seq: toNumber(row.seq_text), hash: row.hash };
}

/** Locks (creating on first use) the tenant's head row; the head, or undefined for an empty chain. */
export async function lockHead(trx: Transaction<Database>, tenantId: string): Promise<ChainHead | undefined> {
  const select = sql<HeadRow>`
    SELECT seq::text AS seq_text, hash FROM audit_chain_heads WHERE tenant_id = ${tenantId} FOR UPDATE`;
  let row = (await select.execute(trx)).rows[0];
  if (!row) {
    await trx
      .insertInto('audit_chain_heads')
      .values({ tenant_id: tenantId, seq: 0, hash: ZERO_HASH })
      .onConflict((oc) => oc.column('tenant_id').doNothing())
      .execute();
    row = (await select.execute(trx)).rows[0];
    if (!row) throw new Error(`could not lock the audit chain head of tenant ${tenantId}`);
  }
  const seq = toNumber(row.seq_text);
  return seq === 0 ? undefined : { seq, hash: row.hash };
}

/** The call of every append but the fast path's (constant text, a prepared statement). */
const APPEND_CALL = prepared('SELECT audit_append($1, $2, $3, $4, $5, $6, $7) AS written');

/** Records per `audit_append` call (a bound on the size of its one JSON parameter). */
export const MAX_CALL_RECORDS = 5000;

/**
 * The leaves of the records joined by a line feed (`p_leaves` of `audit_append`, migration 0010),
 * or undefined when a record has no leaf, an empty one, or one holding a line feed (never so for a
 * leaf the log built: canonical JSON escapes control characters): those go in the rows' `l` key.
 */
export function joinedLeaves(records: readonly AuditRecord[]): string | undefined {
  for (const r of records) {
    if (typeof r.leaf !== 'string' || r.leaf.length === 0 || r.leaf.includes('\n')) return undefined;
  }
  return records.map((r) => r.leaf as string).join('\n');
}

/**
 * The records as the JSON rows parameter of `audit_append` (keys: see migration 0006), each
 * record's leaf in `l` unless `withLeaves` is false (they go in `p_leaves`).
 */
function rowsJson(records: readonly AuditRecord[], withLeaves: boolean): string {
  const rows = new Array(records.length);
  for (let i = 0; i < records.length; i++) {
    const r = records[i] as AuditRecord;
    const e = r.entry;
    const row: Record<string, unknown> = {
      s: r.seq,
      i: e.id,
      u: e.userId,
      t: e.timestamp,
      a: e.actionType,
      ad: e.actionDetail ?? {},
      da: e.dataAccessed ?? [],
      mu: e.modelUsed ?? null,
      mt: e.modelTokens ?? null,
      dc: e.dataClassification,
      pa: e.policyApplied,
      pr: e.policyResult,
      pn: e.policyReason ?? '',
      o: e.outcome,
      q: e.requestId,
      ph: r.prevHash,
      h: r.hash,
      c: r.commitments ?? {},
      x: idOutsideItsTime(e.id, e.timestamp),
    };
    if (withLeaves) row.l = r.leaf ?? null;
    rows[i] = row;
  }
  return JSON.stringify(rows);
}

/**
 * One `audit_append` call: moves the tenant's head from `expected` to the last record and inserts
 * the records (and their lookup rows) when the head still was `expected`; false (nothing written)
 * when it was not. The records must link to `expected` (`checkAppendBatch`). One record on a known
 * head goes as one prepared statement (`audit-append-one.ts`) when it is a plain one; the rest
 * through `audit_append`, the leaves as their own parameter when they can (`joinedLeaves`), else
 * in the JSON rows.
 */
export async function appendRows(
  db: Kysely<Database>,
  tenantId: string,
  expected: ChainHead | undefined,
  records: readonly AuditRecord[],
): Promise<boolean> {
  const last = records.at(-1);
  if (!last) return true;
  const one =
    records.length === 1 && expected !== undefined && !idOutsideItsTime(last.entry.id, last.entry.timestamp)
      ? oneRowParams(tenantId, expected, last)
      : undefined;
  if (one) {
    const { rows } = await db.executeQuery<{ written: boolean }>(CompiledQuery.raw(APPEND_ONE, one));
    return rows[0]?.written === true;
  }
  return appendCall(db, tenantId, expected, records);
}

/** `appendRows` through `audit_append` always (the checked path; exported for the property test). */
export async function appendCall(
  db: Kysely<Database>,
  tenantId: string,
  expected: ChainHead | undefined,
  records: readonly AuditRecord[],
): Promise<boolean> {
  const last = records.at(-1);
  if (!last) return true;
  const leaves = joinedLeaves(records);
  const { rows } = await db.executeQuery<{ written: boolean }>(
    CompiledQuery.raw(APPEND_CALL, [
      tenantId,
      expected?.seq ?? 0,
      expected?.hash ?? ZERO_HASH,
      last.seq,
      last.hash,
      rowsJson(records, leaves === undefined),
      leaves ?? null,
    ]),
  );
  return rows[0]?.written === true;
}

/**
 * Inserts the records after `head` and moves the tenant's head, inside the caller's transaction
 * that holds the head row's lock (`lockHead`); chunked for large batches.
 */
export async function insertRecords(
  trx: Transaction<Database>,
  tenantId: string,
  head: ChainHead | undefined,
  records: readonly AuditRecord[],
): Promise<void> {
  let expected = head;
  for (let i = 0; i < records.length; i += MAX_CALL_RECORDS) {
    const chunk = records.slice(i, i + MAX_CALL_RECORDS);
    if (!(await appendRows(trx, tenantId, expected, chunk)))
      throw new Error(`audit append of tenant ${tenantId}: the locked head moved`);
    const last = chunk.at(-1) as AuditRecord;
    expected = { seq: last.seq, hash: last.hash };
  }
}
