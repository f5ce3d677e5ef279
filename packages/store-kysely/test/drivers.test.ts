/**
 * The drivers are optional peers: a database of a kind whose driver is not installed fails with
 * an error naming the package to install. The importer is injected (both drivers are installed
 * here), with the errors Node raises for a package that is not installed.
 */
import { describe, expect, it } from 'vitest';
import { driverImportError, loadDriver, openPGlite, openPostgresPool } from '../src/drivers';

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
