import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { createPGliteKysely, databaseKind, openStore, type PGliteLike } from '../src/index';
import { closePGlite, describePGlite, pgliteInstance } from './helpers';

describePGlite('PGlite dialect', () => {
  afterAll(closePGlite);
  describe('PGlite dialect', () => {
    it('serializes transactions on the single session: a rollback never takes another transaction with it', async () => {
      const client = (await pgliteInstance()) as unknown as PGliteLike;
      const db = createPGliteKysely({ client, schema: 'public', closeOnDestroy: false });
      await sql`CREATE TABLE IF NOT EXISTS dialect_t (id int)`.execute(db);
      const failing = db.transaction().execute(async (trx) => {
        await sql`INSERT INTO dialect_t VALUES (1)`.execute(trx);
        await new Promise((r) => setTimeout(r, 50));
        throw new Error('roll back');
      });
      const committing = db.transaction().execute(async (trx) => {
        await sql`INSERT INTO dialect_t VALUES (2)`.execute(trx);
      });
      const plain = sql`INSERT INTO dialect_t VALUES (3)`.execute(db);
      await expect(failing).rejects.toThrow('roll back');
      await committing;
      await plain;
      const { rows } = await sql<{ id: number }>`SELECT id FROM dialect_t ORDER BY id`.execute(db);
      expect(rows.map((r) => r.id)).toEqual([2, 3]);
      await db.destroy();
    });

    it('openStore opens an in-memory PGlite and a PGlite directory (migrated, reopenable)', async () => {
      expect(databaseKind('memory://')).toBe('pglite-memory');
      expect(databaseKind('postgresql://h/db')).toBe('postgres');
      expect(databaseKind('./data')).toBe('pglite-dir');
      const mem = await openStore({ database: 'memory://', migrate: false });
      await mem.ping();
      // a new schema's partitions come with its first migration: created by this migrate()
      const fresh = await mem.migrate();
      expect(fresh.applied[0]).toBe('0001_initial');
      expect(fresh.partitions.created).toHaveLength(13);
      expect(fresh.partitions.created.every((p) => /^audit_entries_p\d{6}$/.test(p))).toBe(true);
      expect(await mem.audit.count()).toBe(0);
      await mem.close();

      const dir = await mkdtemp(join(tmpdir(), 'agentgov-pglite-'));
      try {
        const first = await openStore({ database: dir, schema: 'audit_dir' });
        await first.policies.insert({
          id: '2f1c4a52-8a7e-4d1e-9f3b-0a1b2c3d4e5f',
          tenantId: 't',
          scope: 'enterprise',
          scopeId: 'acme',
          domain: 'models',
          name: 'n',
          version: '1.0.0',
          content: 'max_classification: internal',
          status: 'active',
          createdBy: 'u',
          createdAt: '2030-01-01T00:00:00.000Z',
          updatedAt: '2030-01-01T00:00:00.000Z',
          changeReason: 'r',
        });
        await first.close();
        const again = await openStore({ database: dir, schema: 'audit_dir' });
        expect(await again.migrate()).toEqual({ applied: [], partitions: { created: [], blocked: [] } });
        expect(await again.policies.count('t')).toBe(1);
        await again.close();
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  });
});
