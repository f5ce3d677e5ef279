/**
 * The reference server's configuration file, `agentgov.yaml` (`apiVersion: agentgov.dev/v1`,
 * `kind: GovernanceServer`; the settings and their variables: @agentgov/core's
 * GOVERNANCE_SERVER_SETTINGS, docs/configuration.md). Found at `--config PATH`, else
 * `AGENTGOV_CONFIG`, else `./agentgov.yaml` in the working directory when there is one. Its
 * values stand in for the environment variables that are not set: a set variable always wins
 * (twelve-factor), and loadConfig checks the result as it checks the environment.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  type DeploymentIssue,
  deploymentSecretRefs,
  EnvSecretStore,
  err,
  fileSettings,
  formatDeploymentIssue,
  GOVERNANCE_SERVER_KIND,
  GOVERNANCE_SERVER_TABLE,
  GovernanceServerSpecSchema,
  ok,
  parseDeployment,
  type Result,
  settingsEnv,
} from '@agentgov/core';
import { parseYaml } from '@agentgov/policy';
import { ConfigError, loadConfig, type ServerConfig } from './config';

const DEFAULT_CONFIG_FILE = 'agentgov.yaml';

type Env = Record<string, string | undefined>;

/** The configuration file to read: `--config PATH`, `AGENTGOV_CONFIG`, `./agentgov.yaml` if present. */
export function configFilePath(argv: readonly string[], env: Env, cwd: string): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg.startsWith('--config=')) return path.resolve(cwd, arg.slice('--config='.length));
    if (arg === '--config') {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith('--'))
        throw new ConfigError('--config needs a file: --config agentgov.yaml');
      return path.resolve(cwd, next);
    }
  }
  if (env.AGENTGOV_CONFIG) return path.resolve(cwd, env.AGENTGOV_CONFIG);
  const local = path.resolve(cwd, DEFAULT_CONFIG_FILE);
  return existsSync(local) ? local : undefined;
}

/**
 * A GovernanceServer file's settings as the environment variables of the same settings (secret
 * references read from `env`'s secret store, relative paths resolved against `baseDir`). Never
 * throws: every problem is an issue naming its key path.
 */
export function parseConfigFile(
  text: string,
  options: { baseDir: string; env: Env },
): Result<Record<string, string>, DeploymentIssue[]> {
  return parseConfigDocument(text, options).map((parsed) => parsed.env);
}

/** `parseConfigFile`, with the secret references the file reads (`deploymentSecretRefs`). */
function parseConfigDocument(
  text: string,
  options: { baseDir: string; env: Env },
): Result<{ env: Record<string, string>; secretRefs: string[] }, DeploymentIssue[]> {
  const value = parseYaml(text, '');
  if (value.isErr()) return err(value.error.detail.map((i) => ({ path: i.field, message: i.message })));
  const doc = parseDeployment(value.value, { [GOVERNANCE_SERVER_KIND]: GovernanceServerSpecSchema });
  if (doc.isErr()) return err(doc.error);
  const values = fileSettings(GOVERNANCE_SERVER_TABLE, doc.value.spec, options);
  if (values.isErr()) return err(values.error);
  return ok({
    env: settingsEnv(values.value),
    secretRefs: deploymentSecretRefs(GOVERNANCE_SERVER_TABLE, doc.value.spec),
  });
}

/** Reads and checks a configuration file; a problem is a ConfigError listing every issue. */
function readConfigFile(file: string, env: Env): { env: Record<string, string>; secretRefs: string[] } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigError(
      code === 'ENOENT'
        ? `configuration file ${file} not found (from --config or AGENTGOV_CONFIG)`
        : `cannot read the configuration file ${file}: ${(error as Error).message}`,
    );
  }
  const parsed = parseConfigDocument(text, { baseDir: path.dirname(file), env });
  if (parsed.isErr())
    throw new ConfigError(
      `invalid configuration file ${file}: ${parsed.error.map(formatDeploymentIssue).join('; ')}`,
    );
  return parsed.value;
}

export interface LoadedSettings {
  config: ServerConfig;
  /**
   * The environment with the file's values for the variables it does not set, without the
   * `AGENTGOV_SECRET_<REF>` variables of the secrets the file reads (`{secretRef}`).
   */
  env: Env;
  /** The configuration file read, if any. */
  file: string | undefined;
}

/** The server's configuration: the file's values (if there is one) under the environment's. */
export function loadServerSettings(argv: readonly string[], env: Env, cwd: string): LoadedSettings {
  const file = configFilePath(argv, env, cwd);
  const fromFile = file === undefined ? { env: {}, secretRefs: [] } : readConfigFile(file, env);
  // Empty variables count as unset (as loadConfig reads them): the file's value applies.
  const set = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const merged: Env = { ...fromFile.env, ...set };
  // The file's secrets now sit in their settings' variables: out of the secret store's reach, so
  // no tenant's connector can name one (`clientSecret: {secretRef: oidc-client}` is not a
  // reference any tenant may read through AGENTGOV_SECRET_OIDC_CLIENT).
  for (const ref of fromFile.secretRefs) delete merged[EnvSecretStore.variableName(ref)];
  return { config: loadConfig(merged, cwd), env: merged, file };
}
