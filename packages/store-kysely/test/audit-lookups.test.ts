/**
 * Get by id and by request id read one partition (issue 13): the store's very statements under
 * `EXPLAIN (ANALYZE)`, over a year of monthly partitions that all hold entries, must execute a
 * scan of one partition only — the entry's. Also: the lookup rows `audit_append` writes are the
 * ones `audit_rebuild_lookups()` derives from the entries, and entries loaded without the store
 * are found once that function ran. PGlite and PostgreSQL.
 */
import type { AuditEntry } from '@agentgov/core';
import { appendEntries, makeAuditEntry } from '@agentgov/core/testing';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countQuery, getByIdQueries, idOutsideItsTime, pageQuery } from '../src/audit-sql';
import type { Database } from '../src/index';
import { describeSqlBackends, type TestStores } from './helpers';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const DAY_MS = 24 * 3600 * 1000;

/** A ULID whose time is `ms` (random part from a counter: distinct, not random). */
let counter = 0;
function ulidAt(ms: number): string {
  let time = '';
  for (let i = 0, t = ms; i < 10; i++, t = Math.floor(t / 32)) time = CROCKFORD[t % 32] + time;
  let rest = '';
  for (let i = 0, n = ++counter; i < 16; i++, n = Math.floor(n / 32)) rest = CROCKFORD[n % 32] + rest;
  return time + rest;
}

interface PlanNode {
  'Relation Name'?: string;
  'Actual Loops'?: number;
  Plans?: PlanNode[];
}

/** The `audit_entries` partitions a statement actually read (`EXPLAIN ANALYZE`: loops > 0). */
async function partitionsRead(db: Kysely<Database>, query: RawBuilder<unknown>): Promise<string[]> {
  const compiled = query.compile(db);
  const { rows } = await db.executeQuery<{ 'QUERY PLAN': unknown }>({
    ...compiled,
    sql: `EXPLAIN (ANALYZE, FORMAT JSON) ${compiled.sql}`,
  });
  const raw = rows[0]?.['QUERY PLAN'];
  const [top] = (typeof raw === 'string' ? JSON.parse(raw) : raw) as { Plan: PlanNode }[];
  const read = new Set<string>();
  const walk = (node: PlanNode) => {
    const name = node['Relation Name'];
    if (name?.startsWith('audit_entries') && (node['Actual Loops'] ?? 0) > 0) read.add(name);
    for (const child of node.Plans ?? []) walk(child);
  };
  walk((top as { Plan: PlanNode }).Plan);
  return [...read].sort();
}

const monthOf = (iso: string) => `audit_entries_p${iso.slice(0, 4)}${iso.slice(5, 7)}`;

