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
  const { rows } = await sql<{ partition_name: string; status: string }>`
    SELECT partition_name, status FROM audit_ensure_partitions(${now.toISOString()}::timestamptz, ${PARTITION_MONTHS_AHEAD})`.execute(
    db,
  );
  return {
    created: rows.filter((r) => r.status === 'created').map((r) => r.partition_name),
    blocked: rows.filter((r) => r.status === 'blocked').map((r) => r.partition_name),
  };
}
