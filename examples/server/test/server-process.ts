/**
 * A reference-server process for tests and bench scripts alike (no vitest here): the real
 * `src/main.ts`, so a crash is an exit the caller sees.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const serverDir = fileURLToPath(new URL('..', import.meta.url));

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  /** Everything the process wrote to stderr (crash reports). */
  stderr(): string;
  /** Everything it wrote to stdout (progress lines, the banner, the log). */
  stdout(): string;
  stop(): Promise<void>;
}

/**
 * A reference-server process (`src/main.ts`, as `pnpm start` runs it); resolves on its "listening
 * on" banner. `keepOutput: false` stops keeping stdout once it is ready (a long load run logs a lot).
 */
export function startProcess(
  env: Record<string, string>,
  options: { keepOutput?: boolean } = {},
): Promise<ServerProcess> {
  const keep = options.keepOutput !== false;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: serverDir,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr?.on('data', (c: Buffer) => {
    if (keep || err.length < 100_000) err += c.toString();
  });
  let ready = false;
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (c: Buffer) => {
      if (ready && !keep) return; // drained, not kept
      out += c.toString();
      const url = ready ? undefined : /listening on (https?:\/\/\S+)/.exec(out)?.[1];
      if (!url) return;
      ready = true;
      resolve({
        child,
        url,
        stderr: () => err,
        stdout: () => out,
        async stop() {
          if (child.exitCode !== null || child.signalCode !== null) return;
          child.kill('SIGTERM');
          await once(child, 'exit');
        },
      });
    });
    child.once('exit', (code) => {
      if (!ready) reject(new Error(`server exited ${code}: ${out}\n${err}`));
    });
  });
}
