import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { checkConfig } from '../src/commands/config-common';
import { configJsonSchemaText } from '../src/commands/config-schema';
import { run } from '../src/index';
import { captureIo } from './capture-io';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'agentgov-config-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

const SERVER = 'apiVersion: agentgov.dev/v1\nkind: GovernanceServer\n';
const PROXY = 'apiVersion: agentgov.dev/v1\nkind: McpProxy\n';
let n = 0;
async function file(text: string): Promise<string> {
  const f = join(dir, `f${n++}.yaml`);
  await writeFile(f, text);
  return f;
}
async function cli(args: string[], env: Record<string, string> = {}) {
  const io = captureIo(env);
  const code = await run(args, io);
  return { code, out: io.out, err: io.err };
}

describe('agentgov config validate', () => {
  it('says valid for both kinds (and the examples in the repository)', async () => {
    const server = await file(`${SERVER}spec:\n  port: 9000\n  database: {url: "memory:"}\n`);
    expect(await cli(['config', 'validate', server])).toEqual({
      code: 0,
      out: `${server}: valid (GovernanceServer)\n`,
      err: '',
    });
    const proxy = await file(
      `${PROXY}spec:\n  upstreams: [{namespace: notes, transport: stdio, command: node}]\n`,
    );
    expect((await cli(['config', 'validate', proxy])).out).toBe(`${proxy}: valid (McpProxy)\n`);
    for (const example of ['examples/server/agentgov.example.yaml', 'examples/mcp/mcp.yaml']) {
      const r = await cli(['config', 'validate', join(root, example)]);
      expect(r, example).toMatchObject({ code: 0, err: '' });
    }
  });

  it('accepts the MCP proxy legacy bare form, saying so', async () => {
    const legacy = await file('upstreams: [{namespace: notes, transport: stdio, command: node}]\n');
    const r = await cli(['config', 'validate', legacy]);
    expect(r.code).toBe(0);
    expect(r.out).toBe(`${legacy}: valid (McpProxy)\n`);
    expect(r.err).toContain('legacy form without apiVersion and kind');
  });

  it('lists every problem with its key path, message and the nearest known key (exit 1)', async () => {
    const bad = await file(
      `${SERVER}spec:\n  prot: 1\n  framework: fastify\n  oidc: {clientSecert: x}\n  metrics: {token: {secretRef: "a b"}}\n`,
    );
    const r = await cli(['config', 'validate', bad]);
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err.split('\n')).toEqual([
      `${bad}: spec.framework: Invalid option: expected one of "express"|"koa"`,
      `${bad}: spec.oidc.clientSecert: unknown key; did you mean spec.oidc.clientSecret?`,
      `${bad}: spec.metrics.token.secretRef: a secret reference: letters, digits, ., _ and -, at most 128`,
      `${bad}: spec.prot: unknown key; did you mean spec.port?`,
      `${bad}: invalid, 4 problem(s)`,
      '',
    ]);
    const json = await cli(['config', 'validate', bad, '--json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.out).issues).toContainEqual({
      path: 'spec.prot',
      message: 'unknown key',
      suggestion: 'spec.port',
    });
    const proxy = await file(`${PROXY}spec:\n  upstreams: [{namespace: n, transport: stdio, comand: x}]\n`);
    expect((await cli(['config', 'validate', proxy])).err).toContain(
      'spec.upstreams.0.comand: unknown key; did you mean spec.upstreams.0.command?',
    );
    const kind = await file('apiVersion: agentgov.dev/v2\nkind: McpProxi\nspec: {}\n');
    expect((await cli(['config', 'validate', kind])).err).toBe(
      [
        `${kind}: apiVersion: expected agentgov.dev/v1 (got "agentgov.dev/v2")`,
        `${kind}: kind: unknown kind "McpProxi"; expected GovernanceServer or McpProxy; did you mean McpProxy?`,
        `${kind}: invalid, 2 problem(s)`,
        '',
      ].join('\n'),
    );
    const yaml = await file(`${SERVER}spec: {port: 1\n`);
    expect((await cli(['config', 'validate', yaml])).err).toContain('malformed YAML');
  });

  it('refuses a Redis URL that is not redis:// or rediss://, as REDIS_URL is refused at start', async () => {
    const http = await file(`${SERVER}spec:\n  redis: {url: "http://127.0.0.1:6379"}\n`);
    const r = await cli(['config', 'validate', http]);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`${http}: spec.redis.url: expected redis://… or rediss://… (TLS)`);
    for (const url of ['redis://127.0.0.1:6379', 'rediss://cache.example:6380/0']) {
      const good = await file(`${SERVER}spec:\n  redis: {url: "${url}"}\n`);
      expect((await cli(['config', 'validate', good])).code).toBe(0);
    }
  });

  it('reads AGENTGOV_CONFIG without FILE; no file or an unreadable one is exit 2', async () => {
    const f = await file(`${SERVER}spec: {}\n`);
    expect((await cli(['config', 'validate'], { AGENTGOV_CONFIG: f })).out).toBe(
      `${f}: valid (GovernanceServer)\n`,
    );
    const missing = await cli(['config', 'validate', join(dir, 'nope.yaml')]);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('nope.yaml: no such file');
    expect((await cli(['config', 'validate', f, f])).code).toBe(2);
  });

  it('never throws on any text: only issues with a path and a message (property)', () => {
    const keys = fc.constantFrom(
      'apiVersion',
      'kind',
      'spec',
      'port',
      'upstreams',
      'oidc',
      'secretRef',
      'limits',
    );
    const tree = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        fc.jsonValue(),
        fc.array(tie('node'), { maxLength: 3 }),
        fc.dictionary(keys, tie('node'), { maxKeys: 4 }),
      ),
    })).node;
    const kinds = fc.constantFrom('GovernanceServer', 'McpProxy', 'Other');
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          tree.map((v) => JSON.stringify(v)),
          fc
            .tuple(kinds, tree)
            .map(([k, spec]) => `apiVersion: agentgov.dev/v1\nkind: ${k}\nspec: ${JSON.stringify(spec)}\n`),
        ),
        (text) => {
          const r = checkConfig(text);
          if (r.isOk()) return;
          expect(r.error.length).toBeGreaterThan(0);
          for (const i of r.error) {
            expect(typeof i.path).toBe('string');
            expect(i.message.length).toBeGreaterThan(0);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('agentgov mcp proxy on an invalid configuration', () => {
  it('cannot run: exit 2 naming every problem, where config validate finds them (exit 1)', async () => {
    const bad = await file(
      `${PROXY}spec:\n  identity: {tenantId: acme, userId: alice}\n  limts: {}\n  upstreams: [{namespace: n, transport: stdio, comand: x}]\n`,
    );
    const policies = join(root, 'examples/mcp/policies');
    const proxy = await cli(['mcp', 'proxy', '--config', bad, '--policies', policies]);
    expect(proxy.code).toBe(2);
    expect(proxy.out).toBe('');
    expect(proxy.err).toContain('spec.limts: unknown key; did you mean spec.limits?');
    expect(proxy.err).toContain('spec.upstreams.0.comand: unknown key; did you mean');
    expect((await cli(['config', 'validate', bad])).code).toBe(1);
    const help = await cli(['mcp', 'proxy', '--help']);
    expect(help.code).toBe(0);
    expect(help.out).toContain('Exit codes: 0 the session ended (stdin closed), 2 cannot run');
  });
});

describe('agentgov config print', () => {
  it('prints the effective GovernanceServer: environment over the file, defaults, secrets masked', async () => {
    const f = await file(
      `${SERVER}metadata: {name: prod}\nspec:\n  port: 9000\n  framework: koa\n  database: {url: "postgres://gov:pa55word@db/gov", dataDir: data}\n  oidc: {clientId: gov, clientSecret: {secretRef: oidc}}\n  metrics: {token: scraper-token-0123456789}\n`,
    );
    const r = await cli(['config', 'print', f], {
      AGENTGOV_SECRET_OIDC: 'hunter2-secret',
      PORT: '9100',
      AGENTGOV_SECURE_COOKIES: '1',
      AGENTGOV_FRAMEWORK: '',
    });
    expect(r).toMatchObject({ code: 0, err: '' });
    expect(r.out).not.toMatch(/pa55word|hunter2|scraper-token/);
    const [comment, ...yaml] = r.out.split('\n');
    expect(comment).toContain('secrets masked');
    expect(yaml.join('\n')).toBe(
      `apiVersion: agentgov.dev/v1
kind: GovernanceServer
metadata:
  name: prod
spec:
  port: 9100
  host: 127.0.0.1
  framework: koa
  database:
    url: postgres://gov:****@db/gov
    dataDir: ${join(dir, 'data')}
  oidc:
    clientId: gov
    clientSecret: "****"
    redirectUri: http://127.0.0.1:9100/api/v1/auth/callback
    scopes: openid email agentgov
  secrets: env
  checkpointInterval: 60
  log:
    level: info
    requests: true
  metrics:
    token: "****"
  proxy:
    forwardedHeader: x-forwarded-for
  cookies:
    secure: true
  webhooks:
    tenant: acme
  connectors:
    egress: private
`,
    );
  });

  it('fills in what the doc says: relative paths resolved, the defaults derived from other settings', async () => {
    // Without a file: the environment's relative paths and the default data directory against
    // the working directory; the development issuer's client, scopes and webhook tenant.
    const dev = await cli(['config', 'print'], {
      AGENTGOV_DATA_DIR: 'rel/data',
      HOST: '0.0.0.0',
      PORT: '9000',
    });
    expect(dev.code).toBe(0);
    expect(dev.out).toContain(`  database:\n    dataDir: ${join(process.cwd(), 'rel/data')}\n`);
    expect(dev.out).toContain(
      [
        '  oidc:',
        '    clientId: agentgov-dev',
        '    clientSecret: "****"',
        '    redirectUri: http://127.0.0.1:9000/api/v1/auth/callback',
        '    scopes: openid email agentgov',
      ].join('\n'),
    );
    expect(dev.out).toContain('  webhooks:\n    tenant: acme\n');
    expect((await cli(['config', 'print'])).out).toContain(`dataDir: ${join(process.cwd(), '.agentgov')}\n`);
    // An outside issuer: its scopes, no webhook tenant; HTTPS: the callback, the client-certificate
    // mode and internal paths, the MCP resource; TLS to a service: the name checked.
    const f = await file(
      `${SERVER}spec:\n  port: 8443\n  oidc: {issuer: "https://idp.example", clientId: gov, clientSecret: s}\n  tls: {cert: tls/server.crt, key: tls/server.key, clientCa: tls/ca.crt}\n  mcp: {config: mcp.yaml}\n  redis: {url: "rediss://cache.internal:6380", tls: {ca: tls/ca.crt}}\n`,
    );
    const prod = await cli(['config', 'print', f], { AGENTGOV_TLS_KEY: 'keys/server.key' });
    expect(prod.code).toBe(0);
    expect(prod.out).toContain('    scopes: openid email profile\n');
    expect(prod.out).toContain('    redirectUri: https://127.0.0.1:8443/api/v1/auth/callback\n');
    expect(prod.out).not.toContain('webhooks:');
    expect(prod.out).toContain(`    key: ${join(process.cwd(), 'keys/server.key')}\n`);
    expect(prod.out).toContain(`    cert: ${join(dir, 'tls/server.crt')}\n`);
    expect(prod.out).toContain(
      '    clientAuth: optional\n    internalPaths:\n      - /api/v1/metrics/prometheus\n',
    );
    expect(prod.out).toContain(
      `  mcp:\n    config: ${join(dir, 'mcp.yaml')}\n    resource: https://127.0.0.1:8443/api/v1/mcp\n`,
    );
    expect(prod.out).toContain('      serverName: cache.internal\n');
    // What it prints is itself a valid configuration file.
    expect((await cli(['config', 'validate', await file(prod.out)])).code).toBe(0);
  });

  it('names a bad variable, a missing secret, and prints the environment alone without a file', async () => {
    const f = await file(`${SERVER}spec:\n  oidc: {clientSecret: {secretRef: oidc}}\n`);
    const r = await cli(['config', 'print', f], { PORT: 'abc' });
    expect(r.code).toBe(1);
    expect(r.err).toContain(`${f}: spec.oidc.clientSecret: secret 'oidc' is not set (AGENTGOV_SECRET_OIDC)`);
    expect(r.err).toContain(`${f}: spec.port: PORT: expected a port number from 0 to 65535`);
    const env = await cli(['config', 'print'], { OPA_URL: 'http://opa:8181', AGENTGOV_LOG_LEVEL: 'debug' });
    expect(env.code).toBe(0);
    expect(env.out).toContain('kind: GovernanceServer\nspec:\n  port: 8080');
    expect(env.out).toContain('opa:\n    url: http://opa:8181');
    expect(env.out).toContain('level: debug');
  });

  it('prints an McpProxy (also from the legacy form) with its defaults, header and env values masked', async () => {
    const legacy = await file(
      'upstreams:\n  - {namespace: search, transport: http, url: "https://s.example/mcp", headers: {authorization: Bearer tok-123}}\n  - {namespace: notes, transport: stdio, command: node, env: {API_KEY: key-456}}\n',
    );
    const r = await cli(['config', 'print', legacy]);
    expect(r.code).toBe(0);
    expect(r.out).not.toMatch(/tok-123|key-456/);
    expect(r.out).toContain('(legacy bare form)');
    expect(r.out).toContain('apiVersion: agentgov.dev/v1\nkind: McpProxy\nspec:');
    expect(r.out).toContain('authorization: "****"');
    expect(r.out).toContain('API_KEY: "****"');
    expect(r.out).toContain('callTimeoutMs: 60000');
    // What it prints is itself a valid configuration file.
    const printed = await file(r.out);
    expect((await cli(['config', 'validate', printed])).code).toBe(0);
  });

  it("masks the password of every URL it shows: an upstream's url, a URL setting, an argument", async () => {
    const proxy = await file(
      `${PROXY}spec:\n  upstreams:\n  - {namespace: search, transport: http, url: "https://user:urlpass@example.com/mcp"}\n  - {namespace: db, transport: stdio, command: node, args: [server.js, "postgres://app:argpass@db/app"]}\n`,
    );
    const r = await cli(['config', 'print', proxy]);
    expect(r.code).toBe(0);
    expect(r.out).not.toMatch(/urlpass|argpass/);
    expect(r.out).toContain('url: https://user:****@example.com/mcp');
    expect(r.out).toContain('postgres://app:****@db/app');
    const server = await cli(['config', 'print'], { OPA_URL: 'https://agentgov:opapass@opa:8181' });
    expect(server.out).not.toContain('opapass');
    expect(server.out).toContain('url: https://agentgov:****@opa:8181');
  });
});

describe('the published JSON Schema', () => {
  it('schemas/agentgov.schema.json is what the zod schemas give (regenerate: pnpm exec tsx packages/cli/src/main.ts config schema > schemas/agentgov.schema.json && pnpm biome format --write schemas)', async () => {
    // Compared as JSON: the file is kept in the repository's format (pnpm format).
    const schema = JSON.parse(await readFile(join(root, 'schemas/agentgov.schema.json'), 'utf8'));
    expect(schema).toEqual(JSON.parse(configJsonSchemaText()));
    expect(Object.keys(schema.$defs)).toEqual(['GovernanceServer', 'McpProxy']);
    const server = schema.$defs.GovernanceServer.properties.spec;
    expect(server.additionalProperties).toBe(false);
    expect(server.properties.port).toMatchObject({ type: 'integer', default: 8080 });
    expect(server.properties.port.description).toContain('Environment: PORT.');
    expect(schema.$defs.McpProxy.properties.spec.properties.upstreams.type).toBe('array');
    expect(JSON.parse((await cli(['config', 'schema'])).out)).toEqual(schema);
  });
});

describe('the real binary', () => {
  const agentgov = (args: string[], env: Record<string, string> = {}) =>
    spawnSync('pnpm', ['exec', 'tsx', 'packages/cli/src/main.ts', ...args], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, ...env },
    });

  it('validates and prints from the command line (exit codes, stdout, stderr)', async () => {
    const bad = await file(`${SERVER}spec:\n  prot: 8080\n`);
    const invalid = agentgov(['config', 'validate', bad]);
    expect(invalid.status).toBe(1);
    expect(invalid.stderr).toContain(`${bad}: spec.prot: unknown key; did you mean spec.port?`);
    const good = await file(`${SERVER}spec:\n  metrics: {token: {secretRef: scraper}}\n`);
    expect(agentgov(['config', 'validate', good]).stdout).toBe(`${good}: valid (GovernanceServer)\n`);
    const printed = agentgov(['config', 'print', good], {
      AGENTGOV_SECRET_SCRAPER: 'scraper-token-0123456789',
      HOST: '0.0.0.0',
    });
    expect(printed.status).toBe(0);
    expect(printed.stdout).toContain('host: 0.0.0.0');
    expect(printed.stdout).toContain('token: "****"');
    expect(printed.stdout).not.toContain('scraper-token');
  }, 60_000);
});
