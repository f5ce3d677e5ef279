/** Where a command writes; injected so tests run commands in-process. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Environment variables (secret store, database URLs). */
  env: Record<string, string | undefined>;
  /** Whether stderr is a terminal (progress bars only then). */
  isTTY: boolean;
}

export const processIo = (): CliIo => ({
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
  env: process.env,
  isTTY: Boolean(process.stderr.isTTY),
});

/** Exit codes shared by every command: 0 ok, 1 a finding (violations, broken chain), 2 unusable input. */
export const EXIT = { ok: 0, findings: 1, usage: 2 } as const;

/** Thrown by a command for unusable input (exit 2). */
export class UsageError extends Error {}

/** A command's arguments through its `parse`; a parse failure is a usage error showing `usage`. */
export function parseUsage<T>(parse: (args: string[]) => T, args: string[], usage: string): T {
  try {
    return parse(args);
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n${usage}`);
  }
}
