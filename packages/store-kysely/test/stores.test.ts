/**
 * Store-specific behaviour of the `0002_stores` tables on PGlite and PostgreSQL (the port
 * contracts are covered by the conformance suites): upgrading a `0001` database, the tenant
 * column in every tenant-scoped key, timestamp normalization, the instance registry's cleanup.
 */
import { makeConnector, makeExchange, makeTask } from '@agentgov/core/testing';
import { Migrator, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS, migrateToLatest } from '../src/index';
import { describeSqlBackends, storesFor, type TestStores } from './helpers';

const TENANT_TABLES = [
  'connectors',
  'exchanges',
  'tasks',
  'briefings',
  'classifications',
  'directory_orgs',
  'directory_teams',
  'directory_users',
  'policies',
];

function suite(name: string, open: (options?: { migrate?: boolean }) => Promise<TestStores>): void {
  describe(name, () => {
    it('a database at 0001_initial is upgraded by the later migrations alone and keeps its rows', async () => {
      const s = await open({ migrate: false });
      try {
        await sql`CREATE SCHEMA ${sql.id(s.schema)}`.execute(s.db);
        const initialOnly = new Migrator({
          db: s.db,
          migrationTableSchema: s.schema,
          provider: { getMigrations: async () => ({ '0001_initial': MIGRATIONS['0001_initial'] as never }) },
        });
        expect((await initialOnly.migrateToLatest()).error).toBeUndefined();
        await sql`INSERT INTO policies (tenant_id, id, scope, scope_id, domain, name, version, content, status,
          created_by, created_at, updated_at, change_reason) VALUES ('t', 'p1', 'enterprise', 't', 'models', 'n',
          '1.0.0', 'x: 1', 'active', 'u', now(), now(), 'r')`.execute(s.db);
        expect(await migrateToLatest(s.db, s.schema)).toEqual(Object.keys(MIGRATIONS).slice(1));
        expect(await migrateToLatest(s.db, s.schema)).toEqual([]);
        expect(await s.policies.count('t')).toBe(1);
        await s.tenants.ensure({ id: 't' }, new Date());
        expect(await s.tenants.list()).toHaveLength(1);
      } finally {
        await s.cleanup();
      }
    });

    describe('on a migrated schema', () => {
      // In beforeAll (not at collection time): kysely instances sharing the file's PGlite session
      // must not run at the same time, each sets its own search_path on that one session.
      const s = storesFor(open);

      it('every tenant-scoped table has tenant_id first in its primary key', async () => {
        const { rows } = await sql<{ table: string; first: string }>`
          SELECT c.relname AS table, a.attname AS first FROM pg_index i
          JOIN pg_class c ON c.oid = i.indrelid
          JOIN pg_namespace ns ON ns.oid = c.relnamespace
          JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = i.indkey[0]
          WHERE i.indisprimary AND ns.nspname = ${s.schema}`.execute(s.db);
        const firstKey = Object.fromEntries(rows.map((r) => [r.table, r.first]));
        for (const table of TENANT_TABLES) expect(firstKey[table], table).toBe('tenant_id');
        expect(firstKey.tenants).toBe('id');
        expect(firstKey.sessions).toBe('id_hash');
        expect(firstKey.gateway_instances).toBe('instance_id');
      });

      it('timestamps: toISOString() and microsecond forms round-trip exactly; other forms come back in UTC Z form', async () => {
        const cases: [string, string][] = [
          ['2025-03-04T05:06:07.008Z', '2025-03-04T05:06:07.008Z'],
          ['2025-03-04T05:06:07.008009Z', '2025-03-04T05:06:07.008009Z'],
          ['2025-03-04T07:06:07.008+02:00', '2025-03-04T05:06:07.008Z'],
          ['2025-03-04T05:06:07Z', '2025-03-04T05:06:07.000Z'],
        ];
        for (const [input, output] of cases) {
          const c = makeConnector({ tenantId: 'ts', createdAt: input, lastSyncAt: input });
          await s.connectors.insert(c);
          const got = await s.connectors.get('ts', c.id);
          expect(got?.createdAt).toBe(output);
          expect(got?.lastSyncAt).toBe(output);
        }
      });

      it('tasks: ordered by the instant, not the text, when offsets differ', async () => {
        const early = makeTask({ tenantId: 'tz', discoveredAt: '2025-01-01T10:00:00.000+05:00' }); // 05:00Z
        const late = makeTask({ tenantId: 'tz', discoveredAt: '2025-01-01T06:00:00.000Z' });
        await s.tasks.put(late);
        await s.tasks.put(early);
        expect((await s.tasks.list('tz')).map((t) => t.id)).toEqual([early.id, late.id]);
      });

      it('instance registry: a heartbeat forgets instances expired for more than a day', async () => {
        const t0 = new Date(Date.UTC(2025, 0, 1));
        await s.instances.heartbeat('crashed', t0, 30_000);
        await s.instances.heartbeat('alive', new Date(t0.getTime() + 2 * 86_400_000), 30_000);
        const { rows } = await sql<{ id: string }>`SELECT instance_id AS id FROM gateway_instances`.execute(
          s.db,
        );
        expect(rows.map((r) => r.id)).toEqual(['alive']);
      });

      it('exchange update: a non-integer expectedRound matches nothing (and does not throw)', async () => {
        const x = makeExchange({ tenantId: 'acme' });
        await s.exchanges.insert(x);
        expect(await s.exchanges.update({ ...x, currentRound: 1 }, 0.5)).toBe(false);
        expect(await s.exchanges.get('acme', x.exchangeId)).toEqual(x);
      });
    });
  });
}

await describeSqlBackends('SQL stores', suite);
