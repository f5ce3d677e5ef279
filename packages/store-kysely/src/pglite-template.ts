/**
 * A PGlite data directory's first open without `initdb`: a template — a database created in
 * memory and fully migrated, dumped as a tarball — is kept in a cache directory, and an empty data
 * directory gets its files (written by Node, `PG_VERSION` last) and is opened as an existing
 * database. `initdb` on a directory costs seconds of WebAssembly work (most of a first start);
 * writing the files costs a fraction of opening the directory. The migrations then run as usual
 * and find nothing to do.
 *
 * A template is used only where it is certainly what `initdb` + the migrations would make now:
 * - its file name is a key over the PGlite and kysely versions, the schema and the bytes of this
 *   package's code (every JavaScript/TypeScript file next to this module: the built `dist/` or
 *   `src/`), so a template from another PGlite or another migration set is never found;
 * - its bytes are checked against the SHA-256 in its header: a damaged template is deleted and
 *   made again;
 * - a template PGlite fails to open is removed from the data directory again (only the entries
 *   the template holds and the directory did not have) and deleted, and the directory gets a
 *   plain `initdb`.
 * A missing template is made on the spot (in memory: faster than `initdb` on a directory) and
 * kept for the next empty directory; written to a temporary file and renamed, so two processes
 * making it at once each write a whole one. Monthly audit partitions the template's migration
 * made for its month stay (empty), as in a database created then and opened now.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync, gzipSync } from 'node:zlib';
import { createPGliteKysely } from './create-kysely';
import { migrateToLatest } from './migrations/run';
import type { PGliteLike } from './pglite-dialect';

type PGliteModule = typeof import('@electric-sql/pglite');

/** Bumped when the template file's layout changes. */
const FORMAT = 'agentgov-pglite-template/1';

interface TemplateHeader {
  format: string;
  key: string;
  /** SHA-256 (hex) of the gzipped tarball that follows the header line. */
  sha256: string;
  /** The tarball's top-level entries (what a failed load leaves to remove). */
  entries: string[];
}

/** This module's file, or undefined where there is none (the CommonJS build has no `import.meta`). */
function moduleFile(): string | undefined {
  const url = (import.meta as { url?: string }).url;
  return typeof url === 'string' && url.startsWith('file:') ? fileURLToPath(url) : undefined;
}

const CODE_FILE = /\.(?:[cm]?js|ts)$/;
const DECLARATIONS = /\.d\.[cm]?ts$/;

async function codeFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const file = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await codeFiles(file)));
    else if (CODE_FILE.test(entry.name) && !DECLARATIONS.test(entry.name)) out.push(file);
  }
  return out.sort();
}

