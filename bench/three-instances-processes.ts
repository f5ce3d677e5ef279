/**
 * The processes of `bench/three-instances.ts`: reference-server processes (`src/main.ts`, as
 * `pnpm start` runs it, through the tests' vitest-free launcher) and HAProxy in front of them.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ServerProcess, startProcess } from '../examples/server/test/server-process';

export type Child = Pick<ServerProcess, 'url' | 'stop'>;

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  await once(child, 'exit');
}

/** A reference-server process (the tests' launcher), its stdout drained once it is ready. */
export const startServer = (env: Record<string, string>): Promise<Child> =>
  startProcess(env, { keepOutput: false });

/** A free loopback port (closed again before HAProxy binds it). */
async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

/**
 * HAProxy with three frontends: `one` → the first backend server only; `three` → all three,
 * round-robin per request; `affine` → all three, by a consistent hash of the Authorization header
 * (one caller's requests — here one tenant's — stay on one process while it is up).
 */
export async function startHaproxy(
  servers: string[],
): Promise<{ one: string; three: string; affine: string; stop(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'agentgov-haproxy-'));
  const [onePort, threePort, affinePort] = [await freePort(), await freePort(), await freePort()];
  const line = (url: string, i: number) => `  server s${i + 1} ${new URL(url).host}`;
  const config = [
    'global',
    '  maxconn 4096',
    'defaults',
    '  mode http',
    '  timeout connect 5s',
    '  timeout client 60s',
    '  timeout server 60s',
    'frontend one',
    `  bind 127.0.0.1:${onePort}`,
    '  default_backend one',
    'frontend three',
    `  bind 127.0.0.1:${threePort}`,
    '  default_backend three',
    'frontend affine',
    `  bind 127.0.0.1:${affinePort}`,
    '  default_backend affine',
    'backend one',
    '  http-response set-header x-backend %s',
    line(servers[0] as string, 0),
    'backend three',
    '  balance roundrobin',
    '  http-response set-header x-backend %s',
    ...servers.map(line),
    'backend affine',
    '  balance hdr(authorization)',
    '  hash-type consistent',
    '  http-response set-header x-backend %s',
    ...servers.map(line),
    '',
  ].join('\n');
  await writeFile(join(dir, 'haproxy.cfg'), config);
  const child = spawn('haproxy', ['-db', '-f', join(dir, 'haproxy.cfg')], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  child.once('error', (e) => console.error(`haproxy: ${e.message} (apt-get install -y haproxy)`));
  const one = `http://127.0.0.1:${onePort}`;
  const three = `http://127.0.0.1:${threePort}`;
  const affine = `http://127.0.0.1:${affinePort}`;
  for (let i = 0; ; i++) {
    const up = await Promise.all(
      [one, three, affine].map((u) =>
        fetch(`${u}/api/v1/readyz`).then(
          (r) => r.ok,
          () => false,
        ),
      ),
    );
    if (up.every(Boolean)) break;
    if (i > 100 || child.exitCode !== null) throw new Error('haproxy did not come up');
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    one,
    three,
    affine,
    async stop() {
      await stopChild(child);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
