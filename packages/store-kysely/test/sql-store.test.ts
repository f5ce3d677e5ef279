/**
 * Store-specific behaviour on PGlite and PostgreSQL: the append-only trigger and its single
 * anonymization exception, migrations and partitions, exact round-trips, keyset scans.
 */
import { canonicalJson } from '@agentgov/audit';
import { type AuditEntry, type AuditRecord, ManualClock } from '@agentgov/core';
import { linkRecords, makeAuditEntry } from '@agentgov/core/testing';
import { type Kysely, sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Database, ensurePartitions, migrateToLatest, type SqlStores } from '../src/index';
import { collect, describeSqlBackends, storesFor, type TestStores } from './helpers';

async function rejects(work: Promise<unknown>): Promise<string> {
  try {
    await work;
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected the statement to be rejected');
}

const partitionOf = async (db: Kysely<Database>, id: string) =>
  (
    await sql<{
      p: string;
    }>`SELECT tableoid::regclass::text AS p FROM audit_entries WHERE id = ${id}`.execute(db)
  ).rows[0]?.p;

const monthName = (d: Date) => `audit_entries_p${d.toISOString().slice(0, 7).replace('-', '')}`;

async function seed(s: SqlStores, tenant: string, entries: AuditEntry[]): Promise<AuditRecord[]> {
  return s.audit.append(tenant, (head) =>
    linkRecords(head, entries, (e) => ({
      userId: 'c'.repeat(64),
      ...(e.actionDetail.initiatorUserId ? { 'actionDetail.initiatorUserId': 'd'.repeat(64) } : {}),
    })),
  );
}

function storeSuite(name: string, open: () => Promise<TestStores>): void {
  describe(name, () => {
    const s = storesFor(open);

    describe('append-only trigger', () => {
      beforeAll(async () => {
        const now = new Date().toISOString();
        await seed(s, 'ro', [
          makeAuditEntry({
            tenantId: 'ro',
            userId: 'alice',
            timestamp: now,
            actionDetail: { initiatorUserId: 'alice', note: 'alice' },
          }),
          makeAuditEntry({ tenantId: 'ro', userId: 'bob', timestamp: '2025-01-01T00:00:00.000Z' }),
        ]);
      });

      it('a plain UPDATE of any column fails, in every partition', async () => {
        for (const set of [sql`user_id = 'x'`, sql`policy_reason = 'x'`, sql`hash = hash`]) {
          expect(
            await rejects(sql`UPDATE audit_entries SET ${set} WHERE tenant_id = 'ro'`.execute(s.db)),
          ).toMatch(/append-only; UPDATE rejected/);
        }
        expect(await rejects(sql`UPDATE audit_entries_default SET user_id = 'x'`.execute(s.db))).toMatch(
          /append-only/,
        );
        expect(await s.audit.count('ro')).toBe(2);
        expect((await s.audit.query('ro', { userId: 'alice' }, { offset: 0, limit: 5 })).total).toBe(1);
      });

      it('a plain DELETE and TRUNCATE fail', async () => {
        expect(await rejects(sql`DELETE FROM audit_entries WHERE tenant_id = 'ro'`.execute(s.db))).toMatch(
          /append-only; DELETE rejected/,
        );
        expect(await rejects(sql`TRUNCATE audit_entries`.execute(s.db))).toMatch(
          /append-only; TRUNCATE rejected/,
        );
        expect(await rejects(sql`TRUNCATE audit_entries_default`.execute(s.db))).toMatch(/append-only/);
        expect(await s.audit.count('ro')).toBe(2);
      });

      it('the anonymization flag set by hand does not let a plain UPDATE through', async () => {
        const message = await rejects(
          s.db.transaction().execute(async (trx) => {
            await sql`SELECT set_config('agentgov.audit_anonymize', 'on', true)`.execute(trx);
            await sql`UPDATE audit_entries SET user_id = 'anon:x' WHERE user_id = 'alice'`.execute(trx);
          }),
        );
        expect(message).toMatch(/append-only; UPDATE rejected/);
      });

      it('checkpoints are append-only too', async () => {
        await s.audit.saveCheckpoint({
          tenantId: 'ro',
          treeSize: 2,
          rootHash: 'f'.repeat(64),
          issuedAt: new Date().toISOString(),
          jws: 'a.b.c',
        });
        expect(await rejects(sql`UPDATE audit_checkpoints SET jws = 'x'`.execute(s.db))).toMatch(
          /append-only/,
        );
        expect(await rejects(sql`DELETE FROM audit_checkpoints`.execute(s.db))).toMatch(/append-only/);
      });

      it('the exception only ever lets identifier columns change', async () => {
        const check = async (o: object, n: object) =>
          (
            await sql<{
              ok: boolean;
            }>`SELECT audit_only_identifiers_changed(${JSON.stringify(o)}::jsonb, ${JSON.stringify(n)}::jsonb) AS ok`.execute(
              s.db,
            )
          ).rows[0]?.ok;
        const base = {
          user_id: 'alice',
          hash: 'h',
          policy_reason: '',
          action_detail: { initiatorUserId: 'alice', note: 'x' },
          commitments: { userId: 'c', 'actionDetail.initiatorUserId': 'd' },
        };
        expect(
          await check(base, {
            ...base,
            user_id: 'anon:1',
            action_detail: { initiatorUserId: 'anon:1', note: 'x' },
          }),
        ).toBe(true);
        expect(await check(base, { ...base, hash: 'other' })).toBe(false);
        expect(await check(base, { ...base, policy_reason: 'x' })).toBe(false);
        expect(
          await check(base, { ...base, action_detail: { initiatorUserId: 'alice', note: 'changed' } }),
        ).toBe(false);
        expect(await check(base, { ...base, commitments: { userId: 'x' } })).toBe(false);
      });

      it('anonymization through the store rewrites committed identifiers only and works through the trigger', async () => {
        expect(await s.audit.anonymize('ro', 'alice', 'anon:abc')).toBe(1);
        const [rec] = (await s.audit.query('ro', { userId: 'anon:abc' }, { offset: 0, limit: 5 })).records;
        expect(rec?.entry.actionDetail).toEqual({ initiatorUserId: 'anon:abc', note: 'alice' }); // note is not committed
        expect(await s.audit.anonymize('ro', 'alice', 'anon:abc')).toBe(0);
        expect(await s.audit.anonymize('other-tenant', 'bob', 'anon:x')).toBe(0);
        expect((await s.audit.query('ro', { userId: 'bob' }, { offset: 0, limit: 5 })).total).toBe(1);
      });
    });

    describe('migrations and partitions', () => {
      it('migrations are idempotent: a second run applies nothing and changes nothing', async () => {
        const before = await sql<{ n: string }>`SELECT count(*)::text AS n FROM pg_class c
          JOIN pg_namespace ns ON ns.oid = c.relnamespace WHERE ns.nspname = ${s.schema}`.execute(s.db);
        expect(await migrateToLatest(s.db, s.schema)).toEqual([]);
        expect(await s.migrate()).toEqual({ applied: [], partitions: { created: [], blocked: [] } });
        const after = await sql<{ n: string }>`SELECT count(*)::text AS n FROM pg_class c
          JOIN pg_namespace ns ON ns.oid = c.relnamespace WHERE ns.nspname = ${s.schema}`.execute(s.db);
        expect(after.rows[0]?.n).toBe(before.rows[0]?.n);
      });

      it('an up-to-date schema is recognised in one query: the Migrator (its lock table) is not run again', async () => {
        // Issue 26 (start-up): kysely's Migrator recreates its lock table on every run.
        await sql`DROP TABLE ${sql.id(s.schema, 'kysely_migration_lock')}`.execute(s.db);
        expect(await migrateToLatest(s.db, s.schema)).toEqual([]);
        const lock = await sql<{ n: string }>`SELECT count(*)::text AS n FROM pg_class c
          JOIN pg_namespace ns ON ns.oid = c.relnamespace
          WHERE ns.nspname = ${s.schema} AND c.relname = 'kysely_migration_lock'`.execute(s.db);
        expect(lock.rows[0]?.n).toBe('0');
        // A migration the schema does not record: the Migrator runs (and puts its lock table back).
        await sql`DELETE FROM ${sql.id(s.schema, 'kysely_migration')} WHERE name = '0001_initial'`.execute(
          s.db,
        );
        await sql`INSERT INTO ${sql.id(s.schema, 'kysely_migration')} (name, timestamp) VALUES ('0001_initial', now()::text)`.execute(
          s.db,
        );
        await sql`INSERT INTO ${sql.id(s.schema, 'kysely_migration')} (name, timestamp) VALUES ('9999_from_a_newer_version', now()::text)`.execute(
          s.db,
        );
        await expect(migrateToLatest(s.db, s.schema)).rejects.toThrow();
        await sql`DELETE FROM ${sql.id(s.schema, 'kysely_migration')} WHERE name = '9999_from_a_newer_version'`.execute(
          s.db,
        );
        expect(await migrateToLatest(s.db, s.schema)).toEqual([]);
      });

      it('with every partition of the window there, ensurePartitions answers from the catalog alone; one missing is made', async () => {
        // Issue 26 (start-up): the partition function's first call on a fresh PGlite costs ~0.6 s.
        const fn = sql.id(s.schema, 'audit_ensure_partitions');
        await sql`ALTER FUNCTION ${fn}(timestamptz, integer) RENAME TO audit_ensure_partitions_off`.execute(
          s.db,
        );
        try {
          expect(await ensurePartitions(s.db)).toEqual({ created: [], blocked: [] });
        } finally {
          await sql`ALTER FUNCTION ${sql.id(s.schema, 'audit_ensure_partitions_off')}(timestamptz, integer) RENAME TO audit_ensure_partitions`.execute(
            s.db,
          );
        }
        const now = new Date();
        const last = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 12, 1));
        const name = `audit_entries_p${last.getUTCFullYear()}${String(last.getUTCMonth() + 1).padStart(2, '0')}`;
        await sql`DROP TABLE ${sql.id(s.schema, name)}`.execute(s.db);
        expect(await ensurePartitions(s.db, now)).toEqual({ created: [name], blocked: [] });
      });

      it('the migration created the current month and the 12 following ones, plus a default partition', async () => {
        const { rows } = await sql<{ name: string }>`SELECT c.relname AS name FROM pg_inherits i
          JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'audit_entries'::regclass ORDER BY 1`.execute(
          s.db,
        );
        const now = new Date();
        const expected = Array.from({ length: 13 }, (_, i) =>
          monthName(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + i, 1))),
        );
        expect(rows.map((r) => r.name)).toEqual(['audit_entries_default', ...expected].sort());
      });

      it('ensurePartitions() twice: the second call creates nothing', async () => {
        const at = new Date(Date.UTC(new Date().getUTCFullYear() + 2, 0, 15));
        const first = await s.ensurePartitions(at);
        expect(first.created).toHaveLength(13);
        expect(first.created[0]).toBe(monthName(at));
        expect(await s.ensurePartitions(at)).toEqual({ created: [], blocked: [] });
        expect(await ensurePartitions(s.db)).toEqual({ created: [], blocked: [] });
      });

      it('an entry 5 years ahead goes to the default partition; its month is then reported blocked', async () => {
        const now = new Date();
        const far = new Date(Date.UTC(now.getUTCFullYear() + 5, now.getUTCMonth(), 3, 12));
        const [farRec, nowRec] = await seed(s, 'parts', [
          makeAuditEntry({ tenantId: 'parts', timestamp: far.toISOString() }),
          makeAuditEntry({ tenantId: 'parts', timestamp: now.toISOString() }),
        ]);
        expect(await partitionOf(s.db, farRec?.entry.id ?? '')).toMatch(/audit_entries_default$/);
        expect(await partitionOf(s.db, nowRec?.entry.id ?? '')).toMatch(new RegExp(`${monthName(now)}$`));
        const result = await s.ensurePartitions(far);
        expect(result.blocked).toEqual([monthName(far)]);
        expect(result.created).toHaveLength(12);
        expect((await s.audit.get('parts', farRec?.entry.id ?? ''))?.entry.timestamp).toBe(far.toISOString());
      });
    });

    describe('round trips and scans', () => {
      it('numbers, strings and timestamps survive exactly', async () => {
        const detail = {
          big: 12345678901234567000,
          tiny: 1e-7,
          huge: 1e21,
          neg: -0.000123,
          pi: Math.PI,
          max: Number.MAX_SAFE_INTEGER,
          text: 'Zoë 東京 🚀 עברית e\u0301 "quotes" \\ \n\t',
          deep: { list: [1, 'two', null, true, { x: [] }] },
        };
        const entry = makeAuditEntry({
          tenantId: 'rt',
          timestamp: '2031-07-04T23:59:59.999Z',
          actionDetail: detail,
          modelTokens: { input: 2 ** 31, output: 0 },
          policyReason: 'é'.repeat(255),
        });
        await seed(s, 'rt', [entry]);
        const got = await s.audit.get('rt', entry.id);
        expect(got?.entry).toEqual(entry);
        // jsonb reorders keys; the canonical JSON the verifier hashes is byte-identical.
        expect(canonicalJson(got?.entry.actionDetail)).toBe(canonicalJson(detail));
        expect(got?.entry.timestamp).toBe('2031-07-04T23:59:59.999Z');
      });

      it('a timestamp changed by one microsecond no longer reads back in the hashed form', async () => {
        const entry = makeAuditEntry({ tenantId: 'us', timestamp: '2030-01-01T00:00:00.000Z' });
        await seed(s, 'us', [entry]);
        await s.db.transaction().execute(async (trx) => {
          await sql`SET LOCAL session_replication_role = replica`.execute(trx);
          await sql`UPDATE audit_entries SET "timestamp" = "timestamp" + interval '1 microsecond' WHERE id = ${entry.id}`.execute(
            trx,
          );
        });
        expect((await s.audit.get('us', entry.id))?.entry.timestamp).toBe('2030-01-01T00:00:00.000001Z');
      });

      it('scan pages with a keyset, batchSize rows per round trip, and honours fromSeq/toSeq', async () => {
        const clock = new ManualClock('2030-02-01T00:00:00.000Z');
        const entries = Array.from({ length: 7 }, () => {
          clock.advance(1000);
          return makeAuditEntry({ tenantId: 'scan', timestamp: clock.now().toISOString() });
        });
        await seed(s, 'scan', entries);
        expect((await collect(s.audit.scan('scan', { batchSize: 2 }))).map((r) => r.seq)).toEqual([
          1, 2, 3, 4, 5, 6, 7,
        ]);
        expect(
          (await collect(s.audit.scan('scan', { batchSize: 3, fromSeq: 3, toSeq: 6 }))).map((r) => r.seq),
        ).toEqual([3, 4, 5, 6]);
        // Keyset: later pages are not affected by what the consumer already read.
        const seen: number[] = [];
        for await (const r of s.audit.scan('scan', { batchSize: 2 })) {
          seen.push(r.seq);
          if (seen.length === 3)
            await seed(s, 'scan', [
              makeAuditEntry({ tenantId: 'scan', timestamp: clock.now().toISOString() }),
            ]);
        }
        expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      });

      it('concurrent appends from one process to one tenant all land, in order', async () => {
        const results = await Promise.all(
          Array.from({ length: 30 }, (_, i) =>
            s.audit.append('conc', async (head) => {
              await new Promise((r) => setTimeout(r, i % 3));
              return linkRecords(head, [
                makeAuditEntry({ tenantId: 'conc' }),
                makeAuditEntry({ tenantId: 'conc' }),
              ]);
            }),
          ),
        );
        expect(
          results
            .flat()
            .map((r) => r.seq)
            .sort((a, b) => a - b),
        ).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
        expect(await s.audit.head('conc')).toMatchObject({ seq: 60 });
      });
    });
  });
}

await describeSqlBackends('SQL store', storeSuite);