/** An installed package's version (its package.json, found from where this package resolves it). */
async function versionOf(name: string, from: string): Promise<string> {
  let dir = dirname(createRequire(from).resolve(name));
  for (;;) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const manifest = JSON.parse(await readFile(file, 'utf8')) as { name?: string; version?: string };
      if (manifest.name === name && manifest.version) return manifest.version;
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find the version of ${name}`);
    dir = parent;
  }
}

/**
 * The template key for `schema`: PGlite's and kysely's versions, the schema and the bytes of this
 * package's code. Undefined where this module has no file (templates are then not used).
 */
export async function pgliteTemplateKey(schema: string): Promise<string | undefined> {
  const file = moduleFile();
  if (!file) return undefined;
  // kysely too: its Migrator writes the migration bookkeeping tables.
  const versions = [await versionOf('@electric-sql/pglite', file), await versionOf('kysely', file)];
  const hash = createHash('sha256').update(`${FORMAT}\0${versions.join('\0')}\0${schema}\0`);
  const root = dirname(file);
  for (const code of await codeFiles(root)) {
    hash
      .update(code.slice(root.length))
      .update('\0')
      .update(await readFile(code))
      .update('\0');
  }
  return hash.digest('hex').slice(0, 32);
}

/** The top-level names of an uncompressed tarball's entries. */
export function tarTopLevelEntries(tar: Uint8Array): string[] {
  const names = new Set<string>();
  const text = (from: number, length: number) =>
    Buffer.from(tar.subarray(from, from + length))
      .toString('utf8')
      .replace(/\0.*$/s, '');
  for (let at = 0; at + 512 <= tar.length; ) {
    const name = text(at, 100);
    if (name === '') break; // the end-of-archive blocks
    const prefix = text(at + 345, 155);
    const size = Number.parseInt(text(at + 124, 12).trim() || '0', 8);
    const top = `${prefix ? `${prefix}/` : ''}${name}`.split('/').find((part) => part !== '' && part !== '.');
    if (top) names.add(top);
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return [...names].sort();
}

/** The template file's bytes: a JSON header line, then the gzipped tarball. */
export function encodeTemplate(key: string, tar: Uint8Array): Buffer {
  const gz = gzipSync(tar, { level: 6 });
  const header: TemplateHeader = {
    format: FORMAT,
    key,
    sha256: createHash('sha256').update(gz).digest('hex'),
    entries: tarTopLevelEntries(tar),
  };
  return Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), gz]);
}

/** The tarball and its entries, or undefined when `bytes` is not an intact template for `key`. */
export function decodeTemplate(
  bytes: Buffer,
  key: string,
): { tar: Uint8Array; entries: string[] } | undefined {
  try {
    const newline = bytes.indexOf(0x0a);
    if (newline < 0 || newline > 64 * 1024) return undefined;
    const header = JSON.parse(bytes.subarray(0, newline).toString('utf8')) as TemplateHeader;
    const gz = bytes.subarray(newline + 1);
    if (header.format !== FORMAT || header.key !== key || !Array.isArray(header.entries)) return undefined;
    if (createHash('sha256').update(gz).digest('hex') !== header.sha256) return undefined;
    if (!header.entries.every((e) => typeof e === 'string' && e !== '' && !/[/\\]|^\.\.?$/.test(e)))
      return undefined;
    return { tar: gunzipSync(gz), entries: header.entries };
  } catch {
    return undefined;
  }
}

/** Makes the template for `schema`: a database in memory, migrated, dumped (uncompressed tarball). */
async function makeTemplate(PGlite: PGliteModule['PGlite'], schema: string): Promise<Uint8Array> {
  const client = await PGlite.create();
  try {
    const db = createPGliteKysely({ client: client as unknown as PGliteLike, schema, closeOnDestroy: false });
    try {
      await migrateToLatest(db, schema);
    } finally {
      await db.destroy();
    }
    await client.query('CHECKPOINT');
    const dump = await client.dumpDataDir('none');
    return new Uint8Array(await dump.arrayBuffer());
  } finally {
    await client.close();
  }
}

const templateFile = (dir: string, key: string) => join(dir, `pglite-${key}.template`);

/**
 * The template for `schema` from `dir`, made (and kept there) when missing or damaged. Undefined
 * when templates cannot be used here (no module file to key them by). `PGlite` (or a loader of it,
 * called only when one is made) makes it.
 */
export async function ensurePGliteTemplate(
  PGlite: PGliteModule['PGlite'] | (() => Promise<PGliteModule['PGlite']>),
  dir: string,
  schema: string,
): Promise<{ tar: Uint8Array; entries: string[] } | undefined> {
  const key = await pgliteTemplateKey(schema);
  if (!key) return undefined;
  const file = templateFile(dir, key);
  const kept = await readFile(file).catch(() => undefined);
  const intact = kept && decodeTemplate(kept, key);
  if (intact) return intact;
  if (kept) await rm(file, { force: true });
  const tar = await makeTemplate('create' in PGlite ? PGlite : await PGlite(), schema);
  const entries = tarTopLevelEntries(tar);
  // Kept for the next empty directory; a cache that cannot be written only costs that time again.
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    await mkdir(dir, { recursive: true });
    await writeFile(temporary, encodeTemplate(key, tar));
    await rename(temporary, file);
    await pruneTemplates(dir);
  } catch {
    await rm(temporary, { force: true }).catch(() => {}); // read-only or full: used this once
  }
  return { tar, entries };
}

/** Templates kept per directory: others' code (src/ and dist/, other schemas) keeps its own. */
const KEEP = 4;

/** Deletes all but the KEEP newest templates in `dir` (each edit of the code keys a new one). */
async function pruneTemplates(dir: string): Promise<void> {
  const files = (await readdir(dir)).filter((f) => /^pglite-[0-9a-f]+\.template$/.test(f));
  if (files.length <= KEEP) return;
  const dated = await Promise.all(
    files.map(async (f) => ({ f, at: (await stat(join(dir, f)).catch(() => undefined))?.mtimeMs ?? 0 })),
  );
  dated.sort((a, b) => b.at - a.at);
  for (const { f } of dated.slice(KEEP)) await rm(join(dir, f), { force: true });
}

/** Deletes the template for `schema` from `dir` (one PGlite could not open). */
async function discardTemplate(dir: string, schema: string): Promise<void> {
  const key = await pgliteTemplateKey(schema);
  if (key) await rm(templateFile(dir, key), { force: true });
}

/**
 * Writes the tarball's files under `dataDir` (plain Node file writes: several times cheaper than
 * PGlite's own `loadDataDir` through its WebAssembly file system), `PG_VERSION` last: PGlite takes
 * a directory with `PG_VERSION` for a database, so one interrupted here is simply written again at
 * the next start. Only regular files and directories, only below `dataDir`.
 */
export function writeTemplateFiles(tar: Uint8Array, dataDir: string): void {
  const text = (from: number, length: number) =>
    Buffer.from(tar.buffer, tar.byteOffset + from, length)
      .toString('utf8')
      .replace(/\0.*$/s, '');
  let version: Uint8Array | undefined;
  for (let at = 0; at + 512 <= tar.length; ) {
    const name = text(at, 100);
    if (name === '') break;
    const prefix = text(at + 345, 155);
    const size = Number.parseInt(text(at + 124, 12).trim() || '0', 8);
    const type = String.fromCharCode(tar[at + 156] ?? 0);
    const parts = `${prefix ? `${prefix}/` : ''}${name}`.split('/').filter((p) => p !== '' && p !== '.');
    if (parts.includes('..') || !Number.isSafeInteger(size) || at + 512 + size > tar.length)
      throw new Error('not a PGlite template');
    const target = join(dataDir, ...parts);
    const data = tar.subarray(at + 512, at + 512 + size);
    if (type === '5') mkdirSync(target, { recursive: true });
    else if (type !== '0' && type !== '\0') throw new Error('not a PGlite template');
    else if (parts.length === 1 && parts[0] === 'PG_VERSION') version = data;
    else if (parts.length > 0) {
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, data);
    }
    at += 512 + Math.ceil(size / 512) * 512;
  }
  if (!version) throw new Error('not a PGlite template');
  writeFileSync(join(dataDir, 'PG_VERSION'), version);
}

/**
 * Opens PGlite on `dataDir`; an empty one (no `PG_VERSION`) starts from the template in
 * `templateDir` (see the module comment) instead of `initdb`.
 */
export async function openPGliteWithTemplate(
  PGlite: PGliteModule['PGlite'],
  dataDir: string,
  templateDir: string,
  schema: string,
): Promise<PGliteLike> {
  if (existsSync(join(dataDir, 'PG_VERSION'))) return (await PGlite.create(dataDir)) as unknown as PGliteLike;
  const template = await ensurePGliteTemplate(PGlite, templateDir, schema).catch(() => undefined);
  if (template) {
    const before = new Set(existsSync(dataDir) ? await readdir(dataDir) : []);
    let client: Awaited<ReturnType<PGliteModule['PGlite']['create']>> | undefined;
    try {
      mkdirSync(dataDir, { recursive: true });
      writeTemplateFiles(template.tar, dataDir);
      client = await PGlite.create(dataDir);
      await client.query('SELECT 1');
      return client as unknown as PGliteLike;
    } catch {
      await client?.close().catch(() => {});
      for (const entry of template.entries) {
        if (!before.has(entry)) await rm(join(dataDir, entry), { recursive: true, force: true });
      }
      await discardTemplate(templateDir, schema);
    }
  }
  return (await PGlite.create(dataDir)) as unknown as PGliteLike;
}
