/**
 * The JSON Schema of a policy file (`scope`, `scopeId`, `domain`, `name`, `version`, `content`…),
 * generated from the zod schemas with zod 4's `z.toJSONSchema`: the file's own fields from
 * `PolicyFileSchema`, and per domain the content schema derived from the lattice description — so
 * an editor (yaml-language-server) completes and checks the keys of the domain the file names.
 *
 * The package ships the result as `@agentgov/policy/policy-file.schema.json`, written by
 * `pnpm --filter @agentgov/policy schema`; a test checks the shipped file is up to date.
 */
import { MAX_POLICY_CONTENT_LENGTH, POLICY_DOMAINS, type PolicyDomain } from '@agentgov/core';
import { z } from 'zod';
import { PolicyFileSchema } from './bundle';
import { DOMAIN_SCHEMAS } from './content';

type JsonSchema = Record<string, unknown>;

/** The file name the package publishes the schema under (`@agentgov/policy/<this>`). */
export const POLICY_FILE_SCHEMA_FILE = 'policy-file.schema.json';

const contentDef = (domain: PolicyDomain): string => `content-${domain}`;

/** The input side of a zod schema as JSON Schema (shorthands and aliases included), no `$schema`. */
function inputSchema(schema: z.ZodType): JsonSchema {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, {
    io: 'input',
    target: 'draft-2020-12',
  }) as JsonSchema;
  return rest;
}

/**
 * The JSON Schema (draft 2020-12) of one policy file: the file's fields, and `content` checked
 * against the content schema of the file's `domain` (as a mapping; a string of YAML, as the
 * service stores content, is accepted unchecked — the loader parses it).
 */
export function policyFileJsonSchema(): JsonSchema {
  const file = inputSchema(
    PolicyFileSchema.extend({
      scope: PolicyFileSchema.shape.scope.meta({
        description: 'The level of the hierarchy the policy applies at.',
      }),
      scopeId: PolicyFileSchema.shape.scopeId.meta({
        description: 'The tenant id (enterprise), or the org, team or user id of directory.yaml.',
      }),
      domain: PolicyFileSchema.shape.domain.meta({ description: 'Which content keys the policy sets.' }),
      version: PolicyFileSchema.shape.version.meta({ description: 'A semantic version, such as 1.0.0.' }),
      status: PolicyFileSchema.shape.status.meta({
        description: 'active (default), draft or deprecated; only active policies count.',
      }),
      content: z
        .union([z.record(z.string(), z.unknown()), z.string().max(MAX_POLICY_CONTENT_LENGTH), z.null()])
        .meta({
          description:
            "The policy's content: a mapping of the domain's keys (checked per domain), or the same as a string of YAML.",
        }),
    }),
  );
  const $defs: Record<string, JsonSchema> = {};
  for (const domain of POLICY_DOMAINS) {
    $defs[contentDef(domain)] = {
      title: `${domain} policy content`,
      ...inputSchema(DOMAIN_SCHEMAS[domain]),
    };
  }
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: 'agentgov policy file',
    description:
      'One policy of a policy-as-code directory (agentgov policy validate|test|diff|apply). Generated from the zod schemas of @agentgov/policy; do not edit.',
    ...file,
    allOf: POLICY_DOMAINS.map((domain) => ({
      if: { properties: { domain: { const: domain } }, required: ['domain'] },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword, not a thenable
      then: {
        properties: {
          content: {
            anyOf: [{ $ref: `#/$defs/${contentDef(domain)}` }, { type: 'string' }, { type: 'null' }],
          },
        },
      },
    })),
    $defs,
  };
}

/** The schema as the published file holds it (two-space JSON and a final newline). */
export function policyFileJsonSchemaText(): string {
  return `${JSON.stringify(policyFileJsonSchema(), null, 2)}\n`;
}
