/**
 * What scripts/build.mjs builds and how it decides that something is built: the workspace's
 * buildable units (packages/* and examples/* with a `build:js` script), the content hash of a
 * unit's JavaScript and the stamps the build keeps in node_modules/.cache/agentgov-build/. Shared
 * with examples/server/start.mjs, which runs the built server only when `isBuilt` says it is the
 * build of the sources as they are.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const CACHE = join(ROOT, 'node_modules', '.cache', 'agentgov-build');
/** Files every package's output depends on. */
const SHARED_INPUTS = [
  'scripts/build.mjs',
  'scripts/build-stamps.mjs',
  'tsup.base.ts',
  'tsconfig.base.json',
  'tsconfig.build.json',
  'tsconfig.dts.json',
  'tsconfig.json',
  'pnpm-lock.yaml',
];
const SKIP_DIRS = new Set(['node_modules', 'dist', 'test', '.turbo']);

/**
 * Buildable units (a `build:js` script), keyed by package name: packages/* (published, with
 * declarations) and examples/* (applications: JavaScript only; `folder` is `examples-<name>`).
 */
export function workspacePackages() {
  const out = new Map();
  for (const [parent, prefix] of [
    ['packages', ''],
    ['examples', 'examples-'],
  ]) {
    for (const folder of readdirSync(join(ROOT, parent)).sort()) {
      const dir = join(ROOT, parent, folder);
      const file = join(dir, 'package.json');
      if (!existsSync(file)) continue;
      const manifest = JSON.parse(readFileSync(file, 'utf8'));
      if (!manifest.scripts?.['build:js']) continue;
      out.set(manifest.name, { name: manifest.name, folder: `${prefix}${folder}`, dir, manifest });
    }
  }
  return out;
}

/** Workspace packages this one needs built first (any dependency field: devDependencies are bundled). */
export function workspaceDeps(pkg, all) {
  const { dependencies = {}, devDependencies = {}, peerDependencies = {} } = pkg.manifest;
  return [
    ...new Set([
      ...Object.keys(dependencies),
      ...Object.keys(devDependencies),
      ...Object.keys(peerDependencies),
    ]),
  ].filter((name) => all.has(name) && name !== pkg.name);
}

export function filesUnder(dir, skip = SKIP_DIRS) {
  const out = [];
  const walk = (d) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      if (entry.isDirectory()) {
        if (!skip.has(entry.name)) walk(join(d, entry.name));
      } else if (entry.isFile() && !entry.name.endsWith('.md')) {
        out.push(join(d, entry.name));
      }
    }
  };
  if (existsSync(dir)) walk(dir);
  return out.sort();
}

/** SHA-256 over the shared inputs, then `files`, then `extra` strings. */
export function hashOf(files, extra = []) {
  const hash = createHash('sha256');
  for (const file of [...SHARED_INPUTS.map((f) => join(ROOT, f)).filter((f) => existsSync(f)), ...files]) {
    hash.update(relative(ROOT, file));
    hash.update('\0');
    hash.update(readFileSync(file));
    hash.update('\0');
  }
  for (const x of extra) hash.update(x);
  return hash.digest('hex');
}
export const jsHash = (pkg, depStamps) => hashOf(filesUnder(pkg.dir), depStamps);
export const isTypes = (file) => /\.d\.c?ts$/.test(file);

/** Every file the package's `exports` promise (an application: its `build:js` outputs, `dist/main.js`). */
export function promisedFiles(pkg) {
  const files = [];
  const collect = (v) => {
    if (typeof v === 'string') {
      if (v.startsWith('./dist/')) files.push(join(pkg.dir, v));
    } else if (v && typeof v === 'object') {
      for (const x of Object.values(v)) collect(x);
    }
  };
  collect(pkg.manifest.exports);
  if (!pkg.manifest.exports) files.push(join(pkg.dir, 'dist', 'main.js'));
  return files;
}

export const stampFileOf = (pkg, part) => join(CACHE, 'stamps', `${pkg.folder}.${part}.txt`);
/** The stamp of a part built earlier, or '' (never built). */
export const readStamp = (pkg, part) =>
  existsSync(stampFileOf(pkg, part)) ? readFileSync(stampFileOf(pkg, part), 'utf8') : '';

/**
 * Whether the JavaScript of the package named `name` and of every workspace package it needs is
 * the build of their files as they are now (each one's stamp is its current hash and its
 * promised files exist). Reads every file of those packages: tens of milliseconds.
 */
export function isBuilt(name, all = workspacePackages(), seen = new Map()) {
  if (seen.has(name)) return seen.get(name);
  const pkg = all.get(name);
  seen.set(name, false);
  const deps = pkg ? workspaceDeps(pkg, all) : [];
  const built =
    pkg !== undefined &&
    deps.every((d) => isBuilt(d, all, seen)) &&
    promisedFiles(pkg)
      .filter((f) => !isTypes(f))
      .every((f) => existsSync(f)) &&
    readStamp(pkg, 'js') === jsHash(pkg, deps.map((d) => readStamp(all.get(d), 'js')).sort());
  seen.set(name, built);
  return built;
}
