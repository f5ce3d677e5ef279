/**
 * An empty PGlite data directory starting from the migrated template (src/pglite-template.ts)
 * ends up with the same database as `initdb` + the migrations (the path it replaces), and a
 * template that is not certainly right is never used: another key, damaged bytes (made again), one
 * PGlite cannot open (removed from the directory, `initdb` instead).
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type SqlStores, sql } from '../src/index';
import {
  decodeTemplate,
  encodeTemplate,
  ensurePGliteTemplate,
  pgliteTemplateKey,
  tarTopLevelEntries,
  writeTemplateFiles,
} from '../src/pglite-template';
import { DEFAULT_SCHEMA } from '../src/sql-util';
import { describePGlite } from './helpers';

/** A ustar tarball of `files` (path → content), enough for the entry parser. */
function tarOf(files: Record<string, string>): Uint8Array {
  const blocks: Buffer[] = [];
  for (const [name, content] of Object.entries(files)) {
    const header = Buffer.alloc(512);
    const slash = name.length > 100 ? name.lastIndexOf('/', name.length - 1) : -1;
    header.write(slash >= 0 ? name.slice(slash + 1) : name, 0);
    if (slash >= 0) header.write(name.slice(0, slash), 345);
    header.write(`${Buffer.byteLength(content).toString(8).padStart(11, '0')}\0`, 124);
    header.write('0', 156);
    header.write('ustar', 257);
    blocks.push(header, Buffer.from(content), Buffer.alloc((512 - (Buffer.byteLength(content) % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return new Uint8Array(Buffer.concat(blocks));
}

describe('template file', () => {
  it('lists the top-level entries of a tarball (names, ustar prefixes, leading ./ and /)', () => {
    const tar = tarOf({
      PG_VERSION: '17\n',
      'base/1/1249': 'x'.repeat(700),
      './global/pg_control': 'c',
      '/pg_wal/000000010000000000000001': '',
      [`base/${'d/'.repeat(60)}f`]: 'deep',
    });
    expect(tarTopLevelEntries(tar)).toEqual(['PG_VERSION', 'base', 'global', 'pg_wal']);
  });

  it('decodes only an intact template for its key: any changed byte or another key is refused', () => {
    const tar = tarOf({ PG_VERSION: '17\n', 'base/1/x': 'data' });
    const bytes = encodeTemplate('k1', tar);
    const decoded = decodeTemplate(bytes, 'k1');
    expect(decoded?.entries).toEqual(['PG_VERSION', 'base']);
    expect(Buffer.from(decoded?.tar ?? []).equals(Buffer.from(tar))).toBe(true);
    expect(decodeTemplate(bytes, 'k2')).toBeUndefined();
    fc.assert(
      fc.property(fc.nat({ max: bytes.length - 1 }), fc.integer({ min: 1, max: 255 }), (at, flip) => {
        const damaged = Buffer.from(bytes);
        damaged[at] = (damaged[at] as number) ^ flip;
        const decoded = decodeTemplate(damaged, 'k1');
        // A change to the header's whitespace may leave it meaning the same: then it is the same.
        expect(decoded === undefined || Buffer.from(decoded.tar).equals(Buffer.from(tar))).toBe(true);
      }),
      { numRuns: 300 },
    );
    expect(decodeTemplate(bytes.subarray(0, bytes.length - 1), 'k1')).toBeUndefined();
    expect(decodeTemplate(Buffer.from('not a template'), 'k1')).toBeUndefined();
  });
});

describe('writing a template into a directory', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentgov-template-files-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes the files below the directory, and refuses anything else', async () => {
    const target = join(dir, 'ok');
    writeTemplateFiles(tarOf({ 'base/1/x': 'data', PG_VERSION: '17\n' }), target);
    expect(await readFile(join(target, 'base/1/x'), 'utf8')).toBe('data');
    expect(await readFile(join(target, 'PG_VERSION'), 'utf8')).toBe('17\n');
    for (const bad of [
      tarOf({ '../escaped': 'x', PG_VERSION: '17\n' }),
      tarOf({ 'base/../../escaped': 'x', PG_VERSION: '17\n' }),
      tarOf({ 'base/1/x': 'no PG_VERSION' }),
    ]) {
      expect(() => writeTemplateFiles(bad, join(dir, 'bad'))).toThrow('not a PGlite template');
      expect(existsSync(join(dir, 'bad', 'PG_VERSION'))).toBe(false);
    }
    expect(existsSync(join(dir, 'escaped'))).toBe(false);
    const link = Buffer.from(tarOf({ link: '', PG_VERSION: '17\n' }));
    link[156] = '2'.charCodeAt(0); // a symbolic link
    expect(() => writeTemplateFiles(link, join(dir, 'link'))).toThrow('not a PGlite template');
  });
});

/** What the migrations made, as the catalog describes it (names, definitions, not OIDs). */
async function catalog(stores: SqlStores): Promise<unknown> {
  const q = async (text: string) => (await sql.raw(text).execute(stores.db)).rows;
  const schema = DEFAULT_SCHEMA;
  return {
    columns:
      await q(`SELECT table_name, column_name, data_type, column_default, is_nullable FROM information_schema.columns
      WHERE table_schema = '${schema}' ORDER BY 1, 2`),
    indexes: await q(
      `SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = '${schema}' ORDER BY 1, 2`,
    ),
    constraints:
      await q(`SELECT c.conrelid::regclass::text AS t, c.conname, pg_get_constraintdef(c.oid) AS def
      FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace WHERE n.nspname = '${schema}' ORDER BY 1, 2`),
    functions:
      await q(`SELECT p.proname, pg_get_function_identity_arguments(p.oid) AS args, p.prosrc, p.proconfig::text AS config
      FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = '${schema}' ORDER BY 1, 2`),
    triggers:
      await q(`SELECT t.tgrelid::regclass::text AS t, t.tgname, pg_get_triggerdef(t.oid) AS def FROM pg_trigger t
      JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = '${schema}' AND NOT t.tgisinternal ORDER BY 1, 2`),
    migrations: await q(`SELECT name FROM ${schema}.kysely_migration ORDER BY name`),
    databases: await q(
      'SELECT datname, pg_encoding_to_char(encoding) AS enc, datcollate FROM pg_database ORDER BY 1',
    ),
    user: await q("SELECT current_user AS u, current_setting('server_version') AS v"),
  };
}

describePGlite('an empty data directory from the template', () => {
  let root: string;
  let templates: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'agentgov-template-'));
    templates = join(root, 'templates');
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });
  const open = (dir: string, withTemplate = true) =>
    openStore({ database: join(root, dir), ...(withTemplate ? { pgliteTemplateDir: templates } : {}) });
  const templateFile = async () => join(templates, (await readdir(templates))[0] as string);

  it('is the database initdb + the migrations make; the files already in the directory stay', {
    timeout: 240_000,
  }, async () => {
    const dir = join(root, 'from-template');
    await mkdir(dir);
    await writeFile(join(dir, 'agentgov.pid'), '1\n');
    const fromTemplate = await open('from-template');
    const fromInitdb = await open('from-initdb', false);
    try {
      expect(await readdir(templates)).toHaveLength(1);
      expect(await readFile(join(dir, 'agentgov.pid'), 'utf8')).toBe('1\n');
      expect(await fromTemplate.migrate()).toEqual({ applied: [], partitions: { created: [], blocked: [] } });
      expect(await catalog(fromTemplate)).toEqual(await catalog(fromInitdb));
    } finally {
      await fromTemplate.close();
      await fromInitdb.close();
    }
    // A directory with a database is opened as it is (the template is not loaded over it).
    const again = await open('from-template');
    await again.close();
  });

  it('uses the kept template for the next empty directory, and makes a damaged one again', {
    timeout: 120_000,
  }, async () => {
    const file = await templateFile();
    const kept = await readFile(file);
    const second = await open('second');
    await second.close();
    expect((await readFile(file)).equals(kept)).toBe(true);
    const damaged = Buffer.from(kept);
    damaged[damaged.length - 100] = (damaged[damaged.length - 100] as number) ^ 0xff;
    await writeFile(file, damaged);
    const third = await open('third');
    try {
      expect(await third.migrate()).toEqual({ applied: [], partitions: { created: [], blocked: [] } });
    } finally {
      await third.close();
    }
    const remade = await readFile(file);
    expect(remade.equals(damaged)).toBe(false);
    expect(decodeTemplate(remade, (await pgliteTemplateKey(DEFAULT_SCHEMA)) as string)).toBeDefined();
  });

  it('a template PGlite cannot open: its entries are removed, initdb runs, the template is deleted', {
    timeout: 240_000,
  }, async () => {
    const key = (await pgliteTemplateKey(DEFAULT_SCHEMA)) as string;
    // Intact as a file (its key and checksum match) but not a database.
    await writeFile(
      join(templates, `pglite-${key}.template`),
      encodeTemplate(key, tarOf({ PG_VERSION: 'garbage' })),
    );
    const dir = join(root, 'bad-template');
    await mkdir(dir);
    await writeFile(join(dir, 'dev-issuer-key.json'), '{}');
    const stores = await open('bad-template');
    try {
      expect(await stores.migrate()).toEqual({ applied: [], partitions: { created: [], blocked: [] } });
      expect(await readFile(join(dir, 'PG_VERSION'), 'utf8')).not.toBe('garbage');
      expect(existsSync(join(dir, 'dev-issuer-key.json'))).toBe(true);
    } finally {
      await stores.close();
    }
    expect(existsSync(join(templates, `pglite-${key}.template`))).toBe(false);
  });

  it('ensurePGliteTemplate makes one into a new directory', { timeout: 120_000 }, async () => {
    const made = await ensurePGliteTemplate(PGlite, join(root, 'other-templates'), DEFAULT_SCHEMA);
    expect(made?.entries).toContain('PG_VERSION');
    expect(await readdir(join(root, 'other-templates'))).toHaveLength(1);
  });
});
