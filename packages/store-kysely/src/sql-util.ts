import { type RawBuilder, sql } from 'kysely';

/**
 * A timestamptz column as UTC ISO 8601 text with microseconds. Reading the text (not a driver
 * `Date`, which keeps milliseconds only) means a change of even one microsecond stays visible.
 */
export function isoText(column: string): RawBuilder<string> {
  return sql<string>`to_char(${sql.ref(column)} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US')`;
}

/**
 * `YYYY-MM-DDTHH:MM:SS.ffffff` (UTC) → the `Date#toISOString()` form when the value has whole
 * milliseconds, otherwise the 6-digit form (which no longer equals what was hashed).
 */
export function isoFromText(text: string): string {
  return text.endsWith('000') ? `${text.slice(0, -3)}Z` : `${text}Z`;
}

/** `isoFromText` for a nullable column. */
export function isoFromTextOrNull(text: string | null): string | null {
  return text === null ? null : isoFromText(text);
}

/** A JSON value as a jsonb parameter (drivers would turn JS arrays into PostgreSQL arrays). */
export function jsonb<T>(value: T): RawBuilder<T> {
  return value === null || value === undefined ? sql`NULL::jsonb` : sql`${JSON.stringify(value)}::jsonb`;
}

/** `row` without its key columns: what an `UPDATE … WHERE <keys>` sets. */
export function withoutKeys<Row extends object, Key extends keyof Row>(
  row: Row,
  keys: readonly Key[],
): Omit<Row, Key> {
  const rest: Partial<Row> = { ...row };
  for (const key of keys) delete rest[key];
  return rest as Omit<Row, Key>;
}

/**
 * The `DO UPDATE SET` of an upsert that overwrites every column of `row` but the conflict `keys`
 * with the proposed value: `{ c: EXCLUDED.c, … }`.
 */
export function setExcluded<Row extends object, Key extends keyof Row>(
  row: Row,
  keys: readonly Key[],
): { [K in Exclude<keyof Row, Key>]: RawBuilder<Row[K]> } {
  const columns = Object.keys(withoutKeys(row, keys));
  return Object.fromEntries(columns.map((c) => [c, sql.ref(`excluded.${c}`)])) as {
    [K in Exclude<keyof Row, Key>]: RawBuilder<Row[K]>;
  };
}
/** Driver bigint (string in pg, number in PGlite) → number. */
export const toNumber = (value: unknown): number => (typeof value === 'number' ? value : Number(value));

/** Schema used when none is given. */
export const DEFAULT_SCHEMA = 'agentgov';

/** Lower-case SQL identifier accepted as a schema name. */
const SCHEMA_NAME_RE = /^[a-z_][a-z0-9_]{0,62}$/;

export function assertSchemaName(schema: string): void {
  if (!SCHEMA_NAME_RE.test(schema)) {
    throw new Error(
      `invalid schema name '${schema}': use 1–63 characters of a-z, 0-9 and _ (not starting with a digit)`,
    );
  }
}
