/**
 * `agentgov config schema`: the JSON Schema (draft 2020-12) of the configuration files, both kinds
 * (GovernanceServer, McpProxy), generated from their zod schemas with zod 4's `z.toJSONSchema`.
 * The repository publishes it as schemas/agentgov.schema.json (a test checks it is up to date);
 * editors use it through `# yaml-language-server: $schema=…`.
 */
import { DEPLOYMENT_API_VERSION, deploymentSchema } from '@agentgov/core';
import { z } from 'zod';
import { type CliIo, EXIT, UsageError } from '../io';
import { CONFIG_KINDS } from './config-common';

type JsonSchema = Record<string, unknown>;

/** The JSON Schema of a configuration file: the envelope, then the spec of the kind it names. */
export function configJsonSchema(): JsonSchema {
  const kinds = Object.keys(CONFIG_KINDS) as (keyof typeof CONFIG_KINDS)[];
  const $defs: Record<string, JsonSchema> = {};
  for (const kind of kinds) {
    const { $schema: _, ...schema } = z.toJSONSchema(deploymentSchema(kind, CONFIG_KINDS[kind]), {
      io: 'input',
      target: 'draft-2020-12',
    }) as JsonSchema;
    $defs[kind] = { title: `kind: ${kind}`, ...schema };
  }
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: 'agentgov configuration file',
    description:
      'apiVersion agentgov.dev/v1: kind GovernanceServer (the reference server, agentgov.yaml) or McpProxy (the MCP proxy). Generated from the zod schemas by `agentgov config schema`; do not edit.',
    type: 'object',
    required: ['apiVersion', 'kind', 'spec'],
    properties: { apiVersion: { const: DEPLOYMENT_API_VERSION }, kind: { enum: kinds } },
    allOf: kinds.map((kind) => ({
      if: { properties: { kind: { const: kind } }, required: ['kind'] },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword, not a thenable
      then: { $ref: `#/$defs/${kind}` },
    })),
    $defs,
  };
}

/** The schema as schemas/agentgov.schema.json holds it (two-space JSON and a final newline). */
export function configJsonSchemaText(): string {
  return `${JSON.stringify(configJsonSchema(), null, 2)}\n`;
}

export default async function configSchema(args: string[], io: CliIo): Promise<number> {
  if (args.length > 0) throw new UsageError('usage: agentgov config schema');
  io.stdout(configJsonSchemaText());
  return EXIT.ok;
}
