/**
 * The drivers are optional peers: a database of a kind whose driver is not installed fails with
 * an error naming the package to install. The importer is injected (both drivers are installed
 * here), with the errors Node raises for a package that is not installed.
 */
import { describe, expect, it } from 'vitest';
import { driverImportError, loadDriver, openPGlite, openPostgresPool } from '../src/drivers';
import { executePrepared, type PGliteProtocol } from '../src/pglite-protocol';

/** What Node's ESM loader throws for `import('<pkg>')` when the package is not installed. */
const esmNotFound = (pkg: string) =>
  Object.assign(new Error(`Cannot find package '${pkg}' imported from /app/node_modules/x/dist/index.js`), {
    code: 'ERR_MODULE_NOT_FOUND',
  });
/** What `require('<pkg>')` throws (the CommonJS build) when the package is not installed. */
const cjsNotFound = (pkg: string) =>
  Object.assign(
    new Error(`Cannot find module '${pkg}'\nRequire stack:\n- /app/node_modules/x/dist/index.cjs`),
    {
      code: 'MODULE_NOT_FOUND',
    },
  );

describe('missing driver', () => {
  it('postgres:// without pg: names the package to install (ESM and CommonJS)', async () => {
    for (const error of [esmNotFound('pg'), cjsNotFound('pg')]) {
      const rejected = openPostgresPool('postgres://u:secret@db.example/x', {}, () => Promise.reject(error));
      await expect(rejected).rejects.toThrow(
        "the database is a postgres:// URL: install the 'pg' package (npm i pg)",
      );
      await expect(rejected).rejects.toHaveProperty('cause', error);
      await expect(rejected).rejects.not.toThrow(/secret/);
    }
  });

  it('a PGlite directory or memory:// without @electric-sql/pglite: names the package to install', async () => {
    for (const dataDir of [undefined, '/var/lib/agentgov']) {
      await expect(
        openPGlite(dataDir, () => Promise.reject(esmNotFound('@electric-sql/pglite'))),
      ).rejects.toThrow(
        "the database is an embedded PGlite database (a directory or memory://): install the '@electric-sql/pglite' package (npm i @electric-sql/pglite)",
      );
    }
  });

  it('other import failures are passed on unchanged', async () => {
    // A dependency of the driver missing (a broken install, not a missing driver).
    const transitive = esmNotFound('pg-pool');
    expect(driverImportError('pg', transitive)).toBe(transitive);
    // Another package's name that merely contains the driver's.
    const other = cjsNotFound('pg-native');
    expect(driverImportError('pg', other)).toBe(other);
    const broken = new SyntaxError('Unexpected token');
    await expect(loadDriver('@electric-sql/pglite', () => Promise.reject(broken))).rejects.toBe(broken);
    expect(driverImportError('pg', undefined)).toBeUndefined();
  });
});

describe('openPGlite: which instances skip PGlite syncToFs', () => {
  /** A PGlite module whose instances record the options of each protocol exchange. */
  const recording = () => {
    const seen: { dataDir: unknown; syncToFs: unknown }[] = [];
    const PGlite = {
      async create(dataDir?: string) {
        return {
          async execProtocol(_message: Uint8Array, options: { syncToFs?: boolean }) {
            seen.push({ dataDir, syncToFs: options.syncToFs });
            return { messages: [] };
          },
          async query() {
            return { rows: [] };
          },
        };
      },
    };
    return { seen, importer: async () => ({ PGlite }) as unknown as typeof import('@electric-sql/pglite') };
  };

  it('memory and directories of Node’s file system skip it; another PGlite file system keeps it', async () => {
    const { seen, importer } = recording();
    for (const dataDir of [
      undefined,
      '/var/lib/agentgov',
      'file:///var/lib/x',
      'memory://x',
      'idb://agentgov',
      'opfs-ahp://db',
    ]) {
      const client = await openPGlite(dataDir, importer);
      await executePrepared(client as unknown as PGliteProtocol, new Set(), 'q1', 'SELECT 1', []);
    }
    expect(seen).toEqual([
      { dataDir: undefined, syncToFs: false },
      { dataDir: '/var/lib/agentgov', syncToFs: false },
      { dataDir: 'file:///var/lib/x', syncToFs: false },
      { dataDir: 'memory://x', syncToFs: false },
      { dataDir: 'idb://agentgov', syncToFs: true },
      { dataDir: 'opfs-ahp://db', syncToFs: true },
    ]);
  });

  it('an instance the application opens itself keeps PGlite’s default', async () => {
    const { seen, importer } = recording();
    const { PGlite } = await importer();
    const client = await PGlite.create('/var/lib/elsewhere');
    await executePrepared(client as unknown as PGliteProtocol, new Set(), 'q1', 'SELECT 1', []);
    expect(seen).toEqual([{ dataDir: '/var/lib/elsewhere', syncToFs: true }]);
  });
});
