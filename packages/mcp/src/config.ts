/**
 * The proxy's configuration (`mcp.yaml`), validated by zod: the upstream MCP servers (stdio
 * commands, Streamable HTTP URLs), each under a namespace with a default classification (and
 * per-tool overrides), the identity of a stdio session, the model the assistant runs (for result
 * filtering) and the limits.
 */
import { readFile } from 'node:fs/promises';
import {
  ClassificationLevelSchema,
  deploymentIssueMessage,
  isDeploymentEnvelope,
  parseDeployment,
} from '@agentgov/core';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';

/**
 * A namespace: lower-case letters, digits and `-`, starting with a letter, at most 32 characters.
 * Never `_`: the exposed name is `<namespace>__<tool>`, so splitting at the first `__` is unique.
 */
export const NAMESPACE_PATTERN = /^[a-z][a-z0-9-]{0,31}$/;

/** The default of `limits.callTimeoutMs`, ms. */
export const DEFAULT_CALL_TIMEOUT_MS = 60_000;

const Namespace = z
  .string()
  .regex(NAMESPACE_PATTERN, 'lower-case letters, digits and -, starting with a letter (no _), at most 32');

const Common = {
  namespace: Namespace,
  /** The default classification of what this upstream's tools return (the spec's connector defaults). */
  classification: ClassificationLevelSchema.default('internal'),
  /** Per-tool classification, by the upstream's own tool name. */
  tools: z
    .record(z.string().min(1).max(128), z.object({ classification: ClassificationLevelSchema }))
    .default({}),
  /**
   * Upper bound of connecting to this upstream, of one call and of one whole tools/list, ms
   * (default: the proxy's `limits.callTimeoutMs`).
   */
  timeoutMs: z.number().int().min(1).max(3_600_000).optional(),
};

export const StdioUpstreamSchema = z.strictObject({
  ...Common,
  transport: z.literal('stdio'),
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  /** Extra environment of the child (the SDK's safe default environment is always the base). */
  env: z.record(z.string(), z.string()).default({}),
  cwd: z.string().min(1).optional(),
  /** Restarts of a child that died, before the upstream is marked unhealthy (default 3). */
  maxRestarts: z.number().int().min(0).max(100).default(3),
});

export const HttpUpstreamSchema = z.strictObject({
  ...Common,
  transport: z.literal('http'),
  url: z.url({ protocol: /^https?$/ }),
  /** Extra request headers (e.g. the upstream's own credential). */
  headers: z.record(z.string(), z.string()).default({}),
  /**
   * Consecutive failed requests (unreachable, an HTTP error, a timeout) after which the upstream is
   * reported unhealthy (`/status`), until it answers again (default 3).
   */
  unhealthyAfter: z.number().int().min(1).max(1000).default(3),
});

export const UpstreamConfigSchema = z.discriminatedUnion('transport', [
  StdioUpstreamSchema,
  HttpUpstreamSchema,
]);
export type UpstreamConfig = z.infer<typeof UpstreamConfigSchema>;
export type UpstreamConfigInput = z.input<typeof UpstreamConfigSchema>;

export const LimitsSchema = z.strictObject({
  /** Largest canonical JSON of a call's arguments, bytes (default 64 KiB). */
  maxArgumentBytes: z
    .number()
    .int()
    .min(2)
    .default(64 * 1024),
  /** Largest JSON of a tool result, bytes (default 1 MiB). */
  maxResultBytes: z
    .number()
    .int()
    .min(64)
    .default(1024 * 1024),
  /** Most tools taken from one upstream's list (the rest are dropped and reported; default 500). */
  maxToolsPerUpstream: z.number().int().min(1).default(500),
  /** Upper bound of one upstream call, ms (default 60 s). */
  callTimeoutMs: z.number().int().min(1).default(DEFAULT_CALL_TIMEOUT_MS),
  /** How long a pending approval waits for a human, ms (default 15 min). */
  approvalTtlMs: z
    .number()
    .int()
    .min(1)
    .default(15 * 60_000),
  /** How long an elicitation waits for the user's answer, ms (default 5 min). */
  elicitationTimeoutMs: z
    .number()
    .int()
    .min(1)
    .default(5 * 60_000),
  /** Calls per user and window (the gateway's limiter when given one; default 120 a minute). */
  callsPerWindow: z.number().int().min(1).default(120),
  windowSeconds: z.number().int().min(1).default(60),
});
export type McpLimits = z.infer<typeof LimitsSchema>;

