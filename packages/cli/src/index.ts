/**
 * The `agentgov` command tree on commander: every command and group answers `--help`,
 * `agentgov --version` prints the version, an unknown command or flag is an error (exit 2) with a
 * suggestion. Commander checks the command line; each command module then reads its own
 * arguments (node:util parseArgs, strict) and does the work, loaded lazily to keep start-up fast.
 */
import { readFileSync } from 'node:fs';
import { Command, CommanderError, Option } from 'commander';
import { type CliIo, EXIT, processIo } from './io';

export { type CliIo, EXIT, UsageError } from './io';

// The build defines the version (tsup.config.ts); run from source, it is read from package.json.
declare const __AGENTGOV_CLI_VERSION__: string | undefined;
function version(): string {
  if (typeof __AGENTGOV_CLI_VERSION__ === 'string') return __AGENTGOV_CLI_VERSION__;
  try {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    return pkg.version;
  } catch {
    return 'unknown';
  }
}

type Run = (args: string[], io: CliIo) => Promise<number>;

interface Spec {
  group: string;
  verb: string;
  summary: string;
  args?: string;
  options: Option[];
  load: () => Promise<Run>;
  after?: string;
}

const opt = (flags: string, description: string) => new Option(flags, description);
const serverOptions = () => [
  opt('--server <url>', 'the governance server (default: AGENTGOV_SERVER)'),
  opt('--token <token>', 'bearer ID token (default: AGENTGOV_TOKEN)'),
];

