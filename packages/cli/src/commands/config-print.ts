/**
 * `agentgov config print [FILE]`: the effective configuration as YAML, secrets masked (`****`).
 * For `kind: GovernanceServer`: the file's settings under the environment variables that are set
 * (what the reference server runs with), secret references read from the secret store, relative
 * paths resolved (against the file; from the environment, against the working directory), defaults
 * filled in, also those derived from other settings (./config-defaults.ts); without a file, what
 * the environment alone gives. For `kind: McpProxy`: the spec with its defaults, every upstream header and environment
 * value masked (credentials go there), in the agentgov.dev/v1 form even when the file has the
 * legacy bare form. Either kind: the password of every URL shown is masked. Exit 0; 1 with each problem; 2 unreadable file.
 */
import { parseArgs } from 'node:util';
import {
  DEPLOYMENT_API_VERSION,
  type DeploymentIssue,
  envSettings,
  fileSettings,
  formatDeploymentIssue,
  GOVERNANCE_SERVER_KIND,
  GOVERNANCE_SERVER_TABLE,
  MASK,
  maskUrlPassword,
  printableSpec,
} from '@agentgov/core';
import type { McpConfig } from '@agentgov/mcp';
import { toYaml } from '@agentgov/policy';
import { type CliIo, EXIT, parseUsage, UsageError } from '../io';
import { baseDirOf, type CheckedConfig, checkConfig, configFile, readConfigText } from './config-common';
import { effectiveValues } from './config-defaults';
import { CONFIG_USAGE } from './config-validate';

const USAGE = CONFIG_USAGE('print');

export default async function configPrint(args: string[], io: CliIo): Promise<number> {
  const { positionals } = parseUsage(parse, args, USAGE);
  if (positionals.length > 1) throw new UsageError(USAGE);
  const file = configFile(positionals[0], io.env);
  let checked: CheckedConfig = { kind: GOVERNANCE_SERVER_KIND, metadata: undefined, spec: {}, legacy: false };
  if (file !== undefined) {
    const result = checkConfig(readConfigText(file));
    if (result.isErr()) return problems(io, file, result.error);
    checked = result.value;
  }
  let spec: unknown;
  if (checked.kind === GOVERNANCE_SERVER_KIND) {
    const fromFile = fileSettings(GOVERNANCE_SERVER_TABLE, checked.spec, {
      baseDir: file === undefined ? process.cwd() : baseDirOf(file),
      env: io.env,
    });
    const fromEnv = envSettings(GOVERNANCE_SERVER_TABLE, io.env);
    if (fromFile.isErr() || fromEnv.isErr()) {
      const issues = [...(fromFile.isErr() ? fromFile.error : []), ...(fromEnv.isErr() ? fromEnv.error : [])];
      return problems(io, file ?? 'environment', issues);
    }
    spec = printableSpec(
      GOVERNANCE_SERVER_TABLE,
      effectiveValues(fromFile.value, fromEnv.value, process.cwd()),
    );
  } else spec = maskedProxy(checked.spec as McpConfig);
  // A password in any URL shown (an upstream's url, OPA_URL, an argument) is masked too.
  spec = maskedUrls(spec);
  const doc = {
    apiVersion: DEPLOYMENT_API_VERSION,
    kind: checked.kind,
    ...(checked.metadata ? { metadata: checked.metadata } : {}),
    spec,
  };
  const source =
    checked.kind === GOVERNANCE_SERVER_KIND
      ? `${file ?? '(no file)'} under the environment variables that are set, defaults filled in`
      : `${file}${checked.legacy ? ' (legacy bare form)' : ''}, defaults filled in`;
  io.stdout(`# effective configuration: ${source}; secrets masked\n${toYaml(doc)}`);
  return EXIT.ok;
}

function problems(io: CliIo, where: string, issues: DeploymentIssue[]): number {
  const lines = issues.map((issue) => `${where}: ${formatDeploymentIssue(issue)}`);
  io.stderr(`${[...lines, `${where}: invalid, ${issues.length} problem(s)`].join('\n')}\n`);
  return EXIT.findings;
}

/** The proxy's settings with every upstream header and environment value masked. */
function maskedProxy(config: McpConfig): McpConfig {
  const mask = (values: Record<string, string>) =>
    Object.fromEntries(Object.keys(values).map((k) => [k, MASK]));
  return {
    ...config,
    upstreams: config.upstreams.map((u) =>
      u.transport === 'http' ? { ...u, headers: mask(u.headers) } : { ...u, env: mask(u.env) },
    ),
  };
}

/** `value` with the password of every URL in its strings masked (`scheme://user:****@…`). */
function maskedUrls(value: unknown): unknown {
  if (typeof value === 'string') return maskUrlPassword(value);
  if (Array.isArray(value)) return value.map(maskedUrls);
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskedUrls(v)]));
  return value;
}

function parse(args: string[]) {
  return parseArgs({ args, allowPositionals: true, strict: true, options: {} });
}
