/**
 * `agentgov db migrate --database URL|DIR [--schema NAME] [--json]`
 *
 * Applies the `@agentgov/store-kysely` migrations and `ensurePartitions()` (monthly audit
 * partitions for the current month and the 12 following) to PostgreSQL (`postgres://…` or
 * `postgresql://…`) or a PGlite directory (anything else; created when missing). Idempotent: what
 * a deployment pipeline or a monthly cron runs. Reports the migrations applied and the partitions
 * created by this run (by the migrations or afterwards). Exit 0 ok, 2 unusable input, connection
 * failure or a failed migration (with the reason on stderr).
 */
import { existsSync, statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { type CliIo, EXIT, UsageError } from '../io';

const USAGE = 'usage: agentgov db migrate --database URL|DIR [--schema NAME] [--json]';

/** Hides the password of a database URL in messages. */
const redact = (database: string): string => database.replace(/^([a-z]+:\/\/[^:/@]*:)[^@]*@/i, '$1***@');

export default async function dbMigrate(args: string[], io: CliIo): Promise<number> {
  let values: { database?: string; schema?: string; json?: boolean };
  try {
    ({ values } = parseArgs({
      args,
      options: { database: { type: 'string' }, schema: { type: 'string' }, json: { type: 'boolean' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n${USAGE}`);
  }
  const database = values.database;
  if (!database) throw new UsageError(`--database is required\n${USAGE}`);
  const { databaseKind, openStore, DEFAULT_SCHEMA } = await import('@agentgov/store-kysely');
  const schema = values.schema ?? DEFAULT_SCHEMA;
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new UsageError(`invalid --schema '${schema}': use 1–63 characters of a-z, 0-9 and _`);
  }
  const kind = databaseKind(database);
  if (kind === 'pglite-memory') throw new UsageError('an in-memory database cannot be migrated from the CLI');
  if (kind === 'pglite-dir' && existsSync(database) && !statSync(database).isDirectory()) {
    throw new UsageError(`${database} exists and is not a directory (expected a PGlite data directory)`);
  }

  let stores: Awaited<ReturnType<typeof openStore>>;
  try {
    stores = await openStore({ database, schema, migrate: false, pool: { max: 2 } });
  } catch (error) {
    io.stderr(`agentgov db migrate: cannot open ${redact(database)}: ${(error as Error).message}\n`);
    return EXIT.usage;
  }
  // Progress on a terminal only; piped output stays exactly the report.
  if (io.isTTY) io.stderr(`migrating ${redact(database)} (schema ${schema})…`);
  try {
    // `partitions.created` counts the partitions a new schema gets from its first migration too.
    const result = await stores.migrate();
    if (io.isTTY) io.stderr('\r\x1b[2K');
    if (values.json) {
      io.stdout(`${JSON.stringify({ database: redact(database), schema, ...result })}\n`);
    } else {
      const n = result.applied.length;
      const now = new Date();
      const last = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 12, 1));
      const through = `${last.getUTCFullYear()}-${String(last.getUTCMonth() + 1).padStart(2, '0')}`;
      const created = result.partitions.created.length;
      const lines = [
        `database: ${redact(database)} (schema ${schema})`,
        n === 0
          ? 'no migrations to apply: the schema is up to date'
          : `${n} migration${n === 1 ? '' : 's'} applied (${result.applied.join(', ')})`,
        `audit partitions ready through ${through}${created > 0 ? ` (${created} created: ${result.partitions.created.join(', ')})` : ''}`,
      ];
      if (result.partitions.blocked.length > 0) {
        lines.push(
          `partitions not created (the default partition holds entries of these months): ${result.partitions.blocked.join(', ')}`,
        );
      }
      io.stdout(`${lines.join('\n')}\n`);
    }
    return EXIT.ok;
  } catch (error) {
    io.stderr(`agentgov db migrate: migration of ${redact(database)} failed: ${(error as Error).message}\n`);
    return EXIT.usage;
  } finally {
    await stores.close().catch(() => {});
  }
}
