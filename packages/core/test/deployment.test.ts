import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  envSettings,
  fileSettings,
  formatDeploymentIssue,
  GOVERNANCE_SERVER_TABLE,
  GovernanceServerSpecSchema,
  MASK,
  maskUrlPassword,
  nearestName,
  parseDeployment,
  printableSpec,
  setting,
  settingsEnv,
  settingsSchema,
  settingsTable,
  specPath,
} from '../src/index';

const HEAD = { apiVersion: 'agentgov.dev/v1' };
const Nested = z.strictObject({
  items: z.array(
    z.discriminatedUnion('type', [
      z.strictObject({ type: z.literal('a'), alpha: z.string() }),
      z.strictObject({ type: z.literal('b'), beta: z.number() }),
    ]),
  ),
  limits: z.strictObject({ maxBytes: z.number() }).optional(),
});
const KINDS = { Widget: Nested, GovernanceServer: GovernanceServerSpecSchema };
const issuesOf = (value: unknown) => {
  const r = parseDeployment(value, KINDS);
  if (r.isOk()) throw new Error('expected issues');
  return r.error;
};

describe('parseDeployment', () => {
  it('returns the kind, metadata and the parsed spec', () => {
    const r = parseDeployment(
      { ...HEAD, kind: 'Widget', metadata: { name: 'w' }, spec: { items: [{ type: 'b', beta: 1 }] } },
      KINDS,
    );
    expect(r._unsafeUnwrap()).toEqual({
      apiVersion: 'agentgov.dev/v1',
      kind: 'Widget',
      metadata: { name: 'w' },
      spec: { items: [{ type: 'b', beta: 1 }] },
    });
  });

  it('names unknown keys at any depth (through arrays and unions) with the nearest known key', () => {
    const issues = issuesOf({
      ...HEAD,
      kind: 'Widget',
      metdata: {},
      spec: { items: [{ type: 'a', alpha: 'x', alpah: 1 }], limits: { maxBytse: 1, zzzzzzzz: 2 } },
    });
    expect(issues).toEqual([
      { path: 'spec.items.0.alpah', message: 'unknown key', suggestion: 'spec.items.0.alpha' },
      { path: 'spec.limits.maxBytse', message: 'unknown key', suggestion: 'spec.limits.maxBytes' },
      { path: 'spec.limits.zzzzzzzz', message: 'unknown key' },
      { path: 'metdata', message: 'unknown key', suggestion: 'metadata' },
    ]);
    // Present but wrong, next to a misspelt copy: both are reported.
    expect(
      issuesOf({ ...HEAD, kind: 'Widget', spec: { items: [], limits: { maxBytes: 'x', maxBytse: 1 } } }),
    ).toEqual([
      { path: 'spec.limits.maxBytes', message: 'Invalid input: expected number, received string' },
      { path: 'spec.limits.maxBytse', message: 'unknown key', suggestion: 'spec.limits.maxBytes' },
    ]);
    expect(formatDeploymentIssue(issues[0] as (typeof issues)[0])).toBe(
      'spec.items.0.alpah: unknown key; did you mean spec.items.0.alpha?',
    );
  });

  it('says what is expected of apiVersion and kind, and of a document that is not a mapping', () => {
    expect(issuesOf({ kind: 'Widget', spec: {} })).toEqual([
      { path: 'apiVersion', message: 'missing; expected agentgov.dev/v1' },
    ]);
    expect(issuesOf({ apiVersion: 'agentgov.dev/v2', kind: 'Widgte', spec: {} })).toEqual([
      { path: 'apiVersion', message: 'expected agentgov.dev/v1 (got "agentgov.dev/v2")' },
      {
        path: 'kind',
        message: 'unknown kind "Widgte"; expected Widget or GovernanceServer',
        suggestion: 'Widget',
      },
    ]);
    expect(issuesOf({ ...HEAD })).toEqual([
      { path: 'kind', message: 'missing; expected Widget or GovernanceServer' },
    ]);
    expect(issuesOf([1])).toEqual([
      { path: '', message: 'expected a mapping with apiVersion, kind and spec (got a list)' },
    ]);
    expect(issuesOf({ ...HEAD, kind: 'Widget' })).toContainEqual(
      expect.objectContaining({ path: 'spec', message: expect.stringContaining('expected object') }),
    );
  });

  it("takes only its own kinds: Object.prototype's names are unknown kinds, not a crash", () => {
    for (const kind of ['__proto__', 'toString', 'constructor', 'hasOwnProperty']) {
      expect(issuesOf({ ...HEAD, kind, spec: {} })).toEqual([
        { path: 'kind', message: `unknown kind "${kind}"; expected Widget or GovernanceServer` },
      ]);
    }
    expect(
      issuesOf({ ...HEAD, kind: 'Widget', spec: { items: [], limits: { constructor: 1 } } }),
    ).toContainEqual({
      path: 'spec.limits.constructor',
      message: 'unknown key',
    });
  });

  it('never throws, whatever the value (property)', () => {
    const keys = fc.constantFrom(
      'apiVersion',
      'kind',
      'spec',
      'items',
      'type',
      'alpha',
      'port',
      'oidc',
      '__proto__',
      'constructor',
      'toString',
    );
    const tree = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        fc.anything(),
        fc.array(tie('node'), { maxLength: 3 }),
        fc.dictionary(keys, tie('node'), { maxKeys: 5 }),
      ),
    })).node;
    fc.assert(
      fc.property(
        fc.oneof(
          tree,
          fc.record({
            apiVersion: fc.constant('agentgov.dev/v1'),
            kind: fc.constantFrom(...Object.keys(KINDS), 'toString', '__proto__'),
            spec: tree,
          }),
        ),
        (value) => {
          const r = parseDeployment(value, KINDS);
          if (r.isErr()) for (const i of r.error) expect(typeof formatDeploymentIssue(i)).toBe('string');
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('settings trees', () => {
  const tree = {
    port: setting('PORT', z.number().int(), 'Port.', { default: 8080 }),
    db: {
      url: setting('DB_URL', z.string(), 'URL.', { secret: 'url' }),
      dir: setting('DB_DIR', z.string(), 'Dir.', { path: true }),
    },
    token: setting('TOKEN', z.string().min(4), 'Token.', { secret: true }),
    on: setting('ON', z.boolean(), 'On.', {
      toEnv: (v: boolean) => (v ? '1' : '0'),
      fromEnv: (t: string) => (t === '1' ? true : t === '0' ? false : t),
    }),
  };
  const table = settingsTable(tree);
  const schema = settingsSchema(tree);

  it('gives one strict schema and the table variable <-> key path', () => {
    expect(table.map((e) => [specPath(e), e.env])).toEqual([
      ['spec.port', 'PORT'],
      ['spec.db.url', 'DB_URL'],
      ['spec.db.dir', 'DB_DIR'],
      ['spec.token', 'TOKEN'],
      ['spec.on', 'ON'],
    ]);
    expect(schema.safeParse({ db: { url: 'x', dri: 'y' } }).success).toBe(false);
    expect(schema.safeParse({ token: { secretRef: 'tok' }, on: true }).success).toBe(true);
    expect(schema.safeParse({ port: { secretRef: 'p' } }).success).toBe(false);
  });

  it('reads secret references, resolves paths against the file, and writes the variables', () => {
    const spec = { port: 9000, db: { url: { secretRef: 'db' }, dir: 'data' }, token: 'abcd', on: true };
    const values = fileSettings(table, spec, {
      baseDir: '/etc/gov',
      env: { AGENTGOV_SECRET_DB: 'postgres://u:pw@h/d' },
    });
    expect(settingsEnv(values._unsafeUnwrap())).toEqual({
      PORT: '9000',
      DB_URL: 'postgres://u:pw@h/d',
      DB_DIR: '/etc/gov/data',
      TOKEN: 'abcd',
      ON: '1',
    });
    expect(fileSettings(table, spec, { baseDir: '/', env: {} })._unsafeUnwrapErr()).toEqual([
      { path: 'spec.db.url', message: "secret 'db' is not set (AGENTGOV_SECRET_DB)" },
    ]);
  });

  it('reads the variables into the file form, naming a bad one', () => {
    expect([
      ...envSettings(table, { PORT: '9100', ON: '0', TOKEN: '', DB_DIR: 'x' })._unsafeUnwrap(),
    ]).toEqual([
      [table[0], 9100],
      [table[2], 'x'],
      [table[4], false],
    ]);
    expect(envSettings(table, { PORT: 'abc' })._unsafeUnwrapErr()).toEqual([
      { path: 'spec.port', message: 'PORT: Invalid input: expected number, received string' },
    ]);
  });

  it('prints the values over the defaults with every secret masked', () => {
    const values = new Map<(typeof table)[number], unknown>([
      [table[1] as (typeof table)[number], 'redis://:hunter2@cache:6379'],
      [table[3] as (typeof table)[number], 'abcd'],
    ]);
    expect(printableSpec(table, values)).toEqual({
      port: 8080,
      db: { url: `redis://:${MASK}@cache:6379` },
      token: MASK,
    });
    expect(maskUrlPassword('postgres://u@h/d')).toBe('postgres://u@h/d');
    // URLs inside a text (an upstream's argument, a DSN setting) are masked too, every one
    expect(maskUrlPassword('--dsn=postgres://u:pw@db/x DATABASE_URL=redis://:s3cret@cache')).toBe(
      `--dsn=postgres://u:${MASK}@db/x DATABASE_URL=redis://:${MASK}@cache`,
    );
  });

  it('GovernanceServer: every setting goes to its variable and back unchanged (property)', () => {
    const samples: Record<string, unknown[]> = {
      PORT: [0, 8080],
      AGENTGOV_CHECKPOINT_INTERVAL: [0, 60, '1m', '500ms'],
      AGENTGOV_TRUST_PROXY: [true, 2, 'loopback, 10.0.0.0/8'],
      AGENTGOV_REQUEST_LOG: [true, false],
      AGENTGOV_SECURE_COOKIES: [true, false],
      AGENTGOV_TLS_INTERNAL_PATHS: [['/a'], ['/a', '/b/c']],
    };
    for (const entry of GOVERNANCE_SERVER_TABLE) {
      for (const value of samples[entry.env] ?? []) {
        const env = settingsEnv(new Map([[entry, value]]));
        expect(envSettings([entry], env)._unsafeUnwrap().get(entry), entry.env).toEqual(value);
      }
    }
  });
});

describe('nearestName', () => {
  it('suggests a close name only', () => {
    expect(nearestName('prot', ['port', 'host'])).toBe('port');
    expect(nearestName('clientSecert', ['clientId', 'clientSecret'])).toBe('clientSecret');
    expect(nearestName('zzzzzz', ['port', 'host'])).toBeUndefined();
    expect(nearestName('x', [])).toBeUndefined();
  });
});
