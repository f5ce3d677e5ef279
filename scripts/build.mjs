#!/usr/bin/env node
/**
 * The workspace build: `pnpm build` (and `pnpm install`, through the root `prepare` script).
 *
 *   node scripts/build.mjs            every package under packages/ (and examples/) that has a `build:js` script
 *   node scripts/build.mjs DIR…       only those packages (a package's own `pnpm build` passes `.`)
 *   node scripts/build.mjs --force    ignore what was built before
 *
 * 1. Declarations for the whole workspace in ONE TypeScript pass (`tsc -b tsconfig.dts.json`,
 *    incremental: an unchanged workspace costs a few seconds), instead of one full program per
 *    package as `tsup --dts` did; then each entry point's declarations are bundled from that output
 *    (rollup-plugin-dts over .d.ts files, no type-checking) into `dist/<entry>.d.ts` and, for the
 *    `require` condition, `dist/<entry>.d.cts`.
 * 2. JavaScript with the package's `build:js` script (tsup: ESM + CJS, see tsup.base.ts; the console
 *    also builds its app with Vite).
 *    The JavaScript does not need the declarations: it is built while the tsc pass runs.
 * 3. What did not change is not rebuilt. A package's JavaScript is rebuilt when the SHA-256 over its
 *    files (not `test/`, `dist/`, `node_modules/`, Markdown), the shared build configuration, the
 *    lockfile and the stamps of the workspace packages it bundles changes; its declarations when its
 *    emitted declarations (or the shared configuration) change. The stamps are kept in
 *    node_modules/.cache/agentgov-build/. Content, not timestamps: a checkout or a copy that changes
 *    times but not bytes rebuilds nothing, an edit always rebuilds. A missing output file rebuilds.
 * 4. One build at a time per checkout (a lock in that cache directory, freed if its process died):
 *    `pnpm -r build` or two terminals building at once wait for each other instead of racing.
 * 5. Applications under examples/ with a `build:js` script (the reference server) are built the same
 *    way, JavaScript only (`dist/main.js`, workspace packages external); what makes them built and
 *    their stamps are in ./build-stamps.mjs (examples/server/start.mjs reads them). A unit's
 *    `build:cache` script runs after its JavaScript, every build (it keeps its own cache current,
 *    e.g. the server's PGlite template); its failure is a warning, not a failed build.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { delimiter, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import {
  CACHE,
  filesUnder,
  hashOf,
  isTypes,
  jsHash,
  promisedFiles,
  ROOT,
  readStamp,
  stampFileOf,
  workspaceDeps,
  workspacePackages,
} from './build-stamps.mjs';

const DTS_OUT = join(CACHE, 'dts');

const args = process.argv.slice(2);
const force = args.includes('--force');
const only = args.filter((a) => !a.startsWith('--')).map((a) => resolve(process.cwd(), a));

const started = performance.now();
const seconds = (since) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

function run(command, cwd) {
  return new Promise((resolvePromise, reject) => {
    const bins = [join(cwd, 'node_modules', '.bin'), join(ROOT, 'node_modules', '.bin')];
    const child = spawn(command, {
      cwd,
      shell: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PATH: [...bins, process.env.PATH].join(delimiter) },
    });
    let output = '';
    child.stdout.on('data', (d) => {
      output += d;
    });
    child.stderr.on('data', (d) => {
      output += d;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolvePromise(output);
      else reject(new Error(`${command} (in ${relative(ROOT, cwd) || '.'}) failed with ${code}:\n${output}`));
    });
  });
}

const typesHash = (pkg) => hashOf(filesUnder(join(DTS_OUT, pkg.folder), new Set()));

/** Entry name → emitted declaration file: `index` is src/index.ts, any other `x` is src/x/index.ts. */
function dtsEntries(pkg) {
  const entries = {};
  for (const [subpath, conditions] of Object.entries(pkg.manifest.exports ?? {})) {
    const types = conditions?.import?.types;
    if (typeof types !== 'string') continue;
    const name = /^\.\/dist\/(.+)\.d\.ts$/.exec(types)?.[1];
    if (!name) throw new Error(`${pkg.name}: exports["${subpath}"].import.types must be ./dist/<entry>.d.ts`);
    const file = join(DTS_OUT, pkg.folder, 'src', name === 'index' ? 'index.d.ts' : `${name}/index.d.ts`);
    if (!existsSync(file))
      throw new Error(`${pkg.name}: no declarations emitted for entry ${name} (${file})`);
    entries[name] = file;
  }
  return entries;
}