const COMMANDS: Spec[] = [
  {
    group: 'policy',
    verb: 'validate',
    summary: 'validate a policy-as-code directory (schemas and hierarchy)',
    args: '<dir>',
    options: [
      opt('--json', 'machine-readable report'),
      opt('--strict', 'fail (exit 1) on warnings too: feature-flag names no engine asks about'),
    ],
    load: async () => (await import('./commands/policy-validate')).default,
    after:
      '\nExit codes: 0 valid (warnings on stderr), 1 violations (or warnings with --strict), 2 unusable input.',
  },
  {
    group: 'policy',
    verb: 'decide',
    summary: 'decide one request against a policy-as-code directory',
    args: '<dir>',
    options: [
      opt(
        '--domain <domain>',
        'decision domain (agent-to-agent, integrations, models, actions, data, features)',
      ),
      opt('--input <file>', 'the decision input (JSON)'),
      opt('--user <id>', 'the user deciding (default: from the input)'),
      opt('--fail-on-deny', 'exit 1 when the decision is a deny'),
    ],
    load: async () => (await import('./commands/policy-decide')).default,
  },
  {
    group: 'policy',
    verb: 'test',
    summary: 'run the decision tests in DIR/tests/*.yaml against the policies of DIR',
    args: '<dir>',
    options: [
      opt('--run <regex>', 'only the tests whose "<file>/<name>" matches'),
      opt('--format <format>', 'text (default), json or junit'),
      opt('--junit <file>', 'also write a JUnit XML report to this file'),
      opt('-v, --verbose', 'list passing tests too'),
    ],
    load: async () => (await import('./commands/policy-test')).default,
    after: '\nExit codes: 0 every test passed, 1 a test failed, 2 unusable input.',
  },
  {
    group: 'policy',
    verb: 'diff',
    summary: 'show what applying DIR would change on a running server',
    args: '<dir>',
    options: [...serverOptions(), opt('--json', 'machine-readable plan')],
    load: async () => (await import('./commands/policy-diff')).default,
    after: '\nExit codes: 0 no differences, 1 differences, 2 unusable input or server error.',
  },
  {
    group: 'policy',
    verb: 'apply',
    summary: 'apply DIR to a running server (each write with an Idempotency-Key)',
    args: '<dir>',
    options: [
      ...serverOptions(),
      opt('--prune', 'also deprecate active server policies that DIR no longer has'),
      opt('--json', 'machine-readable report'),
    ],
    load: async () => (await import('./commands/policy-apply')).default,
    after:
      '\nExit codes: 0 applied (or nothing to do), 1 a write was refused, 2 unusable input or server error.',
  },
  {
    group: 'audit',
    verb: 'prove',
    summary: 'fetch an inclusion proof of an entry (and the signed checkpoint) from a server and save them',
    args: '[id]',
    options: [
      ...serverOptions(),
      opt('--since <file>', 'also prove the log grew consistently from this saved checkpoint or proof'),
      opt('--out <file>', 'where to save the proof (default: <id>.proof.json)'),
    ],
    load: async () => (await import('./commands/audit-prove')).default,
  },
  {
    group: 'audit',
    verb: 'verify-proof',
    summary: 'check a saved inclusion and/or consistency proof offline against a signed checkpoint',
    args: '<file>',
    options: [
      opt('--public-key <file>', "the log's public key (JWK)"),
      opt('--verifier-key <key>', "the log's signed-note verifier key (<name>+<id>+<key>)"),
      opt('--checkpoint <file>', 'a checkpoint you saved earlier (JSON or signed note) to check against'),
      opt('--json', 'machine-readable report'),
    ],
    load: async () => (await import('./commands/audit-verify-proof')).default,
    after: '\nExit codes: 0 verified, 1 does not verify, 2 unusable input.',
  },
  {
    group: 'audit',
    verb: 'verify',
    summary: 'verify the audit hash chain, identifier commitments and signed checkpoints',
    options: [
      opt(
        '--database <url|dir>',
        'postgres://… or a PGlite directory (default: DATABASE_URL, else AGENTGOV_DATA_DIR)',
      ),
      opt('--tenant <id>', 'only this tenant'),
      opt('--keys <dir>', 'a fileKeyStore directory holding audit-commitment-key / audit-signing-key'),
      opt('--public-key <file>', 'JWK that verifies the checkpoints (default: from the signing key)'),
      opt(
        '--leaves-only',
        'fast check: the chain over the stored leaves only; the columns (entry, identifiers) are not re-derived, so an edited column is not found',
      ),
      opt(
        '--deep',
        'the default: also re-derive every entry from its columns (accepted for existing scripts)',
      ),
      opt('--allow-unchecked', 'accept a partial check when a key is missing (reported unchecked)'),
      opt('--json', 'machine-readable report'),
    ],
    load: async () => (await import('./commands/audit-verify')).default,
    after:
      '\nKeys: --keys DIR, then AGENTGOV_SECRET_AUDIT_COMMITMENT_KEY / _SIGNING_KEY, else the development keys\nthe reference server kept in the database. Without the keys to check identifiers and checkpoint\nsignatures the log is not verified (exit 1) unless --allow-unchecked.\nExit codes: 0 intact, 1 broken or unchecked, 2 unusable input.',
  },
  {
    group: 'mcp',
    verb: 'proxy',
    summary:
      'the governing MCP proxy on stdin/stdout (upstreams and user from --config; decisions from --policies)',
    options: [
      opt('--config <file>', 'the proxy configuration (mcp.yaml: upstreams, identity, limits)'),
      opt('--policies <dir>', 'the policy-as-code directory deciding each tool'),
      opt(
        '--database <url|dir>',
        'append the audit to the tamper-evident log of this database (PGlite directory or postgres URL), and keep pending approvals there',
      ),
      opt(
        '--audit-file <file>',
        'append the audit records (JSON lines) here (default without --database: stderr)',
      ),
    ],
    load: async () => (await import('./commands/mcp-proxy')).default,
    after:
      '\nstdout is the MCP channel: nothing else is written to it. Runs until stdin closes.\nExit codes: 0 the session ended (stdin closed), 2 cannot run (usage, an unreadable or invalid configuration,\nunusable policies or database).',
  },
  {
    group: 'config',
    verb: 'validate',
    summary:
      'check a configuration file (kind GovernanceServer or McpProxy): every problem with its key path',
    args: '[file]',
    options: [opt('--json', 'machine-readable report')],
    load: async () => (await import('./commands/config-validate')).default,
    after:
      '\nFILE defaults to AGENTGOV_CONFIG, else ./agentgov.yaml. Exit codes: 0 valid, 1 problems, 2 no or unreadable file.',
  },
  {
    group: 'config',
    verb: 'print',
    summary:
      'print the effective configuration (environment variables over the file, defaults), secrets masked',
    args: '[file]',
    options: [],
    load: async () => (await import('./commands/config-print')).default,
    after:
      '\nFILE defaults to AGENTGOV_CONFIG, else ./agentgov.yaml; without one, what the environment gives.\nExit codes: 0 printed, 1 problems, 2 unreadable file.',
  },
  {
    group: 'config',
    verb: 'schema',
    summary: 'print the JSON Schema of the configuration files (both kinds)',
    options: [],
    load: async () => (await import('./commands/config-schema')).default,
  },
  {
    group: 'db',
    verb: 'migrate',
    summary: 'apply the migrations and prepare the monthly audit partitions',
    options: [
      opt('--database <url|dir>', 'postgres://… or a PGlite directory'),
      opt('--schema <name>', 'PostgreSQL schema (default agentgov)'),
      opt('--json', 'machine-readable report'),
    ],
    load: async () => (await import('./commands/db-migrate')).default,
  },
];

