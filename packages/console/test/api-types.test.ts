/**
 * The console's typed client is generated from the reference server's own OpenAPI document: this
 * fails when `app/src/api/schema.d.ts` no longer matches the document the server serves today
 * (regenerate with `pnpm --filter @agentgov/console generate:api`).
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { SCHEMA_FILE, schemaSource, serverDocument } from './server-document';

describe('the console API types', () => {
  it('match the reference server’s current OpenAPI document', async () => {
    const expected = await schemaSource(await serverDocument());
    const committed = await readFile(SCHEMA_FILE, 'utf8');
    expect(
      committed === expected,
      'app/src/api/schema.d.ts is stale: run `pnpm --filter @agentgov/console generate:api`',
    ).toBe(true);
  }, 60_000);

  it('cover every route the console calls (the inbox, audit proofs, policies, decisions)', async () => {
    const committed = await readFile(SCHEMA_FILE, 'utf8');
    for (const route of [
      '/api/v1/exchanges/{id}/approve',
      '/api/v1/mcp/approvals/{id}/approve',
      '/api/v1/audit/{id}/proof',
      '/api/v1/audit/checkpoint',
      '/api/v1/policies/{id}',
      '/api/v1/decisions',
      '/api/v1/auth/logout',
    ])
      expect(committed).toContain(`'${route}': {`);
  });
});
