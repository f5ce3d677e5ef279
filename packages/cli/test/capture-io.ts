import type { CliIo } from '../src/index';

/** A CliIo that records what a command writes, for in-process command tests. */
export function captureIo(
  env: Record<string, string | undefined> = {},
): CliIo & { out: string; err: string } {
  const io = {
    out: '',
    err: '',
    env,
    isTTY: false,
    stdout: (t: string) => {
      io.out += t;
    },
    stderr: (t: string) => {
      io.err += t;
    },
  };
  return io;
}
