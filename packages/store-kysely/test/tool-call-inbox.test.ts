/**
 * KyselyToolCallInbox across processes: two PostgreSQL pools (two server processes) racing to
 * decide and to consume one approval — exactly one wins each race; an approval acknowledged
 * before a restart (the store reopened) is still there, decided and consumed once; and migration
 * `0011_tool_approval_arguments` over a database with approvals made before it (they read without
 * arguments and are still decided and used; new ones keep theirs; `down` drops the column).
 * (The ToolCallInbox conformance suite runs in conformance.pglite/postgres.test.ts.)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createPostgresKysely, KyselyToolCallInbox, openStore } from '../src/index';
import {
  describePGlite,
  describePostgres,
  describeSqlBackends,
  type OpenStores,
  partialMigrations,
  postgresStores,
} from './helpers';

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

function upgrade(name: string, open: OpenStores): void {
  describe(name, () => {
    it('0011 over approvals made before it: they read without arguments and still work; new ones keep theirs; down drops the column', {
      timeout: 240_000,
    }, async () => {
      const s = await open({ migrate: false });
      try {
        const migrations = await partialMigrations(s);
        await migrations.up('0011');
        const now = new Date('2026-03-02T09:00:00.000Z');
        // A pending approval as the inbox wrote it before 0011 (no arguments column yet).
        await sql`INSERT INTO tool_approvals (tenant_id, id, user_id, tool, policy_tool, upstream,
            arguments_digest, reason, status, created_at, expires_at)
          VALUES ('acme', 'before-0011', 'alice', 'notes__delete_file', 'notes__delete_file', 'notes',
            ${key.argumentsDigest}, 'needs a human', 'pending', ${now.toISOString()}::timestamptz,
            ${new Date(now.getTime() + 60_000).toISOString()}::timestamptz)`.execute(s.db);

        expect(await migrations.up('0012')).toEqual(['0011_tool_approval_arguments']);
        const inbox = s.toolCalls;
        const old = await inbox.get('acme', 'before-0011', now);
        expect(old).toMatchObject({
          id: 'before-0011',
          status: 'pending',
          argumentsDigest: key.argumentsDigest,
        });
        expect(old?.arguments).toBeUndefined();
        // Asked again for the same key while pending: that approval, as stored.
        expect(await inbox.request({ ...request, arguments: '{"path":"/notes/a.md"}' }, now)).toEqual(old);
        const decided = await inbox.decide('acme', 'before-0011', { approved: true, by: 'olga' }, now);
        expect(decided?.status).toBe('approved');
        expect((await inbox.consume(key, now))?.id).toBe('before-0011');

        const text = '{"path":"/notes/b.md"}';
        const fresh = await inbox.request(
          { ...request, argumentsDigest: `sha256:${'cd'.repeat(32)}`, arguments: text },
          now,
        );
        expect(fresh.arguments).toBe(text);
        expect((await inbox.list('acme', now)).map((a) => [a.id, a.arguments])).toEqual([
          [fresh.id, text],
          ['before-0011', undefined],
        ]);

        // down: the column goes (the rows stay); up again: it is back, empty.
        await migrations.down('0012');
        const columns = async () =>
          (
            await sql<{ column_name: string }>`SELECT column_name FROM information_schema.columns
              WHERE table_schema = ${s.schema} AND table_name = 'tool_approvals'`.execute(s.db)
          ).rows.map((r) => r.column_name);
        expect(await columns()).not.toContain('arguments');
        expect(await migrations.up('0012')).toEqual(['0011_tool_approval_arguments']);
        expect(await columns()).toContain('arguments');
        expect((await inbox.get('acme', fresh.id, now))?.arguments).toBeUndefined();
      } finally {
        await s.cleanup();
      }
    });
  });
}

await describeSqlBackends('tool_approvals.arguments (0011)', upgrade);
