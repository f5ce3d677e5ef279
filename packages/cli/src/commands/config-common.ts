/**
 * What `agentgov config validate|print` share: which file (FILE, else AGENTGOV_CONFIG, else
 * ./agentgov.yaml when present — as the reference server looks), and the check of its text against
 * the kinds it may be: `GovernanceServer` (the reference server) and `McpProxy` (the MCP proxy;
 * also its legacy bare form, without apiVersion and kind).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  type DeploymentIssue,
  err,
  GOVERNANCE_SERVER_KIND,
  GovernanceServerSpecSchema,
  isDeploymentEnvelope,
  ok,
  parseDeployment,
  type Result,
  zodIssues,
} from '@agentgov/core';
import { MCP_PROXY_KIND, McpConfigSchema } from '@agentgov/mcp';
import { parseYaml } from '@agentgov/policy';
import { UsageError } from '../io';

/** Every kind of configuration file, by name: its `spec` schema. */
export const CONFIG_KINDS = {
  [GOVERNANCE_SERVER_KIND]: GovernanceServerSpecSchema,
  [MCP_PROXY_KIND]: McpConfigSchema,
};

export interface CheckedConfig {
  kind: string;
  metadata: { name?: string | undefined } | undefined;
  spec: unknown;
  /** The MCP proxy's bare form (no apiVersion, kind or spec). */
  legacy: boolean;
}

/** FILE, else AGENTGOV_CONFIG, else ./agentgov.yaml when there is one; undefined: none. */
export function configFile(
  file: string | undefined,
  env: Record<string, string | undefined>,
): string | undefined {
  if (file) return file;
  if (env.AGENTGOV_CONFIG) return env.AGENTGOV_CONFIG;
  return existsSync('agentgov.yaml') ? 'agentgov.yaml' : undefined;
}

/** The file's text; unreadable: a usage error (exit 2). */
export function readConfigText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(
      code === 'ENOENT' ? `${file}: no such file` : `${file}: ${(error as Error).message}`,
    );
  }
}

/** The directory relative paths of `file` are resolved against. */
export const baseDirOf = (file: string): string => path.dirname(path.resolve(file));

/** Checks a configuration file's text: never throws, every problem an issue with its key path. */
export function checkConfig(text: string): Result<CheckedConfig, DeploymentIssue[]> {
  const value = parseYaml(text, '');
  if (value.isErr()) return err(value.error.detail.map((i) => ({ path: i.field, message: i.message })));
  const doc = value.value;
  if (!isDeploymentEnvelope(doc) && typeof doc === 'object' && doc !== null && 'upstreams' in doc) {
    const parsed = McpConfigSchema.safeParse(doc);
    if (!parsed.success) return err(zodIssues(parsed.error, McpConfigSchema, doc));
    return ok({ kind: MCP_PROXY_KIND, metadata: undefined, spec: parsed.data, legacy: true });
  }
  const parsed = parseDeployment(doc, CONFIG_KINDS);
  if (parsed.isErr()) return err(parsed.error);
  const { kind, metadata, spec } = parsed.value;
  return ok({ kind, metadata, spec, legacy: false });
}
