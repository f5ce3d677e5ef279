/**
 * The SQL side of `KyselyAuditStore`: how a record maps to its row and back, the query filter,
 * and the two statements of an append (lock the tenant's head, insert the records and move it).
 */
import type { AuditEntry, AuditFilter, AuditRecord, ChainHead } from '@agentgov/core';
import { type Insertable, type Kysely, type RawBuilder, sql, type Transaction } from 'kysely';
import type { AuditChainHeadsTable, AuditEntriesTable, Database, StoredRow } from './schema';
import { isoFromText, isoText, jsonb, toNumber } from './sql-util';

const ZERO_HASH = '0'.repeat(64);
/** Rows per INSERT statement: 19 parameters each stays far below PostgreSQL's 65,535. */
const INSERT_CHUNK = 1000;

export type AuditRow = StoredRow<AuditEntriesTable>;

export const SELECT_COLUMNS = sql`tenant_id, seq::text AS seq_text, id, user_id,
  ${isoText('timestamp')} AS timestamp_text, action_type, action_detail, data_accessed, model_used, model_tokens,
  data_classification, policy_applied, policy_result, policy_reason, outcome, request_id, prev_hash, hash, commitments`;

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
  return {
    entry,
    seq: toNumber(r.seq_text),
    prevHash: r.prev_hash,
    hash: r.hash,
    commitments: r.commitments,
  };
}

function auditRow(r: AuditRecord): Insertable<AuditEntriesTable> {
  const e = r.entry;
  return {
    tenant_id: e.tenantId,
    seq: r.seq,
    id: e.id,
    user_id: e.userId,
    timestamp: e.timestamp,
    action_type: e.actionType,
    action_detail: jsonb(e.actionDetail ?? {}),
    data_accessed: jsonb(e.dataAccessed ?? []),
    model_used: e.modelUsed ?? null,
    model_tokens: jsonb(e.modelTokens ?? null),
    data_classification: e.dataClassification,
    policy_applied: e.policyApplied,
    policy_result: e.policyResult,
    policy_reason: e.policyReason ?? '',
    outcome: e.outcome,
    request_id: e.requestId,
    prev_hash: r.prevHash,
    hash: r.hash,
    commitments: jsonb(r.commitments ?? {}),
  };
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
  if (filter.requestId !== undefined) parts.push(sql`request_id = ${filter.requestId}`);
  if (filter.from !== undefined) parts.push(sql`"timestamp" >= ${filter.from}::timestamptz`);
  if (filter.to !== undefined) parts.push(sql`"timestamp" <= ${filter.to}::timestamptz`);
  return sql.join(parts, sql` AND `);
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const DAY_MS = 24 * 3600 * 1000;

/** The time window (±1 day) around a ULID's timestamp; undefined when `id` is not a ULID. */
function ulidWindow(id: string): { from: string; to: string } | undefined {
  if (id.length !== 26) return undefined;
  let ms = 0;
  for (let i = 0; i < 10; i++) {
    const digit = CROCKFORD.indexOf((id[i] as string).toUpperCase());
    if (digit < 0) return undefined;
    ms = ms * 32 + digit;
  }
  if (ms > 8.64e15 - DAY_MS) return undefined; // beyond what a Date can hold
  return { from: new Date(ms - DAY_MS).toISOString(), to: new Date(ms + DAY_MS).toISOString() };
}

/**
 * The lookup of an entry by id within a day of the id's ULID time (undefined for a non-ULID id):
 * the time bounds let PostgreSQL read only the partition(s) of that day.
 */
export function getByIdNearItsTime(tenantId: string, id: string): RawBuilder<AuditRow> | undefined {
  const window = ulidWindow(id);
  if (!window) return undefined;
  return sql<AuditRow>`SELECT ${SELECT_COLUMNS} FROM audit_entries
    WHERE tenant_id = ${tenantId} AND id = ${id}
      AND "timestamp" >= ${window.from}::timestamptz AND "timestamp" < ${window.to}::timestamptz
    ORDER BY seq LIMIT 1`;
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

/** Inserts the records with multi-row INSERTs and moves the tenant's head (inside the caller's transaction). */
export async function insertRecords(
  trx: Transaction<Database>,
  tenantId: string,
  records: AuditRecord[],
): Promise<void> {
  const last = records.at(-1);
  if (!last) return;
  for (let i = 0; i < records.length; i += INSERT_CHUNK) {
    const rows = records.slice(i, i + INSERT_CHUNK).map(auditRow);
    if (i + INSERT_CHUNK >= records.length) {
      // Last (usually only) chunk: insert and move the head in one round trip.
      await trx
        .with('inserted', (db) => db.insertInto('audit_entries').values(rows).returning(sql`1`.as('one')))
        .updateTable('audit_chain_heads')
        .set({ seq: last.seq, hash: last.hash, updated_at: sql<string>`now()` })
        .where('tenant_id', '=', tenantId)
        .execute();
    } else {
      await trx.insertInto('audit_entries').values(rows).execute();
    }
  }
}
