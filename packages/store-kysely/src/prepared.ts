/**
 * Statements the drivers run as named (prepared) statements: parsed and planned once per
 * connection, then only bound and executed (issue 26: the audit append's calls, whose parse and
 * plan cost about what its writes do).
 *
 * A statement is registered by its exact text (`prepared(text)`, at module load); a driver asks
 * `preparedName(text, schema)` for each query it runs and gets a name only for a registered text.
 * The name is per schema as well: a prepared statement keeps the `search_path` it was planned
 * with, so a connection that serves stores of two schemas holds one statement for each.
 *
 * - PostgreSQL (`createPostgresKysely`): the query goes to pg as `{ name, text, values }` (pg
 *   parses it on the first use on each connection, and again after a failed parse).
 * - PGlite (`PGliteDialect`): one protocol exchange (Parse on first use, then Bind, Execute, Sync)
 *   instead of the six of `PGlite.query` (`pglite-protocol.ts`).
 *
 * The text of a registered statement never changes, its result is one row of scalar columns, and
 * its parameters are strings, finite numbers, booleans or null (what the drivers can send as text
 * without a type lookup); anything else goes the usual way.
 */

const bases = new Map<string, number>();
const schemas = new Map<string, number>();

/** Registers `text` as a prepared statement; returns it unchanged. */
export function prepared(text: string): string {
  if (!bases.has(text)) bases.set(text, bases.size + 1);
  return text;
}

/** The statement name of a registered text in `schema` (undefined: not registered). */
export function preparedName(text: string, schema: string): string | undefined {
  const base = bases.get(text);
  if (base === undefined) return undefined;
  let s = schemas.get(schema);
  if (s === undefined) {
    s = schemas.size + 1;
    schemas.set(schema, s);
  }
  return `agentgov_${base}_${s}`;
}

/** A parameter value as a text-format protocol value, or undefined when it is not a plain scalar. */
export function textValue(value: unknown): string | null | undefined {
  if (value === null) return null;
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
      return Number.isFinite(value) ? String(value) : undefined;
    case 'boolean':
      return value ? 't' : 'f';
    default:
      return undefined;
  }
}
