/**
 * The read side of `KyselyAuditStore` for the chain verifier and exports: keyset pagination of
 * an audit chain (`WHERE seq > last ORDER BY seq LIMIT batch`) with the next page prefetched while
 * the caller uses the current one — whole records (`recordPages`), the verifier's leaves
 * (`leafPages`, falling back to whole records for rows stored without a leaf), the `hash` column
 * alone aggregated one text value per page (`hashPages`) — and `leafOr`, which reads a database
 * not migrated to 0009 (no `leaf` column) without the leaf.
 */
import type { AuditHashScanOptions, AuditLeaf, AuditRecord, AuditScanOptions } from '@agentgov/core';
import { type Kysely, sql } from 'kysely';
import {
  type AuditRow,
  entriesOf,
  type LeafRow,
  leafPage,
  SELECT_COLUMNS,
  toRecord,
  whereFilter,
} from './audit-sql';
import type { Database } from './schema';
import { toNumber } from './sql-util';

interface HashPage {
  n: string;
  last_text: string | null;
  hashes: string | null;
}

/** SQLSTATE of a column that does not exist (`leaf` before migration 0009). */
const UNDEFINED_COLUMN = '42703';
/** Kysely instances whose database has no `leaf` column (not migrated to 0009). */
const leafless = new WeakSet<object>();

/**
 * Reads through `withLeaf`, or through `without` when the database has no `leaf` column (not
 * migrated to 0009: the read-only CLI opens it as it is); remembered per kysely instance.
 */
export async function* leafOr<T>(
  db: Kysely<Database>,
  withLeaf: () => AsyncIterable<T[]>,
  without: () => AsyncIterable<T[]>,
): AsyncIterable<T[]> {
  if (!leafless.has(db)) {
    let read = false;
    try {
      for await (const page of withLeaf()) {
        read = true;
        yield page;
      }
      return;
    } catch (error) {
      if (read || (error as { code?: unknown })?.code !== UNDEFINED_COLUMN) throw error;
      leafless.add(db);
    }
  }
  yield* without();
}

/**
 * The leaves of seq fromSeq..toSeq, `batch` at a time: `seq, id, prev_hash, hash, leaf` only. A
 * page with a row stored without a leaf is read again whole, its records returned instead.
 */
export function leafPages(
  db: Kysely<Database>,
  tenantId: string,
  batch: number,
  options: AuditHashScanOptions,
): AsyncIterable<(AuditLeaf | AuditRecord)[]> {
  const whole = (after: number, last: number) =>
    sql<AuditRow>`SELECT ${SELECT_COLUMNS}, leaf FROM audit_entries
      WHERE tenant_id = ${tenantId} AND seq > ${after} AND seq <= ${last} ORDER BY seq`.execute(db);
  return prefetched<LeafRow, AuditLeaf | AuditRecord>(
    batch,
    options,
    (after) => leafPage(tenantId, after, options.toSeq, batch).execute(db),
    async (rows: LeafRow[], after) => {
      const out: (AuditLeaf | AuditRecord)[] = new Array(rows.length);
      for (let i = 0; i < rows.length; i++) {
        const r = rows[i] as LeafRow;
        if (r.leaf === null) {
          const last = toNumber((rows.at(-1) as LeafRow).seq_text);
          return (await whole(after, last)).rows.map(toRecord);
        }
        out[i] = { seq: toNumber(r.seq_text), id: r.id, prevHash: r.prev_hash, hash: r.hash, leaf: r.leaf };
      }
      return out;
    },
  );
}

/**
 * Keyset pages of the records matching `options`, `batch` at a time, with their leaves when
 * `leaf` (what the verifier reads).
 */