export const McpConfigSchema = z
  .strictObject({
    upstreams: z.array(UpstreamConfigSchema).min(1).max(64),
    /** The user of a stdio session (over Streamable HTTP the bearer token names the user). */
    identity: z
      .strictObject({ tenantId: z.string().min(1).max(255), userId: z.string().min(1).max(255) })
      .optional(),
    /** The model the assistant runs: a result above what the models policy lets it receive is withheld. */
    model: z
      .strictObject({ provider: z.string().min(1).max(255), model: z.string().min(1).max(255) })
      .optional(),
    /** Record the raw arguments in the audit entry (default false: only their digest). */
    auditArguments: z.boolean().default(false),
    /**
     * Ask for an `approve` call's approval by MCP elicitation when the assistant's client supports
     * it (default true). false: every such call waits in the inbox and is decided through the
     * governance service — a client that answers elicitations itself cannot approve its own calls.
     */
    elicitApprovals: z.boolean().default(true),
    limits: LimitsSchema.default(LimitsSchema.parse({})),
  })
  .superRefine((config, ctx) => {
    const seen = new Set<string>();
    config.upstreams.forEach((u, i) => {
      if (seen.has(u.namespace))
        ctx.addIssue({
          code: 'custom',
          path: ['upstreams', i, 'namespace'],
          message: `duplicate namespace ${u.namespace}`,
        });
      seen.add(u.namespace);
    });
  });
export type McpConfig = z.infer<typeof McpConfigSchema>;
export type McpConfigInput = z.input<typeof McpConfigSchema>;

/** A configuration that does not validate: every problem, with its path. */
export class McpConfigError extends Error {
  readonly issues: { path: string; message: string }[];
  constructor(issues: { path: string; message: string }[], source = 'MCP proxy configuration') {
    super(`${source}: ${issues.map((i) => `${i.path || '(root)'}: ${i.message}`).join('; ')}`);
    this.name = 'McpConfigError';
    this.issues = issues;
  }
}

/** The kind of the proxy's configuration file in the agentgov.dev/v1 envelope. */
export const MCP_PROXY_KIND = 'McpProxy';

/**
 * Validates a configuration object (already parsed from YAML or JSON): the envelope
 * (`apiVersion: agentgov.dev/v1`, `kind: McpProxy`, `spec:` these settings), or the legacy bare form
 * (these settings at the top level).
 */
export function parseMcpConfig(value: unknown, source?: string): McpConfig {
  if (isDeploymentEnvelope(value)) {
    const doc = parseDeployment(value, { [MCP_PROXY_KIND]: McpConfigSchema });
    if (doc.isOk()) return doc.value.spec;
    throw new McpConfigError(
      doc.error.map((i) => ({ path: i.path, message: deploymentIssueMessage(i) })),
      source,
    );
  }
  const parsed = McpConfigSchema.safeParse(value);
  if (!parsed.success) {
    throw new McpConfigError(
      parsed.error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message })),
      source,
    );
  }
  return parsed.data;
}

/** Parses and validates YAML (or JSON) text. */
export function parseMcpConfigYaml(text: string, source?: string): McpConfig {
  let value: unknown;
  try {
    value = parseYaml(text, { maxAliasCount: 100 });
  } catch (error) {
    throw new McpConfigError([{ path: '', message: `not YAML: ${(error as Error).message}` }], source);
  }
  return parseMcpConfig(value, source);
}

/** Reads, parses and validates a configuration file. */
export async function loadMcpConfig(path: string): Promise<McpConfig> {
  return parseMcpConfigYaml(await readFile(path, 'utf8'), path);
}
