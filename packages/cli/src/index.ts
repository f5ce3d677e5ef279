import { type CliIo, EXIT, processIo, UsageError } from './io';

export { type CliIo, EXIT, UsageError } from './io';

const USAGE = `agentgov — policy-as-code and audit tooling

Usage:
  agentgov policy validate DIR [--json]
  agentgov policy decide DIR --domain agent-to-agent|integrations --input FILE [--user ID] [--fail-on-deny]
  agentgov audit verify --database URL|DIR [--tenant ID] [--public-key FILE] [--json]
  agentgov db migrate --database URL|DIR [--schema NAME] [--json]

Exit codes: 0 ok, 1 violations or a broken audit chain, 2 unusable input.
`;

type Command = (args: string[], io: CliIo) => Promise<number>;

/**
 * Command table: `<group> <verb>` → lazily loaded implementation (keeps start-up fast).
 * Each command module exports `default: Command`.
 */
const COMMANDS: Record<string, () => Promise<Command>> = {
  'audit verify': async () => (await import('./commands/audit-verify')).default,
  'db migrate': async () => (await import('./commands/db-migrate')).default,
  'policy validate': async () => (await import('./commands/policy-validate')).default,
  'policy decide': async () => (await import('./commands/policy-decide')).default,
};

/** Runs the CLI with `argv` (without node and script); resolves to the exit code. */
export async function run(argv: string[], io: CliIo = processIo()): Promise<number> {
  const [group, verb, ...rest] = argv;
  if (!group || group === '--help' || group === '-h' || group === 'help') {
    io.stdout(USAGE);
    return group ? EXIT.ok : EXIT.usage;
  }
  const load = COMMANDS[`${group} ${verb ?? ''}`];
  if (!load) {
    io.stderr(`agentgov: unknown command '${[group, verb].filter(Boolean).join(' ')}'\n\n${USAGE}`);
    return EXIT.usage;
  }
  try {
    const command = await load();
    return await command(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`agentgov ${group} ${verb}: ${error.message}\n`);
      return EXIT.usage;
    }
    io.stderr(`agentgov ${group} ${verb}: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT.usage;
  }
}
