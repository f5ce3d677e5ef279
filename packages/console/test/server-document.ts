/**
 * The reference server's own OpenAPI document, with every plugin the console uses mounted (the MCP
 * approvals inbox included): what `app/src/api/schema.d.ts` is generated from
 * (`pnpm --filter @agentgov/console generate:api`) and what `api-types.test.ts` compares it with.
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import { loadConfig } from '../../../examples/server/src/config';
import { startServer } from '../../../examples/server/src/server';

export const SCHEMA_FILE = fileURLToPath(new URL('../app/src/api/schema.d.ts', import.meta.url));
const MCP_CONFIG = fileURLToPath(new URL('./fixtures/mcp.yaml', import.meta.url));

export async function serverDocument(): Promise<unknown> {
  const server = await startServer(loadConfig({ DATABASE_URL: 'memory:', PORT: '0', HOST: '127.0.0.1' }), {
    env: { AGENTGOV_MCP_CONFIG: MCP_CONFIG },
  });
  try {
    return JSON.parse(JSON.stringify(server.governance.openapi));
  } finally {
    await server.close();
  }
}

/** The TypeScript the console's client is typed with, for the document (formatted as the repository's Biome formats it). */
export async function schemaSource(document: unknown): Promise<string> {
  const ast = await openapiTS(document as Parameters<typeof openapiTS>[0]);
  const source = `/**\n * Generated from the reference server's OpenAPI document by openapi-typescript — do not edit.\n * Regenerate: pnpm --filter @agentgov/console generate:api\n */\n\n${astToString(ast)}`;
  const biome = createRequire(import.meta.url).resolve('@biomejs/biome/bin/biome');
  return execFileSync(process.execPath, [biome, 'format', `--stdin-file-path=${SCHEMA_FILE}`], {
    input: source,
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
  });
}
