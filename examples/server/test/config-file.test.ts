import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EnvSecretStore, GOVERNANCE_SERVER_TABLE, specPath } from '@agentgov/core';
import { createTestPki } from '@agentgov/gateway/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES, ConfigError, loadConfig } from '../src/config';
import { configFilePath, loadServerSettings, parseConfigFile } from '../src/config-file';
import { EVERY_VARIABLE } from './contract-env';

const serverDir = fileURLToPath(new URL('..', import.meta.url));
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'agentgov-config-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const HEAD = 'apiVersion: agentgov.dev/v1\nkind: GovernanceServer\n';
let n = 0;
/** Writes a configuration file (the envelope's head, then `body`) and returns its path. */
async function file(body: string, head = HEAD): Promise<string> {
  const f = path.join(dir, `c${n++}.yaml`);
  await writeFile(f, head + body);
  return f;
}
const load = (f: string, env: Record<string, string> = {}) =>
  loadServerSettings(['--config', f], env, '/srv');
const failure = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
};

const FULL = `metadata: {name: prod}
spec:
  port: 9000
  host: 0.0.0.0
  framework: koa
  database: {url: 'postgres://u@db:5432/gov'}
  redis: {url: 'redis://cache:6379'}
  opa: {url: 'http://opa:8181'}
  oidc:
    issuer: https://idp.example
    clientId: gov
    clientSecret: {secretRef: oidc-client}
    redirectUri: https://gov.example/callback
    scopes: openid email groups
  secrets: env
  checkpointInterval: 5m
  log: {level: warn, requests: false}
  metrics: {token: scraper-token-0123456789}
  proxy: {trust: 1, forwardedHeader: forwarded}
  cookies: {secure: true}
  mcp: {config: mcp.yaml, resource: 'https://gov.example/api/v1/mcp'}
  webhooks: {tenant: acme}
  connectors: {egress: public, networks: [10.20.0.0/16, 'fd00:1::/64']}
  secretOwners: {acme: [acme-jira, acme-hook], globex: [globex-token]}
`;

