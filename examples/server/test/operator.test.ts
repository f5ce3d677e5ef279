/**
 * Operator experience (issue 14): one request log line per request with nothing secret in it;
 * dev tokens that survive a restart; the data directory held by one process; checkpoints made by
 * the server; `pnpm start` stopped by SIGTERM or Ctrl-C with exit 0. Start-up failures in one
 * line: startup-failures.test.ts.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../src/config';
import { DataDirInUseError } from '../src/data-lock';
import { startServer } from '../src/server';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const cleanEnv = { REDIS_URL: '', OPA_URL: '', OIDC_ISSUER: '', DATABASE_URL: '', AGENTGOV_DATA_DIR: '' };

describe('request log', () => {
  it('writes one JSON line per request (route template, status, duration, ids) and never a credential', async () => {
    const lines: string[] = [];
    const server = await startServer(loadConfig({ DATABASE_URL: 'memory:', PORT: '0' }), {
      env: {},
      log: (l) => lines.push(l),
    });
    try {
      const token = await server.devIssuer!.mintIdToken('alice');
      const res = await fetch(`${server.url}/api/v1/auth/userinfo?code=the-secret-code`, {
        headers: {
          authorization: `Bearer ${token}`,
          cookie: 'session=cookie-value-123',
          'x-request-id': 'req-42',
        },
      });
      expect(res.status).toBe(200);
      await new Promise((r) => setTimeout(r, 50));
      const mine = lines
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((r) => r.msg === 'request' && r.requestId === 'req-42');
      expect(mine).toHaveLength(1);
      expect(mine[0]).toMatchObject({
        method: 'GET',
        route: '/auth/userinfo',
        status: 200,
        tenantId: 'acme',
      });
      expect(mine[0]?.time).toMatch(/^\d{4}-\d\d-\d\dT.*Z$/);
      expect(typeof mine[0]?.durationMs).toBe('number');
      for (const secret of [token, token.split('.')[2]!, 'cookie-value-123', 'the-secret-code']) {
        expect(lines.join('\n')).not.toContain(secret);
      }
    } finally {
      await server.close();
    }
  });
});

describe('request log outside /api/v1, and HEAD', () => {
  it('writes one line for `/` and every console answer (page, asset, 404); HEAD answers as GET, without a body', async () => {
    const lines: string[] = [];
    const server = await startServer(loadConfig({ DATABASE_URL: 'memory:', PORT: '0' }), {
      env: {},
      log: (l) => lines.push(l),
    });
    try {
      const cases = [
        ['GET', '/', 'application/json', 200, '/'],
        ['GET', '/', 'text/html', 302, '/'],
        ['HEAD', '/', 'text/html', 302, '/'],
        ['HEAD', '/', 'application/json', 200, '/'],
        ['GET', '/console/', 'text/html', 200, '/console/{path}'],
        ['HEAD', '/console/', 'text/html', 200, '/console/{path}'],
        ['GET', '/console/assets/gone-1.js', '*/*', 404, '/console/{path}'],
        ['GET', '/nope', '*/*', 404, null], // the gateway's answer, logged by the kernel
      ] as const;
      for (const [i, [method, path, accept, status, route]] of cases.entries()) {
        const requestId = `req-front-${i}`;
        const res = await fetch(`${server.url}${path}`, {
          method,
          headers: { accept, 'x-request-id': requestId },
          redirect: 'manual',
        });
        const body = await res.text();
        expect([method, path, accept, res.status]).toEqual([method, path, accept, status]);
        if (method === 'HEAD') {
          expect(body).toBe('');
          // The same status and headers as GET (aside from the date, the request id, how the
          // connection carries a body, and the `content-length: 0` Node adds to an empty GET answer).
          const get = await fetch(`${server.url}${path}`, { headers: { accept }, redirect: 'manual' });
          await get.text();
          const headers = (r: Response) =>
            [...r.headers].filter(
              ([name, value]) =>
                !['date', 'x-request-id', 'connection', 'keep-alive', 'transfer-encoding'].includes(name) &&
                !(name === 'content-length' && value === '0'),
            );
          expect(headers(res), `${method} ${path} ${accept}`).toEqual(headers(get));
        }
        // The line is written when the answer ends: wait for it (no fixed sleep).
        const logged = () =>
          lines
            .map((l) => JSON.parse(l) as Record<string, unknown>)
            .filter((r) => r.msg === 'request' && r.requestId === requestId);
        await vi.waitFor(() => expect(logged().length).toBeGreaterThan(0), { timeout: 30_000, interval: 5 });
        const mine = logged();
        expect(mine, `${method} ${path} ${accept}`).toHaveLength(1);
        expect(mine[0]).toMatchObject({ method, route, status, tenantId: null, userId: null });
        expect(typeof mine[0]?.durationMs).toBe('number');
      }
      expect(lines.join('\n')).not.toContain('gone-1.js'); // the template, never the raw path
    } finally {
      await server.close();
    }
  });
});

