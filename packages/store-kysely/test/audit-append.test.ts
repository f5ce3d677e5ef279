/**
 * The append path of the SQL audit store (`audit-append.ts`): group commit of concurrent appends
 * of one tenant, the compare-and-set of the head when another writer (another kysely instance,
 * as another process would be) moved it, isolation of one caller's failure inside a group; and
 * `get` of an entry whose timestamp is far from its id's time (the pruning itself:
 * `audit-lookups.test.ts`). PGlite and PostgreSQL.
 */
import type { AuditRecord } from '@agentgov/core';
import { appendEntries, linkRecords, makeAuditEntry } from '@agentgov/core/testing';
import { sql } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createPostgresKysely, createSqlStores, type SqlStores } from '../src/index';
import { collect, describeSqlBackends, postgresStores, storesFor, type TestStores } from './helpers';

/** Seq and links of a tenant's stored chain, checked from 1. */
async function expectChain(s: SqlStores, tenantId: string, length: number): Promise<AuditRecord[]> {
  const records = await collect(s.audit.scan(tenantId));
  expect(records.map((r) => r.seq)).toEqual(Array.from({ length }, (_, i) => i + 1));
  records.forEach((r, i) => {
    if (i > 0) expect(r.prevHash).toBe(records[i - 1]?.hash);
  });
  expect(await s.audit.head(tenantId)).toEqual({ seq: length, hash: records.at(-1)?.hash });
  return records;
}