describe('agentgov.yaml (kind GovernanceServer)', () => {
  it('gives every setting the environment variables give, with the same result', async () => {
    const f = await file(FULL);
    const { config, env } = load(f, { AGENTGOV_SECRET_OIDC_CLIENT: 's3cret' });
    expect(config).toEqual(loadConfig(EVERY_VARIABLE, '/srv'));
    expect(config.oidc.clientSecret).toBe('s3cret');
    // The secret the file reads is in its setting, and out of the secret store's reach (no
    // tenant's connector can name `oidc-client` and have it sent to a URL of its choosing).
    expect(env.OIDC_CLIENT_SECRET).toBe('s3cret');
    expect(env.AGENTGOV_SECRET_OIDC_CLIENT).toBeUndefined();
    expect(await new EnvSecretStore(env).get('oidc-client')).toBeUndefined();
    // Settings the server reads outside loadConfig reach it through the environment it is given.
    expect(env).toMatchObject({
      AGENTGOV_REQUEST_LOG: 'off',
      AGENTGOV_MCP_CONFIG: path.join(dir, 'mcp.yaml'), // relative to the file's directory
      AGENTGOV_MCP_RESOURCE: 'https://gov.example/api/v1/mcp',
      AGENTGOV_WEBHOOK_TENANT: 'acme',
    });
  });

  it('lists every variable loadConfig reads, and the defaults it documents are the ones loadConfig applies', () => {
    const variables = GOVERNANCE_SERVER_TABLE.map((e) => e.env);
    expect(new Set(variables).size).toBe(variables.length);
    for (const variable of CONFIG_VARIABLES) expect(variables).toContain(variable);
    const defaults = loadConfig({}, '/srv');
    for (const entry of GOVERNANCE_SERVER_TABLE) {
      if (entry.default === undefined || !CONFIG_VARIABLES.includes(entry.env)) continue;
      const text = entry.toEnv ? entry.toEnv(entry.default as never) : String(entry.default);
      expect(loadConfig({ [entry.env]: text }, '/srv'), entry.env).toEqual(defaults);
    }
  });

  it('has every setting in the table of docs/configuration.md', async () => {
    const docs = await readFile(path.join(serverDir, '../../docs/configuration.md'), 'utf8');
    for (const entry of GOVERNANCE_SERVER_TABLE)
      expect(docs).toContain(`| \`${specPath(entry)}\` | \`${entry.env}\` |`);
  });

  it('is overridden by the environment (a set variable wins; an empty one counts as unset)', async () => {
    const f = await file('spec:\n  port: 9000\n  framework: koa\n  database: {url: "memory:"}\n');
    expect(load(f).config).toMatchObject({ port: 9000, framework: 'koa', database: { kind: 'memory' } });
    const c = load(f, { PORT: '9100', AGENTGOV_FRAMEWORK: '', DATABASE_URL: 'postgres://h/db' }).config;
    expect(c).toMatchObject({ port: 9100, framework: 'koa', database: { kind: 'postgres' } });
    // A bad variable is reported by its name, as without a file.
    expect(failure(() => load(f, { PORT: 'abc' }))).toMatch(/PORT="abc": expected a port number/);
  });

  it('names an unknown key and the nearest known one', async () => {
    const f = await file('spec:\n  prot: 9000\n  oidc: {clientSecert: x}\n  databse: {url: "memory:"}\n');
    const message = failure(() => load(f));
    expect(message).toContain(`invalid configuration file ${f}`);
    expect(message).toContain('spec.prot: unknown key; did you mean spec.port?');
    expect(message).toContain('spec.oidc.clientSecert: unknown key; did you mean spec.oidc.clientSecret?');
    expect(message).toContain('spec.databse: unknown key; did you mean spec.database?');
  });

  it('refuses a wrong apiVersion or kind, and values of the wrong form, by key path', async () => {
    const v2 = await file('spec: {}\n', 'apiVersion: agentgov.dev/v2\nkind: GovernanceServer\n');
    expect(failure(() => load(v2))).toContain('apiVersion: expected agentgov.dev/v1 (got "agentgov.dev/v2")');
    const kind = await file('spec: {}\n', 'apiVersion: agentgov.dev/v1\nkind: GovernanceSever\n');
    expect(failure(() => load(kind))).toContain(
      'kind: unknown kind "GovernanceSever"; expected GovernanceServer; did you mean GovernanceServer?',
    );
    const mcp = await file('spec: {}\n', 'apiVersion: agentgov.dev/v1\nkind: McpProxy\n');
    expect(failure(() => load(mcp))).toContain('kind: unknown kind "McpProxy"; expected GovernanceServer');
    const bare = await file('port: 9000\n', '');
    expect(failure(() => load(bare))).toContain('apiVersion: missing; expected agentgov.dev/v1');
    const values = await file(
      'spec:\n  port: "80a"\n  framework: fastify\n  checkpointInterval: soon\n  database: {url: "mysql://x"}\n',
    );
    const message = failure(() => load(values));
    expect(message).toContain('spec.port: expected a port number from 0 to 65535');
    expect(message).toContain('spec.framework: Invalid option: expected one of "express"|"koa"');
    expect(message).toContain('spec.checkpointInterval: expected seconds (60) or a duration');
    expect(message).toContain('spec.database.url: expected postgres://…, postgresql://… or memory:');
    const yaml = await file('spec: {port: 1\n');
    expect(failure(() => load(yaml))).toMatch(/malformed YAML/);
    expect(failure(() => load(path.join(dir, 'absent.yaml')))).toMatch(/absent\.yaml not found/);
  });

  it('reads a secret by reference from the secret store, and says which variable is missing', async () => {
    const f = await file('spec:\n  metrics: {token: {secretRef: scraper}}\n');
    expect(load(f, { AGENTGOV_SECRET_SCRAPER: 'scraper-token-0123456789' }).config.metricsToken).toBe(
      'scraper-token-0123456789',
    );
    expect(failure(() => load(f))).toContain(
      "spec.metrics.token: secret 'scraper' is not set (AGENTGOV_SECRET_SCRAPER)",
    );
    // Never echoed: a secret value that fails the check is not in the message.
    const short = await file('spec:\n  metrics: {token: hunter2}\n');
    expect(failure(() => load(short))).not.toContain('hunter2');
  });

  it('resolves relative paths against the file, and is found at --config, AGENTGOV_CONFIG or ./agentgov.yaml', async () => {
    const f = await file('spec:\n  database: {dataDir: data/gov}\n');
    expect(load(f).config.database).toEqual({ kind: 'pglite', dataDir: path.join(dir, 'data/gov') });
    expect(configFilePath(['--config', 'a.yaml'], { AGENTGOV_CONFIG: 'b.yaml' }, '/srv')).toBe('/srv/a.yaml');
    expect(configFilePath(['--config=a.yaml'], {}, '/srv')).toBe('/srv/a.yaml');
    expect(configFilePath([], { AGENTGOV_CONFIG: 'b.yaml' }, '/srv')).toBe('/srv/b.yaml');
    expect(configFilePath([], {}, '/nonexistent-dir')).toBeUndefined();
    await writeFile(path.join(dir, 'agentgov.yaml'), `${HEAD}spec: {port: 9001}\n`);
    expect(configFilePath([], {}, dir)).toBe(path.join(dir, 'agentgov.yaml'));
    expect(loadServerSettings([], {}, dir).config.port).toBe(9001);
    expect(() => configFilePath(['--config'], {}, '/srv')).toThrow(ConfigError);
  });

  it('takes the TLS settings, PEM paths relative to the file', async () => {
    const pki = createTestPki();
    try {
      const rel = (f: string) => path.relative(pki.dir, f);
      const f = path.join(pki.dir, 'agentgov.yaml');
      await writeFile(
        f,
        `${HEAD}spec:
  port: 8443
  tls:
    cert: ${rel(pki.ca.server.certFile)}
    key: ${rel(pki.ca.server.keyFile)}
    clientCa: ${rel(pki.ca.certFile)}
    clientAuth: optional
    internalPaths: [/api/v1/metrics/prometheus, /api/v1/status]
  opa:
    url: https://opa.internal:8181
    tls: {ca: ${rel(pki.ca.certFile)}, serverName: localhost}
`,
      );
      const { config } = load(f);
      expect(config.tls.listen).toMatchObject({
        clientAuth: 'optional',
        internalPaths: ['/api/v1/metrics/prometheus', '/api/v1/status'],
      });
      expect(config.tls.listen?.cert).toContain('BEGIN CERTIFICATE');
      expect(config.tls.opa).toMatchObject({ servername: 'localhost' });
      expect(config.oidc.redirectUri).toBe('https://127.0.0.1:8443/api/v1/auth/callback');
      // The environment overrides a key (a list: comma-separated).
      expect(
        load(f, { AGENTGOV_TLS_INTERNAL_PATHS: '/api/v1/metrics/prometheus' }).config.tls.listen
          ?.internalPaths,
      ).toEqual(['/api/v1/metrics/prometheus']);
    } finally {
      pki.remove();
    }
  });

  it('never throws on any text or document: only issues with a path and a message (property)', () => {
    const check = (text: string) => {
      const r = parseConfigFile(text, { baseDir: '/srv', env: {} });
      if (r.isErr()) {
        expect(r.error.length).toBeGreaterThan(0);
        for (const issue of r.error) {
          expect(typeof issue.path).toBe('string');
          expect(issue.message.length).toBeGreaterThan(0);
        }
      } else for (const v of Object.values(r.value)) expect(typeof v).toBe('string');
    };
    const keys = fc.constantFrom(
      'port',
      'host',
      'database',
      'url',
      'oidc',
      'secretRef',
      'prot',
      'log',
      'level',
    );
    const tree = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        fc.jsonValue(),
        fc.dictionary(keys, tie('node'), { maxKeys: 4 }),
      ),
    })).node;
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.jsonValue().map((v) => JSON.stringify(v)),
          tree.map((spec) => `${HEAD}spec: ${JSON.stringify(spec)}\n`),
          fc.record({ apiVersion: fc.string(), kind: fc.string(), spec: tree }).map((d) => JSON.stringify(d)),
        ),
        check,
      ),
      { numRuns: 300 },
    );
  });
});

