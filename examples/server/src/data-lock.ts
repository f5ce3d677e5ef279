/**
 * The embedded database directory belongs to one process at a time (PGlite opens it
 * exclusively): `agentgov.pid` in it names the holder. A second server, or `agentgov audit
 * verify`, is told "in use by process N" instead of a WebAssembly abort. A lock left by a process
 * that no longer runs is taken over.
 */
import { mkdir, open, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from './config';

const LOCK_FILE = 'agentgov.pid';

/** Directories this process holds (its own PID in a lock file is stale unless listed here). */
const held = new Set<string>();

export class DataDirInUseError extends Error {
  readonly pid: number;
  constructor(dir: string, pid: number) {
    super(
      `the data directory ${dir} is in use by process ${pid}; stop it (kill -TERM ${pid}) or use another AGENTGOV_DATA_DIR`,
    );
    this.name = 'DataDirInUseError';
    this.pid = pid;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the directory's lock for this process; resolves to its release. */
async function lockDataDir(dir: string): Promise<() => Promise<void>> {
  const file = path.join(dir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(file, 'wx', 0o644);
      await handle.writeFile(`${process.pid}\n`);
      await handle.close();
      held.add(file);
      return async () => {
        held.delete(file);
        const holder = Number((await readFile(file, 'utf8').catch(() => '')).trim());
        if (holder === process.pid) await rm(file, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const pid = Number((await readFile(file, 'utf8').catch(() => '')).trim());
      const live = pid === process.pid ? held.has(file) : alive(pid);
      if (Number.isInteger(pid) && pid > 0 && live) {
        throw new DataDirInUseError(dir, pid);
      }
      await rm(file, { force: true }); // stale: its process is gone
    }
  }
  throw new Error(`cannot lock the data directory ${dir}`);
}

/** What each file-system error says about AGENTGOV_DATA_DIR. */
const DIR_PROBLEMS: Record<string, string> = {
  EEXIST: 'it is a file, not a directory',
  ENOTDIR: 'a part of the path is a file, not a directory',
  EACCES: 'not allowed to create or write it',
  EPERM: 'not allowed to create or write it',
  EROFS: 'it is on a read-only file system',
};

/**
 * Creates the data directory when missing and takes its lock; resolves to the lock's release. A
 * directory that cannot be used is a ConfigError naming AGENTGOV_DATA_DIR and what to do.
 */
export async function openDataDir(dir: string): Promise<() => Promise<void>> {
  try {
    await mkdir(dir, { recursive: true });
    return await lockDataDir(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    const problem = DIR_PROBLEMS[code];
    if (!problem) throw error;
    throw new ConfigError(
      `cannot use AGENTGOV_DATA_DIR=${JSON.stringify(dir)}: ${problem} (${code}); set AGENTGOV_DATA_DIR to a directory this user can write (created when missing), or unset it for ./.agentgov`,
    );
  }
}