function lookupSuite(name: string, open: () => Promise<TestStores>): void {
  describe(name, () => {
    const T = 'lookups';
    let s: TestStores;
    /** By name: in the window of its id's time, backdated (listed by id), and with a non-ULID id. */
    const entries: Record<string, AuditEntry> = {};
    beforeAll(async () => {
      s = await open();
      await s.ensurePartitions(new Date(Date.UTC(2026, 0, 1)));
      const inMarch = Date.UTC(2026, 2, 15, 12);
      entries.near = makeAuditEntry({
        tenantId: T,
        id: ulidAt(inMarch),
        timestamp: new Date(inMarch + 3600_000).toISOString(),
        requestId: 'req-march',
      });
      entries.backdated = makeAuditEntry({
        tenantId: T,
        id: ulidAt(inMarch),
        timestamp: '2026-07-10T08:00:00.000Z',
        requestId: 'req-july',
      });
      entries.plainId = makeAuditEntry({
        tenantId: T,
        id: 'entry-without-ulid-0000000',
        timestamp: '2026-10-01T22:00:00.000Z',
        requestId: 'req-october',
      });
      entries.sameRequest = makeAuditEntry({
        tenantId: T,
        id: ulidAt(inMarch + 5 * DAY_MS),
        timestamp: new Date(inMarch + 5 * DAY_MS).toISOString(),
        requestId: 'req-march',
      });
      // Entries in every month of 2026, so that every partition has rows to read.
      const filler = Array.from({ length: 48 }, (_, i) => {
        const ms = Date.UTC(2026, Math.floor(i / 4), 1 + (i % 4) * 7, 6);
        return makeAuditEntry({ tenantId: T, id: ulidAt(ms), timestamp: new Date(ms).toISOString() });
      });
      await appendEntries(s.audit, T, [
        ...filler.slice(0, 24),
        ...Object.values(entries),
        ...filler.slice(24),
      ]);
      await sql`ANALYZE audit_entries`.execute(s.db);
      await sql`ANALYZE audit_request_index`.execute(s.db);
      await sql`ANALYZE audit_id_index`.execute(s.db);
    });
    afterAll(async () => {
      await s?.cleanup();
    });

    it('get by id finds each kind of entry and reads only its partition', async () => {
      for (const [name, entry] of Object.entries(entries)) {
        expect((await s.audit.get(T, entry.id))?.entry).toEqual(entry);
        const own = monthOf(new Date(entry.timestamp).toISOString());
        const { near, listed } = getByIdQueries(T, entry.id);
        const listedOne = name === 'backdated' || name === 'plainId';
        // An id that tells its partition: found by the first statement, in that partition only.
        // A listed one: the id's day is not read; the second statement reads the entry's partition.
        if (near) expect(await partitionsRead(s.db, near)).toEqual(listedOne ? [] : [own]);
        else expect(listedOne).toBe(true);
        if (listedOne) expect(await partitionsRead(s.db, listed)).toEqual([own]);
      }
      expect(await s.audit.get('another-tenant', entries.near?.id as string)).toBeUndefined();
    });

    it('get by an unknown id finds nothing and reads at most the partition of its time', async () => {
      const unknown = ulidAt(Date.UTC(2026, 4, 20));
      expect(await s.audit.get(T, unknown)).toBeUndefined();
      expect(await s.audit.get(T, 'no-such-entry')).toBeUndefined();
      const ulid = getByIdQueries(T, unknown);
      expect(await partitionsRead(s.db, ulid.near as RawBuilder<unknown>)).toEqual(['audit_entries_p202605']);
      expect(await partitionsRead(s.db, ulid.listed)).toEqual([]);
      const other = getByIdQueries(T, 'no-such-entry');
      expect(other.near).toBeUndefined();
      expect(await partitionsRead(s.db, other.listed)).toEqual([]);
    });

    it('a request id’s entries (page and total) come from their partition only', async () => {
      const march = { requestId: 'req-march' };
      const page = await s.audit.query(T, march, { offset: 0, limit: 50 });
      expect(page.total).toBe(2);
      expect(page.records.map((r) => r.entry)).toEqual([entries.near, entries.sameRequest]);
      const july = await s.audit.query(T, { requestId: 'req-july' }, { offset: 0, limit: 50 });
      expect(july.records.map((r) => r.entry)).toEqual([entries.backdated]);
      for (const [filter, partition] of [
        [march, 'audit_entries_p202603'],
        [{ requestId: 'req-july' }, 'audit_entries_p202607'],
      ] as const) {
        expect(await partitionsRead(s.db, pageQuery(T, filter, { offset: 0, limit: 50 }))).toEqual([
          partition,
        ]);
        expect(await partitionsRead(s.db, countQuery(T, filter))).toEqual([partition]);
      }
      expect(await partitionsRead(s.db, countQuery(T, { requestId: 'req-none' }))).toEqual([]);
      const scanned = [];
      for await (const r of s.audit.scan(T, { filter: { requestId: 'req-october' } })) scanned.push(r.entry);
      expect(scanned).toEqual([entries.plainId]);
    });

    it('the lookup rows of an append are the ones audit_rebuild_lookups() derives', async () => {
      const count = async () => {
        const { rows } = await sql<{ q: number; i: number }>`SELECT
          (SELECT count(*) FROM audit_request_index)::int AS q, (SELECT count(*) FROM audit_id_index)::int AS i`.execute(
          s.db,
        );
        return rows[0];
      };
      const before = await count();
      expect(before).toEqual({ q: 52, i: 2 }); // every entry by request id; backdated and plainId by id
      await sql`SELECT audit_rebuild_lookups()`.execute(s.db);
      expect(await count()).toEqual(before);
      // The writer's test (idOutsideItsTime) and the SQL one agree at the edges of the window.
      const base = Date.UTC(2026, 2, 15);
      const id = ulidAt(base);
      for (const [offset, outside] of [
        [-DAY_MS - 1, true],
        [-DAY_MS, false],
        [DAY_MS - 1, false],
        [DAY_MS, true],
      ] as const) {
        const ts = new Date(base + offset).toISOString();
        expect(idOutsideItsTime(id, ts)).toBe(outside);
        const { rows } = await sql<{ outside: boolean }>`SELECT NOT coalesce(
            ${ts}::timestamptz >= to_timestamp((audit_ulid_ms(${id}) - 86400000) / 1000.0)
            AND ${ts}::timestamptz < to_timestamp((audit_ulid_ms(${id}) + 86400000) / 1000.0), false) AS outside`.execute(
          s.db,
        );
        expect(rows[0]?.outside).toBe(outside);
      }
      expect(idOutsideItsTime(id, '2026-03-15 00:00:00')).toBe(true); // not ISO with an offset: listed
    });

    it('entries loaded into audit_entries directly are found once audit_rebuild_lookups() ran', async () => {
      const tenant = 'bulk';
      const entry = makeAuditEntry({
        tenantId: tenant,
        id: 'bulk-entry-000000000000001',
        requestId: 'req-bulk',
      });
      await sql`INSERT INTO audit_entries (tenant_id, seq, id, user_id, "timestamp", action_type, action_detail,
          data_accessed, data_classification, policy_applied, policy_result, policy_reason, outcome, request_id,
          prev_hash, hash, commitments)
        VALUES (${tenant}, 1, ${entry.id}, ${entry.userId}, ${entry.timestamp}::timestamptz, ${entry.actionType},
          '{}'::jsonb, '[]'::jsonb, ${entry.dataClassification}, ${entry.policyApplied}, ${entry.policyResult}, '',
          ${entry.outcome}, ${entry.requestId}, ${'0'.repeat(64)}, ${'a'.repeat(64)}, '{}'::jsonb)`.execute(
        s.db,
      );
      expect(await s.audit.get(tenant, entry.id)).toBeUndefined();
      await sql`SELECT audit_rebuild_lookups()`.execute(s.db);
      expect((await s.audit.get(tenant, entry.id))?.seq).toBe(1);
      expect((await s.audit.query(tenant, { requestId: 'req-bulk' }, { offset: 0, limit: 5 })).total).toBe(1);
    });
  });
}

await describeSqlBackends('audit lookups', lookupSuite);