/** A relative import in a package's declarations must stay inside that package (else it would be inlined). */
function checkContained(pkg) {
  const root = join(DTS_OUT, pkg.folder);
  const escaping = [];
  for (const file of filesUnder(root, new Set())) {
    for (const m of readFileSync(file, 'utf8').matchAll(/(?:from |import\()\s*['"](\.{1,2}\/[^'"]*)['"]/g)) {
      const target = resolve(dirname(file), m[1]);
      if (relative(root, target).startsWith('..') || isAbsolute(relative(root, target))) {
        escaping.push(`${relative(DTS_OUT, file)}: ${m[1]}`);
      }
    }
  }
  if (escaping.length > 0) {
    throw new Error(
      `${pkg.name}: declarations reach into another package by a relative path (export the type from that package's entry instead):\n  ${escaping.join('\n  ')}`,
    );
  }
}

async function bundleDeclarations(pkg) {
  const { rollup } = await import('rollup');
  const { dts } = await import('rollup-plugin-dts');
  const bundle = await rollup({
    input: dtsEntries(pkg),
    plugins: [dts({ respectExternal: true })],
    external: (id) => !id.startsWith('.') && !isAbsolute(id),
    onwarn: (warning, warn) => {
      if (warning.code !== 'EMPTY_BUNDLE') warn(warning);
    },
  });
  try {
    const dir = join(pkg.dir, 'dist');
    for (const ext of ['d.ts', 'd.cts']) {
      // A shared chunk is named after its first module (`kernel.d.ts` → `kernel-<hash>.d.ts`).
      const chunkFileNames = (chunk) => `${chunk.name.replace(/\.d$/, '')}-[hash].${ext}`;
      await bundle.write({ dir, format: 'es', entryFileNames: `[name].${ext}`, chunkFileNames });
    }
  } finally {
    await bundle.close();
  }
}

/**
 * Builds one part of a package (`js`: the build:js script into a clean dist; `types`: the bundled
 * declarations) unless its stamp matches and the files `exports` promises for it exist.
 */
async function buildPart(pkg, part, hash) {
  const promised = promisedFiles(pkg).filter((f) => isTypes(f) === (part === 'types'));
  if (!force && readStamp(pkg, part) === hash && promised.every((f) => existsSync(f))) return 'up to date';
  const t = performance.now();
  rmSync(stampFileOf(pkg, part), { force: true });
  const dist = join(pkg.dir, 'dist');
  if (part === 'js') {
    // Everything but the declarations, which stay usable until the types part replaces them (a
    // failed tsc pass leaves the last good ones, not none).
    rmSync(stampFileOf(pkg, 'types'), { force: true });
    for (const f of existsSync(dist) ? readdirSync(dist) : []) {
      if (!isTypes(f)) rmSync(join(dist, f), { recursive: true, force: true });
    }
    await run(pkg.manifest.scripts['build:js'], pkg.dir);
  } else {
    for (const f of existsSync(dist) ? readdirSync(dist) : []) if (isTypes(f)) rmSync(join(dist, f));
    await bundleDeclarations(pkg);
  }
  const missing = promised.filter((f) => !existsSync(f));
  if (missing.length > 0)
    throw new Error(`${pkg.name}: exports name files the build did not write: ${missing.join(', ')}`);
  mkdirSync(dirname(stampFileOf(pkg, part)), { recursive: true });
  writeFileSync(stampFileOf(pkg, part), hash);
  return `built in ${seconds(t)}`;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
};

async function withBuildLock(fn) {
  const lock = join(CACHE, 'lock');
  mkdirSync(CACHE, { recursive: true });
  for (let announced = false; ; ) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, 'pid'), String(process.pid));
      break;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
      const owner = existsSync(join(lock, 'pid')) ? Number(readFileSync(join(lock, 'pid'), 'utf8')) : 0;
      if (owner > 0 && !alive(owner)) {
        rmSync(lock, { recursive: true, force: true });
        continue;
      }
      if (!announced) console.log(`waiting for the build running in process ${owner || '?'}…`);
      announced = true;
      await sleep(300);
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** The JavaScript of the selected packages, each once the workspace packages it needs are done. */
async function buildJavaScript(selected, all, limit) {
  const stamps = new Map();
  const pending = new Map(selected.map((p) => [p.name, p]));
  const running = new Map();
  const outcomes = [];
  while (pending.size > 0 || running.size > 0) {
    for (const pkg of [...pending.values()]) {
      if (running.size >= limit) break;
      const deps = workspaceDeps(pkg, all);
      if (deps.some((d) => pending.has(d) || running.has(d))) continue;
      pending.delete(pkg.name);
      const hash = jsHash(pkg, deps.map((d) => stamps.get(d) ?? readStamp(all.get(d), 'js')).sort());
      running.set(
        pkg.name,
        buildPart(pkg, 'js', hash).then((outcome) => {
          stamps.set(pkg.name, hash);
          running.delete(pkg.name);
          outcomes.push(outcome);
          console.log(`${pkg.name}: JavaScript ${outcome}`);
        }),
      );
    }
    if (running.size === 0) throw new Error(`dependency cycle among ${[...pending.keys()].join(', ')}`);
    await Promise.race(running.values());
  }
  return outcomes;
}

