/**
 * KyselyToolCallInbox across processes: two PostgreSQL pools (two server processes) racing to
 * decide and to consume one approval — exactly one wins each race; and an approval acknowledged
 * before a restart (the store reopened) is still there, decided and consumed once.
 * (The ToolCallInbox conformance suite runs in conformance.pglite/postgres.test.ts.)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { createPostgresKysely, KyselyToolCallInbox, openStore } from '../src/index';
import { describePGlite, describePostgres, postgresStores } from './helpers';

const key = {
  tenantId: 'acme',
  userId: 'alice',
  policyTool: 'notes__delete_file',
  argumentsDigest: `sha256:${'ab'.repeat(32)}`,
};
const request = {
  ...key,
  tool: 'notes__delete_file',
  upstream: 'notes',
  reason: 'needs a human',
  ttlMs: 60_000,
};

describePGlite('kysely/pglite tool-call inbox', () => {
  it('an approval acknowledged before a restart survives it: decided and consumed once afterwards', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentgov-inbox-'));
    try {
      const now = new Date('2026-03-02T09:00:00.000Z');
      const before = await openStore({ database: dir });
      const pending = await before.toolCalls.request(request, now);
      await before.toolCalls.notice(
        { ...key, tool: 'notes__send', upstream: 'notes', outcome: 'success' },
        now,
      );
      await before.close();
      const after = await openStore({ database: dir });
      try {
        expect(await after.toolCalls.get('acme', pending.id, now)).toEqual(pending);
        expect(await after.toolCalls.notices('acme')).toHaveLength(1);
        const decided = await after.toolCalls.decide('acme', pending.id, { approved: true, by: 'olga' }, now);
        expect(decided?.status).toBe('approved');
        expect((await after.toolCalls.consume(key, now))?.id).toBe(pending.id);
        expect(await after.toolCalls.consume(key, now)).toBeUndefined();
      } finally {
        await after.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

await describePostgres('kysely/postgres tool-call inbox', (url) => {
  it('two processes (two pools) deciding and consuming one approval: exactly one wins each race', async () => {
    const a = await postgresStores(url, { max: 6 });
    const pg = (await import('pg')).default;
    const pool = new pg.Pool({ connectionString: url, max: 6 });
    const other = createPostgresKysely({ pool, schema: a.schema });
    try {
      const inboxes = [new KyselyToolCallInbox(a.db), new KyselyToolCallInbox(other)];
      const at = (i: number) => inboxes[i % 2] as KyselyToolCallInbox;
      const now = new Date();
      for (let round = 0; round < 5; round++) {
        const requested = await Promise.all(Array.from({ length: 8 }, (_, i) => at(i).request(request, now)));
        expect(new Set(requested.map((r) => r.id)).size).toBe(1);
        const id = requested[0]?.id as string;
        const decided = await Promise.all(
          Array.from({ length: 8 }, (_, i) =>
            at(i).decide('acme', id, { approved: true, by: `admin-${i}` }, now),
          ),
        );
        expect(decided.filter(Boolean)).toHaveLength(1);
        const consumed = await Promise.all(Array.from({ length: 12 }, (_, i) => at(i).consume(key, now)));
        expect(consumed.filter(Boolean).map((c) => c?.id)).toEqual([id]);
        expect((await at(1).get('acme', id, now))?.status).toBe('consumed');
      }
    } finally {
      await other.destroy();
      await a.cleanup();
    }
  });
});