/**
 * The real server (`src/main.ts`) started as `pnpm start ARGS` typed in `cwd` (pnpm's INIT_CWD);
 * resolves to its URL or its exit.
 */
function serve(
  args: string[],
  env: Record<string, string>,
  cwd: string,
): Promise<{ child: ChildProcess; url?: string; code?: number | null; out: string; err: string }> {
  const inherited = { ...process.env };
  for (const e of GOVERNANCE_SERVER_TABLE) delete inherited[e.env];
  delete inherited.AGENTGOV_CONFIG;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], {
    cwd: serverDir,
    env: { ...inherited, INIT_CWD: cwd, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr?.on('data', (c: Buffer) => {
    err += c.toString();
  });
  return new Promise((resolve) => {
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
      if (url) resolve({ child, url, out, err });
    });
    child.once('exit', (code) => resolve({ child, code, out, err }));
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  await once(child, 'exit');
}

describe('pnpm start with a configuration file (real processes)', () => {
  it('starts from ./agentgov.yaml with port 0, answers, and the environment overrides the file', async () => {
    const cwd = await mkdtemp(path.join(dir, 'run-'));
    await writeFile(
      path.join(cwd, 'agentgov.yaml'),
      `${HEAD}spec:\n  port: 0\n  framework: koa\n  database: {url: "memory:"}\n  checkpointInterval: 0\n  log: {requests: false}\n`,
    );
    const fromFile = await serve([], {}, cwd);
    try {
      expect(fromFile.url, fromFile.err).toBeDefined();
      expect(fromFile.out).toContain(`configuration file ${path.join(cwd, 'agentgov.yaml')}`);
      expect(fromFile.out).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+ \(koa\)/);
      expect(fromFile.out).toContain('database: memory');
      const res = await fetch(`${fromFile.url}/api/v1/status`);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ status: expect.any(String) });
    } finally {
      await stop(fromFile.child);
    }
    const overridden = await serve([], { AGENTGOV_FRAMEWORK: 'express' }, cwd);
    try {
      expect(overridden.out).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+ \(express\)/);
    } finally {
      await stop(overridden.child);
    }
  }, 120_000);

  it('takes --config PATH, and an unknown key fails the start with the key, the nearest one and exit 1', async () => {
    const f = await file('spec:\n  prot: 0\n  database: {url: "memory:"}\n');
    const bad = await serve(['--config', f], {}, dir);
    expect(bad.url).toBeUndefined();
    expect(bad.code).toBe(1);
    expect(bad.err).toContain(
      `agentgov: invalid configuration file ${f}: spec.prot: unknown key; did you mean spec.port?`,
    );
    const good = await file('spec:\n  port: 0\n  host: 127.0.0.1\n  database: {url: "memory:"}\n');
    const ok = await serve(['--config', good], { AGENTGOV_REQUEST_LOG: 'off' }, dir);
    try {
      expect(ok.url, ok.err).toBeDefined();
      expect((await fetch(`${ok.url}/api/v1/livez`)).status).toBe(200);
    } finally {
      await stop(ok.child);
    }
  }, 120_000);
});