describe('embedded database directory', () => {
  it('keeps dev tokens valid across a restart, is held by one process, and gets checkpoints', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentgov-operator-'));
    const config = loadConfig({ AGENTGOV_DATA_DIR: dir, PORT: '0' });
    try {
      const first = await startServer(config, { env: {} });
      const token = await first.devIssuer!.mintIdToken('alice');
      const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      const created = await fetch(`${first.url}/api/v1/policies`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({
          scope: 'enterprise',
          scopeId: 'acme',
          domain: 'features',
          name: 'checkpointed',
          version: '1.0.0',
          changeReason: 'operator test',
          content: '{}',
        }),
      });
      expect(created.status).toBe(201);
      // A second process (here: a second server) on the same directory is refused in words.
      const refused = await startServer(config, { env: {} }).then(
        async (s) => {
          await s.close();
          return undefined;
        },
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(DataDirInUseError);
      expect(String((refused as Error).message)).toContain(`in use by process ${process.pid}`);
      await first.close();

      const second = await startServer(config, { env: {} });
      try {
        const res = await fetch(`${second.url}/api/v1/auth/userinfo`, { headers: auth });
        expect(res.status).toBe(200); // the token printed by the first run
        const report = await second.auditService.verify('acme');
        expect(report.ok).toBe(true);
        expect(report.checkpoints.length).toBeGreaterThanOrEqual(1); // written at the first run's stop
      } finally {
        await second.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('`pnpm start` from the repository root', () => {
  const start = (
    port: number,
    store: Record<string, string> = { DATABASE_URL: 'memory:' },
  ): { child: ChildProcess; output: () => string } => {
    const child = spawn('pnpm', ['start'], {
      cwd: root,
      env: { ...process.env, ...cleanEnv, ...store, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true, // its own process group, as a terminal's foreground job
    });
    let out = '';
    child.stdout?.setEncoding('utf8').on('data', (c: string) => {
      out += c;
    });
    child.stderr?.setEncoding('utf8').on('data', (c: string) => {
      out += c;
    });
    return { child, output: () => out };
  };
  const up = async (port: number, output: () => string) => {
    for (let i = 0; i < 600; i++) {
      const ok = await fetch(`http://127.0.0.1:${port}/api/v1/status`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ok && output().includes('A browser login')) return; // served, and the banner is out
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`server did not start:\n${output()}`);
  };
  const gone = async (port: number) => {
    for (let i = 0; i < 100; i++) {
      const answered = await fetch(`http://127.0.0.1:${port}/api/v1/status`).then(
        () => true,
        () => false,
      );
      if (!answered) return true;
      await new Promise((r) => setTimeout(r, 100));
    }
    return false;
  };

  it('SIGTERM to the pnpm process stops the server (no orphan) and exits 0', async () => {
    const port = 23000 + Math.floor(Math.random() * 900);
    const { child, output } = start(port);
    await up(port, output);
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    expect(code, output()).toBe(0);
    expect(await gone(port)).toBe(true);
    expect(output()).not.toContain('ELIFECYCLE');
    expect(output()).toContain('\n  rate limits and sessions: in-process\n'); // DATABASE_URL=memory:
    // oidc-provider's warnings are replaced by one line of explanation in the banner.
    expect(output()).not.toContain('oidc-provider WARNING');
    expect(output()).toContain('development mode: state in memory');
  }, 90_000);

  it('Ctrl-C (SIGINT to the foreground process group) exits 0 without ELIFECYCLE', async () => {
    const port = 23000 + Math.floor(Math.random() * 900) + 900;
    const { child, output } = start(port);
    await up(port, output);
    process.kill(-(child.pid as number), 'SIGINT');
    const [code] = await once(child, 'exit');
    expect(code, output()).toBe(0);
    expect(await gone(port)).toBe(true);
    expect(output()).toContain('SIGINT: finishing in-flight requests');
    expect(output()).not.toContain('ELIFECYCLE');
  }, 90_000);

  it('Ctrl-C on the default store (embedded PGlite): exit 0, a final checkpoint covering the last entry, no pid file', async () => {
    // Under `pnpm start` one Ctrl-C reaches the server twice (the terminal's signal to the group
    // and pnpm's forwarded copy); the echo used to be taken for a second Ctrl-C: exit 1, no
    // final checkpoint, `agentgov.pid` left behind.
    const dir = await mkdtemp(join(tmpdir(), 'agentgov-ctrl-c-'));
    try {
      const port = 23000 + Math.floor(Math.random() * 900) + 1800;
      const { child, output } = start(port, { AGENTGOV_DATA_DIR: dir, AGENTGOV_CHECKPOINT_INTERVAL: '0' });
      await up(port, output);
      expect(existsSync(join(dir, 'agentgov.pid'))).toBe(true);
      // What the start-up did, step by step, before the banner.
      const steps = [
        `agentgov: port ${port} on 127.0.0.1 bound (requests get 503 until the start-up completes)`,
        `agentgov: opening the embedded database in ${dir}…`,
        'agentgov: migrating the database…',
        'agentgov: loading the audit keys…',
        'agentgov: starting the development OIDC issuer…',
        'agentgov: starting the service…',
        `agentgov reference server listening on http://127.0.0.1:${port}`,
      ].map((step) => output().indexOf(step));
      expect(
        steps.every((at) => at >= 0),
        output(),
      ).toBe(true);
      expect([...steps].sort((a, b) => a - b)).toEqual(steps);
      // Sessions are in the embedded database (they survive a restart); rate limits in the process.
      expect(output()).toContain(
        '\n  rate limits: in-process; sessions: in the database (kept across restarts)\n',
      );
      const token = /^\s+alice\s+\S+\s+(\S+)$/m.exec(output())?.[1];
      const created = await fetch(`http://127.0.0.1:${port}/api/v1/policies`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          scope: 'enterprise',
          scopeId: 'acme',
          domain: 'features',
          name: 'last entry',
          version: '1.0.0',
          changeReason: 'ctrl-c test',
          content: '{}',
        }),
      });
      expect(created.status).toBe(201); // a policy_change entry appended
      process.kill(-(child.pid as number), 'SIGINT');
      const [code] = await once(child, 'exit');
      expect(code, output()).toBe(0);
      expect(output()).toContain('stopped');
      expect(output()).not.toContain('ELIFECYCLE');
      expect(existsSync(join(dir, 'agentgov.pid'))).toBe(false);

      const cli = spawn(
        process.execPath,
        ['--import', 'tsx', 'packages/cli/src/main.ts', 'audit', 'verify', '--database', dir, '--json'],
        { cwd: root, env: { ...process.env, ...cleanEnv }, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let out = '';
      cli.stdout.setEncoding('utf8').on('data', (c: string) => {
        out += c;
      });
      cli.stderr.resume();
      const [cliCode] = await once(cli, 'exit');
      expect(cliCode, out).toBe(0);
      const { tenants: reports } = JSON.parse(out) as {
        tenants: { tenantId: string; ok: boolean; checked: number; checkpoints: { treeSize: number }[] }[];
      };
      const acme = reports.find((r) => r.tenantId === 'acme');
      expect(acme?.ok, out).toBe(true);
      expect(acme?.checked).toBeGreaterThanOrEqual(1);
      // The final checkpoint (written at the stop: the interval is off) covers the last entry.
      expect(Math.max(...(acme?.checkpoints ?? []).map((c) => c.treeSize)), out).toBe(acme?.checked);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
