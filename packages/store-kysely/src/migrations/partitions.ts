import { type Kysely, sql } from 'kysely';
import type { Database } from '../schema';

/** Months ahead (after the current one) that `ensurePartitions()` and the migration create. */
export const PARTITION_MONTHS_AHEAD = 12;

export interface EnsurePartitionsResult {
  /** Monthly partitions created by this call (`audit_entries_pYYYYMM`). */
  created: string[];
  /**
   * Months not created because the default partition already holds entries of that month
   * (PostgreSQL cannot attach a range the default partition overlaps; those entries stay there).
   */
  blocked: string[];
}

/**
 * Creates the monthly audit partitions of the month of `now` and the 12 following ones when they
 * do not exist yet. Idempotent and safe to run concurrently (an advisory lock serializes it).
 */
export async function ensurePartitions(
  db: Kysely<Database>,
  now: Date = new Date(),
): Promise<EnsurePartitionsResult> {
  if (await allPartitionsExist(db, now)) return { created: [], blocked: [] };
  const { rows } = await sql<{ partition_name: string; status: string }>`
    SELECT partition_name, status FROM audit_ensure_partitions(${now.toISOString()}::timestamptz, ${PARTITION_MONTHS_AHEAD})`.execute(
    db,
  );
  return {
    created: rows.filter((r) => r.status === 'created').map((r) => r.partition_name),
    blocked: rows.filter((r) => r.status === 'blocked').map((r) => r.partition_name),
  };
}

/** `audit_entries_pYYYYMM` of the month of `now` (UTC) and the PARTITION_MONTHS_AHEAD following ones. */
function partitionNames(now: Date): string[] {
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth();
  return Array.from({ length: PARTITION_MONTHS_AHEAD + 1 }, (_, i) => {
    const m = new Date(Date.UTC(year, month + i, 1));
    return `audit_entries_p${m.getUTCFullYear()}${String(m.getUTCMonth() + 1).padStart(2, '0')}`;
  });
}

/**
 * True when every partition `ensurePartitions` would make already exists: one catalog lookup
 * (the usual case at start-up; the partition function's first call on a freshly opened PGlite
 * costs over half a second). Its answer would then be nothing created, nothing blocked.
 */
async function allPartitionsExist(db: Kysely<Database>, now: Date): Promise<boolean> {
  const names = partitionNames(now);
  const { rows } = await sql<{ missing: number }>`
    SELECT count(*)::int AS missing FROM unnest(${names}::text[]) AS n(name)
    WHERE to_regclass(quote_ident(n.name)) IS NULL`.execute(db);
  return rows[0]?.missing === 0;
}

/** The monthly audit partitions (`audit_entries_pYYYYMM`) of `schema`'s `audit_entries`, sorted. */
export async function auditPartitions(db: Kysely<Database>, schema: string): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    SELECT c.relname AS name FROM pg_inherits i
    JOIN pg_class c ON c.oid = i.inhrelid
    JOIN pg_class p ON p.oid = i.inhparent
    JOIN pg_namespace n ON n.oid = p.relnamespace
    WHERE n.nspname = ${schema} AND p.relname = 'audit_entries' AND c.relname ~ '^audit_entries_p[0-9]{6}$'
    ORDER BY 1`.execute(db);
  return rows.map((r) => r.name);
}
