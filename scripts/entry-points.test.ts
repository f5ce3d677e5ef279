/**
 * Every entry point of every published package loads as an application would load it: from a
 * fresh directory outside the workspace whose node_modules links to the BUILT packages (dist, run
 * `pnpm build` first), `require()` for each `require` condition and `import()` for each `import`
 * condition, in a separate Node process per way of loading.
 *
 * - `require` with Node's defaults: `engines.node` is >=20.19.0, where require(esm) is on, so
 *   every CommonJS entry must load there.
 * - `require` with `--no-experimental-require-module` (what Jest 29 and other require()-only
 *   runtimes see): the CJS builds bundle the ESM-only `jose` and `oauth4webapi` (tsup.base.ts), so
 *   every entry loads except the few listed in NEEDS_REQUIRE_ESM, each with the reason.
 * - both ways give the same export names.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

interface Entry {
  folder: string;
  spec: string;
  require: boolean;
  import: boolean;
  json: boolean;
}

function entries(): Entry[] {
  const out: Entry[] = [];
  for (const folder of readdirSync(join(ROOT, 'packages')).sort()) {
    const file = join(ROOT, 'packages', folder, 'package.json');
    if (!existsSync(file)) continue;
    const manifest = JSON.parse(readFileSync(file, 'utf8'));
    if (manifest.private) continue;
    for (const [subpath, target] of Object.entries<unknown>(manifest.exports ?? {})) {
      if (subpath === './package.json') continue;
      const spec = `${manifest.name}${subpath === '.' ? '' : subpath.slice(1)}`;
      const conditions =
        typeof target === 'string' ? { default: target } : (target as Record<string, unknown>);
      const json = typeof target === 'string' && target.endsWith('.json');
      out.push({
        folder,
        spec,
        json,
        require: 'require' in conditions || 'default' in conditions,
        import: 'import' in conditions || 'default' in conditions,
      });
    }
  }
  return out;
}

/** Entries that need require(esm) (on by default on every Node that `engines` admits), and why. */
const NEEDS_REQUIRE_ESM: Record<string, string> = {
  '@agentgov/gateway/testing': 'oidc-provider (the test issuer) ships only ES modules',
  '@agentgov/interchange/a2a': "@a2a-js/sdk's CommonJS build itself requires the ESM-only jose",
};
/** Entries whose CommonJS form cannot load at all, and why (the message Node prints). */
const NO_REQUIRE: Record<string, { reason: string; message: RegExp }> = {
  '@agentgov/core/testing': {
    reason: 'the conformance suites run inside Vitest, which refuses require() and always imports ESM',
    message: /Vitest cannot be imported in a CommonJS module using require\(\)/,
  },
};

type Outcome = { ok: true; names: string[] } | { ok: false; message: string };

/** Loads every spec in one Node process; answers {spec: outcome}. */
function loadAll(cwd: string, specs: Entry[], how: 'require' | 'import', flags: string[] = []) {
  const script = `
    const specs = ${JSON.stringify(specs.map((e) => ({ spec: e.spec, json: e.json })))};
    const out = {};
    for (const { spec, json } of specs) {
      try {
        const m = ${how === 'require' ? 'require(spec)' : "await import(spec, json ? { with: { type: 'json' } } : undefined)"};
        out[spec] = { ok: true, names: Object.keys(m).filter((k) => k !== 'default' && k !== 'module.exports').sort() };
      } catch (error) {
        out[spec] = { ok: false, message: String(error?.message ?? error).split('\\n')[0] };
      }
    }
    process.stdout.write(JSON.stringify(out));`;
  const wrapped = how === 'require' ? `(async () => {${script}})()` : script;
  const r = spawnSync(
    process.execPath,
    [...flags, ...(how === 'import' ? ['--input-type=module'] : []), '-e', wrapped],
    { cwd, encoding: 'utf8', timeout: 120_000, env: { ...process.env, NODE_NO_WARNINGS: '1' } },
  );
  if (r.status !== 0) throw new Error(`node ${how} exited ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout) as Record<string, Outcome>;
}

const ALL = entries();
let dir: string;
let required: Record<string, Outcome>;
let requiredWithoutEsm: Record<string, Outcome>;
let imported: Record<string, Outcome>;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentgov-entries-'));
  mkdirSync(join(dir, 'node_modules', '@agentgov'), { recursive: true });
  for (const folder of new Set(ALL.map((e) => e.folder))) {
    symlinkSync(join(ROOT, 'packages', folder), join(dir, 'node_modules', '@agentgov', folder), 'dir');
  }
  const cjs = ALL.filter((e) => e.require && !e.json);
  required = loadAll(dir, cjs, 'require');
  requiredWithoutEsm = loadAll(dir, cjs, 'require', ['--no-experimental-require-module']);
  imported = loadAll(
    dir,
    ALL.filter((e) => e.import),
    'import',
  );
}, 180_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('entry points (built packages, from a fresh directory)', () => {
  it('finds the entry points of every published package', () => {
    expect(ALL.length).toBeGreaterThan(20);
    expect(ALL.map((e) => e.spec)).toEqual(expect.arrayContaining(['@agentgov/core', '@agentgov/gateway']));
  });

  it.each(ALL.filter((e) => e.import).map((e) => [e.spec, e]))('import(%s)', (_spec, e) => {
    const outcome = imported[e.spec];
    expect(outcome, 'run `pnpm build` first').toBeDefined();
    expect(outcome).toMatchObject({ ok: true });
    if (!e.json) expect((outcome as { names: string[] }).names.length).toBeGreaterThan(0);
  });

  it.each(ALL.filter((e) => e.require && !e.json).map((e) => [e.spec, e]))('require(%s)', (_spec, e) => {
    const outcome = required[e.spec];
    const refused = NO_REQUIRE[e.spec];
    if (refused) {
      expect(outcome, refused.reason).toMatchObject({
        ok: false,
        message: expect.stringMatching(refused.message),
      });
      return;
    }
    expect(outcome).toMatchObject({ ok: true });
    // The CommonJS build exports what the ES module exports.
    const esm = imported[e.spec];
    if (esm?.ok && outcome?.ok) expect(outcome.names).toEqual(esm.names);
  });

  it.each(ALL.filter((e) => e.require && !e.json).map((e) => [e.spec, e]))(
    'require(%s) without require(esm), as under Jest',
    (_spec, e) => {
      const outcome = requiredWithoutEsm[e.spec];
      if (NO_REQUIRE[e.spec]) return expect(outcome).toMatchObject({ ok: false });
      if (NEEDS_REQUIRE_ESM[e.spec]) {
        // Listed with a reason; it must really need it (else drop it from the list).
        return expect(outcome, NEEDS_REQUIRE_ESM[e.spec]).toMatchObject({
          ok: false,
          message: expect.stringMatching(/require\(\) of ES Module|ERR_REQUIRE_ESM/),
        });
      }
      expect(outcome).toMatchObject({ ok: true });
    },
  );
});
