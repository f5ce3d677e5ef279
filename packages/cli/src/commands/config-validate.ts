/**
 * `agentgov config validate [FILE] [--json]`: checks a configuration file — `kind:
 * GovernanceServer` (the reference server's agentgov.yaml) or `kind: McpProxy` (the MCP proxy's,
 * also in its legacy bare form). FILE defaults to AGENTGOV_CONFIG, else ./agentgov.yaml. Exit 0
 * and "valid"; 1 with each problem (key path, message, the nearest known key); 2 no or unreadable
 * file. The file alone is checked: environment variables and secret references are what `config
 * print` resolves.
 */
import { parseArgs } from 'node:util';
import { formatDeploymentIssue } from '@agentgov/core';
import { type CliIo, EXIT, parseUsage, UsageError } from '../io';
import { checkConfig, configFile, readConfigText } from './config-common';

export const CONFIG_USAGE = (verb: string, extra = '') =>
  `usage: agentgov config ${verb} [FILE]${extra} (default FILE: AGENTGOV_CONFIG, else ./agentgov.yaml)`;
const USAGE = CONFIG_USAGE('validate', ' [--json]');

export default async function configValidate(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseUsage(parse, args, USAGE);
  if (positionals.length > 1) throw new UsageError(USAGE);
  const file = configFile(positionals[0], io.env);
  if (file === undefined) throw new UsageError(`no configuration file here (./agentgov.yaml)\n${USAGE}`);
  const checked = checkConfig(readConfigText(file));
  if (values.json) {
    io.stdout(
      `${JSON.stringify(
        checked.isOk()
          ? { file, valid: true, kind: checked.value.kind, legacy: checked.value.legacy }
          : { file, valid: false, issues: checked.error },
      )}\n`,
    );
    return checked.isOk() ? EXIT.ok : EXIT.findings;
  }
  if (checked.isErr()) {
    const lines = checked.error.map((issue) => `${file}: ${formatDeploymentIssue(issue)}`);
    io.stderr(`${[...lines, `${file}: invalid, ${checked.error.length} problem(s)`].join('\n')}\n`);
    return EXIT.findings;
  }
  const { kind, legacy } = checked.value;
  if (legacy)
    io.stderr(
      `${file}: legacy form without apiVersion and kind; \`agentgov config print ${file}\` shows it as apiVersion: agentgov.dev/v1, kind: McpProxy\n`,
    );
  io.stdout(`${file}: valid (${kind})\n`);
  return EXIT.ok;
}

function parse(args: string[]) {
  return parseArgs({ args, allowPositionals: true, strict: true, options: { json: { type: 'boolean' } } });
}