/** Each selected unit's `build:cache` script, one at a time; a failure is reported, not fatal. */
async function buildCaches(selected) {
  for (const pkg of selected) {
    const script = pkg.manifest.scripts['build:cache'];
    if (!script) continue;
    const t = performance.now();
    try {
      const output = (await run(script, pkg.dir)).trim();
      console.log(`${pkg.name}: cache ${output ? `${output} ` : ''}(${seconds(t)})`);
    } catch (error) {
      console.warn(`${pkg.name}: build:cache failed (the first start makes it instead): ${error.message}`);
    }
  }
}

const summary = (outcomes) =>
  `${outcomes.filter((o) => o !== 'up to date').length} built, ${outcomes.filter((o) => o === 'up to date').length} up to date`;

async function main() {
  const all = workspacePackages();
  const selected =
    only.length === 0 ? [...all.values()] : [...all.values()].filter((p) => only.includes(p.dir));
  if (selected.length === 0) throw new Error(`no package with a build:js script in ${only.join(', ')}`);

  // The tsc pass is one thread: the JavaScript builds share the other cores meanwhile.
  const t = performance.now();
  const declarations = run(`tsc -b ${join(ROOT, 'tsconfig.dts.json')}${force ? ' --force' : ''}`, ROOT).then(
    () => console.log(`declarations (tsc -b, whole workspace): ${seconds(t)}`),
  );
  const [js] = await Promise.all([
    buildJavaScript(selected, all, Math.max(1, availableParallelism() - 1)).then(async (outcomes) => {
      await buildCaches(selected);
      return outcomes;
    }),
    declarations,
  ]);
  // Applications (no `exports`) have no declarations.
  const published = selected.filter((pkg) => pkg.manifest.exports);
  for (const pkg of published) checkContained(pkg);
  const types = await Promise.all(
    published.map((pkg) =>
      buildPart(pkg, 'types', typesHash(pkg)).then((outcome) => {
        if (outcome !== 'up to date') console.log(`${pkg.name}: declarations ${outcome}`);
        return outcome;
      }),
    ),
  );
  console.log(`JavaScript: ${summary(js)}; declarations: ${summary(types)} — ${seconds(started)}`);
}

withBuildLock(main).catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