const GROUPS: Record<string, string> = {
  policy: 'policy-as-code: validate, decide, test; diff and apply against a server',
  audit: 'audit log: verify it offline; fetch and check proofs',
  db: 'database: migrations and audit partitions',
  mcp: 'governed MCP tool calls: the proxy for desktop assistants',
  config: 'configuration files (agentgov.dev/v1): validate, print the effective settings, JSON Schema',
};

/** The command tree; `chosen` receives the command to run and its own arguments. */
function program(io: CliIo, chosen: (spec: Spec) => void): Command {
  const root = new Command('agentgov')
    .description('policy-as-code and audit tooling for agentgov')
    .version(version(), '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .addHelpCommand(false)
    .showSuggestionAfterError(true)
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .exitOverride();
  for (const [name, description] of Object.entries(GROUPS)) {
    const group = root
      .command(name)
      .description(description)
      .showSuggestionAfterError(true)
      .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
      .exitOverride();
    for (const spec of COMMANDS.filter((c) => c.group === name)) {
      const cmd = group
        .command(spec.args ? `${spec.verb} ${spec.args}` : spec.verb)
        .description(spec.summary)
        .showSuggestionAfterError(true)
        .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
        .exitOverride()
        .action(() => chosen(spec));
      for (const o of spec.options) cmd.addOption(o);
      if (spec.after) cmd.addHelpText('after', spec.after);
    }
  }
  return root;
}

/** Runs the CLI with `argv` (without node and script); resolves to the exit code. */
export async function run(argv: string[], io: CliIo = processIo()): Promise<number> {
  let picked: Spec | undefined;
  const root = program(io, (spec) => {
    picked = spec;
  });
  if (argv.length === 0) {
    io.stderr(root.helpInformation());
    return EXIT.usage;
  }
  try {
    await root.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return EXIT.ok;
      // A group without its verb (`agentgov audit`): commander printed the group's help.
      return EXIT.usage;
    }
    throw error;
  }
  if (!picked) return EXIT.usage;
  const spec: Spec = picked;
  // The command reads its own arguments: everything after `<group> <verb>`.
  const args = argv.slice(argv.indexOf(spec.verb, argv.indexOf(spec.group)) + 1);
  try {
    const command = await spec.load();
    return await command(args, io);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    io.stderr(`agentgov ${spec.group} ${spec.verb}: ${message}\n`);
    return EXIT.usage;
  }
}
