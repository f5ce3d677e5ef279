/**
 * Writes `policy-file.schema.json` from the zod schemas, formatted as the repository formats JSON
 * (run: `pnpm --filter @agentgov/policy schema`; `test/json-schema.test.ts` fails when it is stale).
 */
import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { POLICY_FILE_SCHEMA_FILE, policyFileJsonSchemaText } from '../src/json-schema';

const target = fileURLToPath(new URL(`../${POLICY_FILE_SCHEMA_FILE}`, import.meta.url));
await writeFile(target, policyFileJsonSchemaText());
execFileSync('biome', ['format', '--write', target], { stdio: 'inherit' });
console.log(`wrote ${target}`);
