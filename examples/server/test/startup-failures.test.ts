/**
 * Start-up failures in one line (examples/server/README.md): whatever stops the start — a bad
 * variable, the port in use, a service that cannot be reached, an unusable key or directory — is
 * one line on stderr naming what is wrong and what to do, from a real process (`src/main.ts`);
 * the stack only with `--verbose`.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../src/config';
import { DataDirInUseError } from '../src/data-lock';
import { explain } from '../src/explain';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const cleanEnv = { REDIS_URL: '', OPA_URL: '', OIDC_ISSUER: '', DATABASE_URL: '', AGENTGOV_DATA_DIR: '' };

describe('start-up failures in one line', () => {
  it('explains a taken port, an unreachable database, a bad config and a locked directory', () => {
    const inUse = Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE' });
    expect(explain(inUse, { PORT: '9000' })).toBe(
      'port 9000 on 127.0.0.1 is already in use; stop what holds it or set PORT to another port',
    );
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    expect(explain(refused, { DATABASE_URL: 'postgres://u:pw@db:5432/gov' })).toBe(
      'cannot reach the database at postgres://u:***@db:5432/gov (ECONNREFUSED); start PostgreSQL, or fix DATABASE_URL (unset it for the embedded database)',
    );
    expect(explain(new ConfigError('invalid configuration: PORT: too big'), {})).toBe(
      'invalid configuration: PORT: too big',
    );
    expect(explain(new DataDirInUseError('/d', 77), {})).toMatch(/in use by process 77/);
  });

  const run = async (env: Record<string, string>, args: string[] = []) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'examples/server/src/main.ts', ...args], {
      cwd: root,
      env: { ...process.env, ...cleanEnv, DEBUG: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      err += c;
    });
    child.stdout.resume();
    // A server that starts when it should not is stopped (exit 0) instead of hanging the test.
    const started = setTimeout(() => child.kill('SIGTERM'), 30_000);
    const [code] = await once(child, 'exit');
    clearTimeout(started);
    return { code, err };
  };

  it('a real process: the port in use, then a bad variable — no stack trace unless --verbose', async () => {
    const holder = createServer();
    await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
    const port = String((holder.address() as { port: number }).port);
    try {
      const taken = await run({ PORT: port, DATABASE_URL: 'memory:' });
      expect(taken.code).toBe(1);
      expect(taken.err).toContain(`agentgov: port ${port} on 127.0.0.1 is already in use`);
      expect(taken.err).not.toMatch(/^\s+at /m);
      const verbose = await run({ PORT: port, DATABASE_URL: 'memory:' }, ['--verbose']);
      expect(verbose.err).toMatch(/^\s+at /m);
    } finally {
      holder.close();
    }
    const db = await run({ PORT: '0', DATABASE_URL: 'postgres://u:pw@127.0.0.1:1/x' });
    expect(db.code).toBe(1);
    expect(db.err.split('\n')[0]).toBe(
      'agentgov: cannot reach the database at postgres://u:***@127.0.0.1:1/x (ECONNREFUSED); start PostgreSQL, or fix DATABASE_URL (unset it for the embedded database)',
    );
    const bad = await run({ AGENTGOV_FRAMEWORK: 'fastify' });
    expect(bad.code).toBe(1);
    expect(bad.err.split('\n')[0]).toMatch(/^agentgov: invalid configuration: AGENTGOV_FRAMEWORK/);
    expect(bad.err).not.toMatch(/^\s+at /m);
    const badPort = await run({ PORT: 'abc' });
    expect(badPort.code).toBe(1);
    expect(badPort.err.split('\n')[0]).toBe(
      'agentgov: invalid configuration: PORT="abc": expected a port number from 0 to 65535 (0: any free port)',
    );
    const interval = await run({ AGENTGOV_CHECKPOINT_INTERVAL: '1 minute' });
    expect(interval.code).toBe(1);
    expect(interval.err.split('\n')[0]).toBe(
      'agentgov: invalid configuration: AGENTGOV_CHECKPOINT_INTERVAL="1 minute": expected seconds (60) or a duration such as 500ms, 30s, 1m or 1h, at most 24h; 0: off',
    );
  }, 90_000);

  it('Redis: one that cannot be reached is one line (no ioredis stack traces), a URL of another scheme a bad form', async () => {
    const down = await run({ PORT: '0', DATABASE_URL: 'memory:', REDIS_URL: 'redis://127.0.0.1:1' });
    expect(down.code).toBe(1);
    expect(down.err).not.toContain('Unhandled error event');
    expect(down.err).not.toMatch(/^\s+at /m);
    const [line, ...rest] = down.err.trimEnd().split('\n');
    expect(line).toMatch(
      /^agentgov: cannot reach Redis at redis:\/\/127\.0\.0\.1:1; start Redis, or fix REDIS_URL /,
    );
    expect(rest).toEqual(['  (details: run again with --verbose or DEBUG=1)']);
    const http = await run({ PORT: '0', DATABASE_URL: 'memory:', REDIS_URL: 'http://u:pw@127.0.0.1:1' });
    expect(http.code).toBe(1);
    expect(http.err.split('\n')[0]).toBe(
      'agentgov: invalid configuration: REDIS_URL="http://u:***@127.0.0.1:1": expected redis://… or rediss://… (TLS)',
    );
  }, 60_000);

  it('audit keys the audit log would refuse stop the start, naming the variable (value not shown) and what it takes', async () => {
    const memory = { PORT: '0', DATABASE_URL: 'memory:' };
    const short = await run({ ...memory, AGENTGOV_SECRET_AUDIT_COMMITMENT_KEY: 'short' });
    expect(short.code).toBe(1);
    expect(short.err.split('\n')[0]).toBe(
      'agentgov: invalid configuration: AGENTGOV_SECRET_AUDIT_COMMITMENT_KEY=(5 characters, not shown): at least 32 characters are required; set it to a random secret, such as the commitment key generateAuditKeys() of @agentgov/audit makes',
    );
    const notJson = await run({ ...memory, AGENTGOV_SECRET_AUDIT_SIGNING_KEY: 'notjson' });
    expect(notJson.code).toBe(1);
    expect(notJson.err.split('\n')[0]).toBe(
      'agentgov: invalid configuration: AGENTGOV_SECRET_AUDIT_SIGNING_KEY=(7 characters, not shown): not a JSON Web Key; set it to a private Ed25519 or P-256 JWK (JSON), such as the signing key generateAuditKeys() of @agentgov/audit makes',
    );
    expect(`${short.err}${notJson.err}`).not.toMatch(/notjson|=short/);
  }, 90_000);

  it('a HOST, a data directory or an OIDC issuer it cannot use: one line naming the variable, its value and what to set', async () => {
    const memory = { PORT: '0', DATABASE_URL: 'memory:' };
    const choose =
      'set HOST to an address of this machine: 127.0.0.1 (this machine only) or 0.0.0.0 (every interface)';
    const noSuchHost = await run({ ...memory, HOST: '999.1.1.1' });
    expect(noSuchHost.code).toBe(1);
    expect(noSuchHost.err.split('\n')[0]).toMatch(
      /^agentgov: cannot listen on HOST="999\.1\.1\.1": no such address or host name \((ENOTFOUND|EAI_AGAIN|EAI_NONAME|EAI_FAIL)\); /,
    );
    expect(noSuchHost.err.split('\n')[0]).toContain(`; ${choose}, or a host name that resolves to one`);
    const notMine = await run({ ...memory, HOST: '8.8.8.8' });
    expect(notMine.code).toBe(1);
    expect(notMine.err.split('\n')[0]).toBe(
      `agentgov: cannot listen on HOST="8.8.8.8": not an address of this machine (EADDRNOTAVAIL); ${choose}`,
    );
    const dir = await mkdtemp(join(tmpdir(), 'agentgov-startup-'));
    try {
      const file = join(dir, 'a-file');
      await writeFile(file, 'x');
      const notDir = await run({ PORT: '0', AGENTGOV_DATA_DIR: file });
      expect(notDir.code).toBe(1);
      expect(notDir.err.split('\n')[0]).toBe(
        `agentgov: cannot use AGENTGOV_DATA_DIR=${JSON.stringify(file)}: it is a file, not a directory (EEXIST); set AGENTGOV_DATA_DIR to a directory this user can write (created when missing), or unset it for ./.agentgov`,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    const plainIssuer = await run({
      ...memory,
      OIDC_ISSUER: 'http://example.com',
      OIDC_CLIENT_ID: 'a',
      OIDC_CLIENT_SECRET: 'b',
    });
    expect(plainIssuer.code).toBe(1);
    expect(plainIssuer.err.split('\n')[0]).toBe(
      'agentgov: invalid configuration: OIDC_ISSUER="http://example.com": expected an https:// URL (http:// only for an issuer on loopback: localhost, 127.0.0.1 or [::1])',
    );
  }, 120_000);
});