function appendSuite(name: string, open: () => Promise<TestStores>): void {
  describe(name, () => {
    const s = storesFor(open);

    it('30 concurrent appends of one tenant: each resolves with its own records, one unbroken chain', async () => {
      const tenant = 'grouped';
      const results = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          appendEntries(s.audit, tenant, [
            makeAuditEntry({ tenantId: tenant, requestId: `req-${i}-a` }),
            makeAuditEntry({ tenantId: tenant, requestId: `req-${i}-b` }),
          ]),
        ),
      );
      const stored = await expectChain(s, tenant, 60);
      const byHash = new Map(stored.map((r) => [r.hash, r]));
      results.forEach((records, i) => {
        expect(records.map((r) => r.entry.requestId)).toEqual([`req-${i}-a`, `req-${i}-b`]);
        expect(records[1]?.prevHash).toBe(records[0]?.hash);
        for (const r of records) expect(byHash.get(r.hash)?.entry).toEqual(r.entry);
      });
    });

    it('a build that throws fails its caller only; the others of its group are written', async () => {
      const tenant = 'one-fails';
      const outcomes = await Promise.allSettled(
        Array.from({ length: 6 }, (_, i) =>
          s.audit.append(tenant, (head) => {
            if (i === 2) throw new Error('build failed');
            return linkRecords(head, [makeAuditEntry({ tenantId: tenant, requestId: `req-${i}` })]);
          }),
        ),
      );
      expect(outcomes.map((o) => o.status)).toEqual([
        'fulfilled',
        'fulfilled',
        'rejected',
        'fulfilled',
        'fulfilled',
        'fulfilled',
      ]);
      const stored = await expectChain(s, tenant, 5);
      expect(stored.map((r) => r.entry.requestId)).toEqual(['req-0', 'req-1', 'req-3', 'req-4', 'req-5']);
    });

    it('a record the database refuses fails its caller only, not the group it was written with', async () => {
      const tenant = 'bad-row';
      const outcomes = await Promise.allSettled(
        Array.from({ length: 5 }, (_, i) =>
          appendEntries(s.audit, tenant, [
            makeAuditEntry({
              tenantId: tenant,
              requestId: `req-${i}`,
              // PostgreSQL text cannot hold NUL: the statement fails.
              ...(i === 1 ? { policyReason: 'nul \u0000 byte' } : {}),
            }),
          ]),
        ),
      );
      expect(outcomes.map((o) => o.status)).toEqual([
        'fulfilled',
        'rejected',
        'fulfilled',
        'fulfilled',
        'fulfilled',
      ]);
      const stored = await expectChain(s, tenant, 4);
      expect(stored.map((r) => r.entry.requestId)).toEqual(['req-0', 'req-2', 'req-3', 'req-4']);
    });

    it('a head moved behind this store’s back (another writer) is detected: build runs again on the real head', async () => {
      const tenant = 'moved';
      await appendEntries(s.audit, tenant, [makeAuditEntry({ tenantId: tenant })]);
      // Another writer appends records 2 and 3 without going through this store's queue.
      const other = linkRecords(await s.audit.head(tenant), [
        makeAuditEntry({ tenantId: tenant }),
        makeAuditEntry({ tenantId: tenant }),
      ]);
      await s.db.transaction().execute(async (trx) => {
        for (const r of other) {
          await sql`INSERT INTO audit_entries (tenant_id, seq, id, user_id, "timestamp", action_type, action_detail,
              data_accessed, data_classification, policy_applied, policy_result, policy_reason, outcome, request_id,
              prev_hash, hash, commitments)
            VALUES (${tenant}, ${r.seq}, ${r.entry.id}, ${r.entry.userId}, ${r.entry.timestamp}::timestamptz,
              ${r.entry.actionType}, '{}'::jsonb, '[]'::jsonb, ${r.entry.dataClassification}, ${r.entry.policyApplied},
              ${r.entry.policyResult}, '', ${r.entry.outcome}, ${r.entry.requestId}, ${r.prevHash}, ${r.hash},
              ${JSON.stringify(r.commitments)}::jsonb)`.execute(trx);
        }
        const last = other.at(-1) as AuditRecord;
        await sql`UPDATE audit_chain_heads SET seq = ${last.seq}, hash = ${last.hash} WHERE tenant_id = ${tenant}`.execute(
          trx,
        );
      });
      const heads: (number | undefined)[] = [];
      const [record] = await s.audit.append(tenant, (head) => {
        heads.push(head?.seq);
        return linkRecords(head, [makeAuditEntry({ tenantId: tenant })]);
      });
      expect(heads.at(-1)).toBe(3);
      expect(record?.seq).toBe(4);
      await expectChain(s, tenant, 4);
    });

    it('get by id finds an entry whose timestamp is far from its id’s time (listed in audit_id_index)', async () => {
      const tenant = 'backdated';
      const entry = makeAuditEntry({ tenantId: tenant, timestamp: '2020-01-15T10:00:00.000Z' });
      await appendEntries(s.audit, tenant, [entry]);
      expect((await s.audit.get(tenant, entry.id))?.entry).toEqual(entry);
      expect(await s.audit.get(tenant, 'not-a-ulid')).toBeUndefined();
      expect(await s.audit.get(tenant, '01ARZ3NDEKTSV4RRFFQ69G5FAV')).toBeUndefined();
    });
  });
}

await describeSqlBackends('audit append path', appendSuite, (url) => {
  describe('two kysely instances (two processes) appending to one tenant at once', () => {
    it('every append lands once, in one unbroken chain', async () => {
      const a = await postgresStores(url);
      const pool = new pg.Pool({ connectionString: url, max: 4 });
      const b = createSqlStores(createPostgresKysely({ pool, schema: a.schema }), {
        schema: a.schema,
        kind: 'postgres',
      });
      try {
        const tenant = 'shared';
        const writes = [a, b].flatMap((s, w) =>
          Array.from({ length: 40 }, (_, i) =>
            appendEntries(s.audit, tenant, [makeAuditEntry({ tenantId: tenant, requestId: `w${w}-${i}` })]),
          ),
        );
        await Promise.all(writes);
        const stored = await expectChain(a, tenant, 80);
        expect(new Set(stored.map((r) => r.entry.requestId)).size).toBe(80);
      } finally {
        await b.close();
        await a.cleanup();
      }
    });
  });
});