export function recordPages(
  db: Kysely<Database>,
  tenantId: string,
  batch: number,
  options: AuditScanOptions,
  leaf = false,
): AsyncIterable<AuditRecord[]> {
  const where = whereFilter(tenantId, options.filter);
  const from = entriesOf(tenantId, options.filter);
  const upper = options.toSeq === undefined ? sql`` : sql` AND seq <= ${options.toSeq}`;
  return prefetched(
    batch,
    options,
    (after) =>
      sql<AuditRow>`SELECT ${SELECT_COLUMNS}${leaf ? sql`, leaf` : sql``} FROM ${from}
        WHERE ${where} AND seq > ${after}${upper} ORDER BY seq LIMIT ${batch}`.execute(db),
    (rows) => rows.map(toRecord),
  );
}

/**
 * Keyset pagination with at most two pages in memory: the next page (`page(last seq)`) is
 * fetched while the caller uses the current one, mapped by `map` (given the page's rows and
 * the seq they follow).
 */
async function* prefetched<R extends { seq_text: string }, T>(
  batch: number,
  options: { fromSeq?: number; signal?: AbortSignal },
  page: (after: number) => Promise<{ rows: R[] }>,
  map: (rows: R[], after: number) => T[] | Promise<T[]>,
): AsyncIterable<T[]> {
  options.signal?.throwIfAborted();
  let after = (options.fromSeq ?? 1) - 1;
  let next: Promise<{ rows: R[] }> | undefined = page(after);
  try {
    while (next) {
      const { rows } = await next;
      next = undefined;
      const last = rows.at(-1);
      if (!last) return;
      const from = after;
      after = toNumber(last.seq_text);
      if (rows.length === batch) {
        options.signal?.throwIfAborted();
        next = page(after);
        next.catch(() => {}); // observed by the next turn; never unhandled if the caller stops
      }
      const mapped = await map(rows, from);
      options.signal?.throwIfAborted();
      yield mapped;
    }
  } finally {
    // A caller that stops early leaves the prefetched page to finish on its own (its rows dropped).
    await next?.catch(() => {});
  }
}

/**
 * Keyset pages of the `hash` column only, `batch` at a time, each page aggregated by PostgreSQL
 * into one text value (one row per page, not one per record); the next page is fetched while the
 * caller uses the current one. A page whose stored hashes are not all 64 characters is read
 * again row by row.
 */
export async function* hashPages(
  db: Kysely<Database>,
  tenantId: string,
  batch: number,
  options: AuditHashScanOptions,
): AsyncIterable<string[]> {
  const upper = options.toSeq === undefined ? sql`` : sql` AND seq <= ${options.toSeq}`;
  const rowsAfter = (after: number) =>
    sql`SELECT seq, hash FROM audit_entries
      WHERE tenant_id = ${tenantId} AND seq > ${after}${upper} ORDER BY seq LIMIT ${batch}`;
  const page = (after: number) =>
    sql<HashPage>`SELECT count(*)::text AS n, max(seq)::text AS last_text,
        string_agg(hash, '' ORDER BY seq) AS hashes
      FROM (${rowsAfter(after)}) AS page`.execute(db);
  options.signal?.throwIfAborted();
  let after = (options.fromSeq ?? 1) - 1;
  let next: ReturnType<typeof page> | undefined = page(after);
  try {
    while (next) {
      const row = (await next).rows[0];
      next = undefined;
      const n = toNumber(row?.n ?? 0);
      if (!row || n === 0 || row.last_text === null || row.hashes === null) return;
      const from = after;
      after = toNumber(row.last_text);
      if (n === batch) {
        options.signal?.throwIfAborted();
        next = page(after);
        next.catch(() => {}); // observed by the next turn; never unhandled if the caller stops
      }
      const text = row.hashes;
      let hashes: string[];
      if (text.length === 64 * n) {
        hashes = new Array<string>(n);
        for (let i = 0; i < n; i++) hashes[i] = text.slice(64 * i, 64 * i + 64);
      } else {
        const { rows } = await sql<{ hash: string }>`${rowsAfter(from)}`.execute(db);
        hashes = rows.map((r) => r.hash);
      }
      options.signal?.throwIfAborted();
      yield hashes;
    }
  } finally {
    await next?.catch(() => {});
  }
}
