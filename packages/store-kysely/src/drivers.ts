/**
 * The database drivers. Both are optional peer dependencies, imported only when a database of
 * their kind is opened — `pg` for a `postgres://` URL, `@electric-sql/pglite` for an embedded
 * database — so a PostgreSQL user never installs PGlite and the other way round. A driver that is
 * not installed fails with an error naming the package to install.
 */
import { type ClientTlsOptions, verifiedClientTls } from '@agentgov/core';
import type { PgPoolLike } from './create-kysely';
import type { PGliteLike } from './pglite-dialect';
import { markWritesThrough } from './pglite-protocol';
import { ensurePGliteTemplate, openPGliteWithTemplate } from './pglite-template';
import { assertSchemaName, DEFAULT_SCHEMA } from './sql-util';

export type DriverPackage = 'pg' | '@electric-sql/pglite';

type PgModule = typeof import('pg');
type PGliteModule = typeof import('@electric-sql/pglite');

const NEEDED_FOR: Record<DriverPackage, string> = {
  pg: 'the database is a postgres:// URL',
  '@electric-sql/pglite': 'the database is an embedded PGlite database (a directory or memory://)',
};

/** Whether `error` says that `pkg` itself (not one of its own dependencies) cannot be found. */
function isMissingPackage(error: unknown, pkg: DriverPackage): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return false;
  // ESM: "Cannot find package 'pg' imported from …"; CommonJS: "Cannot find module 'pg'".
  // A missing dependency of the driver names that dependency instead: a broken install, not ours.
  return typeof message === 'string' && message.includes(`'${pkg}'`);
}

/**
 * What a failed import of a driver is reported as: for a driver that is not installed, an Error
 * naming the package to install (the original error as its `cause`); anything else unchanged.
 */
export function driverImportError(pkg: DriverPackage, error: unknown): unknown {
  if (!isMissingPackage(error, pkg)) return error;
  return new Error(`${NEEDED_FOR[pkg]}: install the '${pkg}' package (npm i ${pkg})`, { cause: error });
}

/** Imports a driver through `importer`, failing with `driverImportError`. */
export async function loadDriver<T>(pkg: DriverPackage, importer: () => Promise<T>): Promise<T> {
  try {
    return await importer();
  } catch (error) {
    throw driverImportError(pkg, error);
  }
}

/**
 * TLS to PostgreSQL with a CA of your own and a client certificate (core's `ClientTlsOptions`). The
 * server's certificate is always verified, and so is its name: the URL's host, or `servername`
 * when the certificate names the server otherwise (an IP address in the URL, a load balancer's name).
 */
export type PostgresTlsOptions = ClientTlsOptions;

/** The URL parameters through which pg would configure TLS itself (and override `ssl`). */
const URL_TLS_PARAMETERS = ['sslmode', 'sslcert', 'sslkey', 'sslrootcert', 'ssl', 'sslnegotiation'];

/** pg's `ssl` option for `tls` (verification on); refuses a URL that configures TLS as well. */
function postgresSsl(url: string, tls: PostgresTlsOptions): Record<string, unknown> {
  let params: URLSearchParams;
  try {
    params = new URL(url).searchParams;
  } catch {
    params = new URLSearchParams();
  }
  const inUrl = URL_TLS_PARAMETERS.filter((p) => params.has(p));
  if (inUrl.length > 0)
    throw new Error(
      `TLS is configured twice: the database URL has ${inUrl.join(', ')} and TLS options were given; use one or the other`,
    );
  return verifiedClientTls('PostgreSQL', tls) as Record<string, unknown>;
}

/** A pg `Pool` on `url`; idle-client errors are absorbed (the next query reconnects). */
export async function openPostgresPool(
  url: string,
  options: { max?: number; connectionTimeoutMillis?: number; tls?: PostgresTlsOptions } = {},
  importer: () => Promise<PgModule> = () => import('pg'),
): Promise<PgPoolLike> {
  const ssl = options.tls ? postgresSsl(url, options.tls) : undefined;
  const pg = await loadDriver('pg', importer);
  // ESM import of the CommonJS package: the namespace's `default`, or the module itself (bundlers).
  const Pool = (pg.default?.Pool ??
    (pg as unknown as PgModule['default']).Pool) as PgModule['default']['Pool'];
  const pool = new Pool({
    connectionString: url,
    max: options.max ?? 10,
    connectionTimeoutMillis: options.connectionTimeoutMillis ?? 10_000,
    ...(ssl ? { ssl } : {}),
  });
  // An idle client dropped by the server must not crash the process; the next query reconnects.
  // (`createPostgresKysely` also covers checked-out clients: `schemaPool`.)
  pool.on('error', () => {});
  return pool;
}

/**
 * A PGlite instance: in memory when `dataDir` is undefined, else on that directory (created when
 * missing). With `template`, an empty directory starts from the migrated template kept in
 * `template.dir` instead of `initdb` (./pglite-template.ts).
 */
export async function openPGlite(
  dataDir: string | undefined,
  importer: () => Promise<PGliteModule> = () => import('@electric-sql/pglite'),
  template?: { dir: string; schema: string },
): Promise<PGliteLike> {
  const { PGlite } = await loadDriver('@electric-sql/pglite', importer);
  const client =
    dataDir === undefined
      ? ((await PGlite.create()) as unknown as PGliteLike)
      : template
        ? await openPGliteWithTemplate(PGlite, dataDir, template.dir, template.schema)
        : ((await PGlite.create(dataDir)) as unknown as PGliteLike);
  // In memory or on a directory of Node's file system (a path, `file://`, `memory://`), nothing for
  // `syncToFs` to copy; any other PGlite file system (`idb://`, `opfs-ahp://`) keeps its default.
  const nodeFs =
    dataDir === undefined ||
    !/^[a-z][a-z0-9+.-]*:\/\//i.test(dataDir) ||
    /^(file|memory):\/\//i.test(dataDir);
  return nodeFs ? markWritesThrough(client) : client;
}

/**
 * Makes the template `openStore`'s `pgliteTemplateDir` keeps, ahead of the first start (a build or
 * install step), or checks the one there. Resolves to false where templates are not used (the
 * CommonJS build).
 */
export async function preparePGliteTemplate(
  dir: string,
  schema: string = DEFAULT_SCHEMA,
  importer: () => Promise<PGliteModule> = () => import('@electric-sql/pglite'),
): Promise<boolean> {
  assertSchemaName(schema);
  const load = async () => (await loadDriver('@electric-sql/pglite', importer)).PGlite;
  return (await ensurePGliteTemplate(load, dir, schema)) !== undefined;
}
