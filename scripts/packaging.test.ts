/**
 * Packaging promises of the built packages (run `pnpm build` first), checked the way an
 * application would hit them:
 * - `@agentgov/audit`'s CommonJS entry loads and works without require(esm) (as under Jest 29);
 * - no runtime dependency of a published package requires a newer Node than the packages' 20.19;
 * - `agentgov policy validate` runs without the database drivers (pg, PGlite, store-kysely) —
 *   they are optional peers, loaded only by `db migrate` / `audit verify`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const pkg = (name: string) => join(ROOT, 'packages', name);
const node = (args: string[], cwd = ROOT) =>
  spawnSync(process.execPath, args, {
    cwd,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, NODE_NO_WARNINGS: '1' },
  });

describe('packaging', () => {
  it('@agentgov/audit: the CJS entry signs and verifies a checkpoint without require(esm)', () => {
    const cjs = join(pkg('audit'), 'dist', 'index.cjs');
    expect(existsSync(cjs), 'run pnpm build').toBe(true);
    const script = `
      const a = require(${JSON.stringify(cjs)});
      const { InMemoryAuditStore, InMemorySecretStore } = require(${JSON.stringify(join(pkg('core'), 'dist', 'index.cjs'))});
      (async () => {
        const keys = await a.generateAuditKeys();
        const secrets = new InMemorySecretStore({ 'audit-commitment-key': keys.commitmentKey, 'audit-signing-key': keys.signingKey });
        const log = a.createAuditLog({ store: new InMemoryAuditStore(), secrets });
        const r = await log.append({ tenantId: 't', userId: 'u', actionType: 'model_call', policyApplied: 'p', policyResult: 'allow', outcome: 'success', requestId: 'r' });
        if (r.isErr()) throw r.error;
        const cp = await log.checkpoint('t');
        if (cp.isErr()) throw cp.error;
        const v = await a.verifyCheckpoint(cp.value.jws, keys.publicJwk);
        if (v.isErr()) throw v.error;
        console.log('ok');
      })().catch((e) => { console.error(e); process.exit(1); });`;
    // Node ≥ 20.19 can require() ES modules; Jest cannot. Turn it off to see what Jest sees.
    const r = node(['--no-experimental-require-module', '-e', script]);
    expect(`${r.stdout}${r.stderr}`.trim()).toBe('ok');
  });

  it.each([
    'core',
    'policy',
    'audit',
    'interchange',
    'work-tracking',
    'store-kysely',
    'store-redis',
    'cli',
    'gateway',
    'mcp',
  ])('@agentgov/%s: no runtime dependency requires Node newer than 20', (name) => {
    const manifest = JSON.parse(readFileSync(join(pkg(name), 'package.json'), 'utf8'));
    const require = createRequire(join(pkg(name), 'package.json'));
    const tooNew: string[] = [];
    for (const dep of Object.keys(manifest.dependencies ?? {})) {
      if (dep.startsWith('@agentgov/')) continue;
      let dir = require.resolve
        .paths(dep)
        ?.map((p) => join(p, dep))
        .find((p) => existsSync(join(p, 'package.json')));
      if (!dir) continue;
      dir = join(dir, 'package.json');
      const engines: string | undefined = JSON.parse(readFileSync(dir, 'utf8')).engines?.node;
      const min = engines && /^\s*>=?\s*v?(\d+)/.exec(engines);
      if (min && Number(min[1]) > 20) tooNew.push(`${dep} (engines.node ${engines})`);
    }
    expect(tooNew).toEqual([]);
  });

  it('agentgov policy validate runs without pg, PGlite or @agentgov/store-kysely', () => {
    const blocked = ['pg', '@electric-sql/pglite', '@agentgov/store-kysely'];
    const hooks = `export async function resolve(specifier, context, next) {
      if (${JSON.stringify(blocked)}.includes(specifier)) throw new Error('blocked import: ' + specifier);
      return next(specifier, context);
    }`;
    const register = `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});`;
    const main = join(pkg('cli'), 'bin', 'agentgov.js');
    const validate = node([
      '--import',
      `data:text/javascript,${encodeURIComponent(register)}`,
      main,
      'policy',
      'validate',
      join(ROOT, 'examples', 'policies'),
    ]);
    expect(validate.status, validate.stderr).toBe(0);
    // The same hook does break the commands that need a driver: the test can fail.
    const migrate = node([
      '--import',
      `data:text/javascript,${encodeURIComponent(register)}`,
      main,
      'db',
      'migrate',
      '--database',
      'memory://',
    ]);
    expect(migrate.status).not.toBe(0);
    expect(migrate.stderr).toMatch(/blocked import: @agentgov\/store-kysely/);
  });
});
