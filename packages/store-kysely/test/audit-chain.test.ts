/**
 * The SQL store under `@agentgov/audit`: tampering with any stored column (triggers disabled by a
 * superuser), reordering or deleting entries makes `verifyTenant` fail and name the entry;
 * anonymization through the store keeps the chain valid and leaves no clear user id behind;
 * the hashes-only scan reads back exactly what is stored.
 * Runs on PGlite and on PostgreSQL.
 */
import { createAuditLog, createAuditService, ensureAuditKeysOrThrow, verifyTenant } from '@agentgov/audit';
import { type AuditEntry, type AuditEntryInput, InMemorySecretStore } from '@agentgov/core';
import { type RawBuilder, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeSqlBackends, type TestStores } from './helpers';

const input = (tenantId: string, i: number, overrides: Partial<AuditEntryInput> = {}): AuditEntryInput => ({
  tenantId,
  userId: `user-${i % 2}`,
  actionType: 'agent_exchange',
  actionDetail: {
    exchangeId: `ex-${i}`,
    initiatorUserId: `user-${i % 2}`,
    responderUserId: 'zoë@example.com',
    currentRound: i,
    ratio: 0.1 + i,
    nested: { deep: ['a', 1, true, null] },
  },
  dataAccessed: [{ source: 'drive', classification: 'internal', purpose: `purpose ${i}` }],
  modelUsed: i % 2 === 0 ? 'model-x' : null,
  modelTokens: i % 2 === 0 ? { input: 100 + i, output: 7 } : null,
  dataClassification: 'confidential',
  policyApplied: 'policy-a2a',
  policyResult: 'allow',
  policyReason: `reason ${i} — ünïcødé 🚀`,
  outcome: 'success',
  requestId: `req-${i}`,
  ...overrides,
});

/** Tampers: each changes one column of the entry at seq 3 (or the chain's shape). */
const COLUMN_TAMPERS: Record<string, RawBuilder<unknown>> = {
  id: sql`id = '01ARZ3NDEKTSV4RRFFQ69G5FAV'`,
  user_id: sql`user_id = 'mallory'`,
  timestamp_ms: sql`"timestamp" = "timestamp" + interval '1 millisecond'`,
  timestamp_us: sql`"timestamp" = "timestamp" + interval '1 microsecond'`,
  action_type: sql`action_type = 'data_access'`,
  action_detail_value: sql`action_detail = jsonb_set(action_detail, '{currentRound}', '99')`,
  action_detail_identifier: sql`action_detail = jsonb_set(action_detail, '{initiatorUserId}', '"mallory"')`,
  action_detail_added_key: sql`action_detail = action_detail || '{"extra": 1}'`,
  data_accessed: sql`data_accessed = '[{"source":"mail","classification":"internal","purpose":"purpose 3"}]'`,
  model_used: sql`model_used = 'model-y'`,
  model_tokens: sql`model_tokens = '{"input": 1, "output": 7}'`,
  data_classification: sql`data_classification = 'public'`,
  policy_applied: sql`policy_applied = 'policy-other'`,
  policy_result: sql`policy_result = 'deny'`,
  policy_reason: sql`policy_reason = policy_reason || ' '`,
  outcome: sql`outcome = 'error'`,
  request_id: sql`request_id = 'req-x'`,
  prev_hash: sql`prev_hash = repeat('0', 64)`,
  hash: sql`hash = repeat('a', 64)`,
  commitments: sql`commitments = jsonb_set(commitments, '{userId}', to_jsonb(repeat('b', 64)))`,
  leaf: sql`leaf = replace(leaf, '"outcome":"success"', '"outcome":"error"')`,
};

/** The tampers the leaf-only check (`deep: false`) finds (the others change columns it does not re-derive). */
const LEAF_TAMPERS = new Set(['prev_hash', 'hash', 'leaf']);

function chainSuite(name: string, open: () => Promise<TestStores>): void {
  describe(name, () => {
    let s: TestStores;
    const secrets = new InMemorySecretStore();
    beforeAll(async () => {
      s = await open();
      await ensureAuditKeysOrThrow(secrets);
    });
    afterAll(async () => {
      await s?.cleanup();
    });

    /** Appends 5 entries (batch of 2, then 3 singles) to a fresh tenant; returns them in seq order. */
    async function seed(tenantId: string): Promise<AuditEntry[]> {
      const log = createAuditLog({ store: s.audit, secrets });
      const batch = await log.appendBatch([input(tenantId, 1), input(tenantId, 2)]);
      const out = [...batch._unsafeUnwrap()];
      for (const i of [3, 4, 5]) out.push((await log.append(input(tenantId, i)))._unsafeUnwrap());
      const report = await verifyTenant(s.audit, tenantId, { secrets });
      expect(report.ok, JSON.stringify(report.firstBreak)).toBe(true);
      expect(report.checked).toBe(5);
      return out;
    }

    /** Runs SQL with every trigger off (superuser only), as an attacker with DB access would. */
    async function tamper(statement: RawBuilder<unknown>): Promise<void> {
      await s.db.transaction().execute(async (trx) => {
        await sql`SET LOCAL session_replication_role = replica`.execute(trx);
        await statement.execute(trx);
      });
    }

    it('a fresh chain verifies; every field reads back exactly as appended', async () => {
      const entries = await seed('t-roundtrip');
      const { records } = await s.audit.query('t-roundtrip', {}, { offset: 0, limit: 10 });
      expect(records.map((r) => r.entry)).toEqual(entries);
      expect(records.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5]);
    });

    for (const [column, change] of Object.entries(COLUMN_TAMPERS)) {
      it(`changing ${column} of one entry in SQL makes verify fail and name that entry`, async () => {
        const tenant = `t-${column}`;
        const entries = await seed(tenant);
        const target = entries[2] as AuditEntry;
        await tamper(sql`UPDATE audit_entries SET ${change} WHERE tenant_id = ${tenant} AND seq = 3`);
        // The default check (deep) finds every edited column.
        const report = await verifyTenant(s.audit, tenant, { secrets });
        expect(report).toMatchObject({ ok: false, depth: 'deep' });
        const expectedId = column === 'id' ? '01ARZ3NDEKTSV4RRFFQ69G5FAV' : target.id;
        expect(report.firstBreak?.entryId, JSON.stringify(report.firstBreak)).toBe(expectedId);
        expect(report.firstBreak?.seq).toBe(3);
        // Over the stored leaves alone (deep: false, scanLeaves: no entry column read), only a
        // change to the leaf, the hash or the link is seen; the report says the columns were not
        // re-derived.
        const leaves = await verifyTenant(s.audit, tenant, { secrets, deep: false });
        expect(leaves).toMatchObject({ depth: 'leaf', derived: 0, ok: !LEAF_TAMPERS.has(column) });
        if (LEAF_TAMPERS.has(column)) expect(leaves.firstBreak).toMatchObject({ entryId: target.id, seq: 3 });
      });
    }

    it('entries stored without a leaf (before migration 0009) are re-derived from their columns', async () => {
      const tenant = 't-legacy';
      await seed(tenant);
      await tamper(sql`UPDATE audit_entries SET leaf = NULL WHERE tenant_id = ${tenant} AND seq IN (2, 4)`);
      const report = await verifyTenant(s.audit, tenant, { secrets, batchSize: 2, deep: false });
      expect(report).toMatchObject({
        ok: true,
        checked: 5,
        depth: 'leaf',
        derived: 2,
        identifiers: 'checked',
      });
      // A changed column of such an entry is found even leaf-only.
      await tamper(sql`UPDATE audit_entries SET outcome = 'error' WHERE tenant_id = ${tenant} AND seq = 4`);
      const broken = await verifyTenant(s.audit, tenant, { secrets, batchSize: 2, deep: false });
      expect(broken.firstBreak).toMatchObject({ seq: 4, reason: 'hash_mismatch' });
    });

    it('the leaf stored is the very text hashed; scanLeaves reads it without the entry columns', async () => {
      const tenant = 't-leaf-text';
      await seed(tenant);
      const { computeRecordHash, recordHashInput } = await import('@agentgov/audit');
      const { records } = await s.audit.query(tenant, {}, { offset: 0, limit: 10 });
      const leaves = [];
      for await (const page of s.audit.scanLeaves?.(tenant, { fromSeq: 2, toSeq: 4, batchSize: 2 }) ?? [])
        leaves.push(...page);
      expect(leaves).toEqual(
        records.slice(1, 4).map((r) => ({
          seq: r.seq,
          id: r.entry.id,
          prevHash: r.prevHash,
          hash: r.hash,
          leaf: recordHashInput(r),
        })),
      );
      for (const r of records) expect(computeRecordHash(r)).toBe(r.hash);
    });

    // PostgreSQL only: on PGlite every store shares the file's one connection, whose search_path a
    // second store would move under this suite's.
    it.runIf(name.endsWith('postgres'))(
      'a database not migrated to 0009 (no leaf column) is verified from its columns',
      async () => {
        const old = await open();
        try {
          const tenant = 't-no-leaf-column';
          const log = createAuditLog({ store: old.audit, secrets });
          for (const i of [1, 2, 3]) (await log.append(input(tenant, i)))._unsafeUnwrap();
          // As before migration 0009 (what the read-only CLI may open): no leaf column at all.
          await sql`ALTER TABLE audit_entries DROP COLUMN leaf`.execute(old.db);
          for (const round of [1, 2]) {
            const report = await verifyTenant(old.audit, tenant, { secrets, deep: false });
            expect(report, `round ${round}`).toMatchObject({
              ok: true,
              checked: 3,
              depth: 'leaf',
              derived: 3,
            });
            const deep = await verifyTenant(old.audit, tenant, { secrets });
            expect(deep, `round ${round}`).toMatchObject({ ok: true, checked: 3, depth: 'deep', derived: 3 });
          }
        } finally {
          await old.cleanup();
        }
      },
    );

    it('changing tenant_id moves the entry out of the chain: verify fails at the gap', async () => {
      const entries = await seed('t-tenant');
      await tamper(
        sql`UPDATE audit_entries SET tenant_id = 't-elsewhere' WHERE tenant_id = 't-tenant' AND seq = 3`,
      );
      const report = await verifyTenant(s.audit, 't-tenant', { secrets });
      expect(report.ok).toBe(false);
      expect(report.firstBreak?.reason).toBe('seq_gap');
      expect(report.firstBreak?.entryId).toBe(entries[3]?.id);
    });

    it('changing seq (a gap) makes verify fail', async () => {
      const entries = await seed('t-seq');
      await tamper(sql`UPDATE audit_entries SET seq = 30 WHERE tenant_id = 't-seq' AND seq = 3`);
      const report = await verifyTenant(s.audit, 't-seq', { secrets });
      expect(report.ok).toBe(false);
      expect(report.firstBreak?.entryId).toBe(entries[3]?.id);
    });

    it('swapping the seq of two entries (reordering) makes verify fail and name a swapped entry', async () => {
      const entries = await seed('t-swap');
      await tamper(sql`UPDATE audit_entries SET seq = CASE seq WHEN 2 THEN 3 ELSE 2 END
        WHERE tenant_id = 't-swap' AND seq IN (2, 3)`);
      const report = await verifyTenant(s.audit, 't-swap', { secrets });
      expect(report.ok).toBe(false);
      expect([entries[1]?.id, entries[2]?.id]).toContain(report.firstBreak?.entryId);
      expect(report.firstBreak?.seq).toBe(2);
    });

    it('deleting an entry makes verify fail at the next one (seq gap)', async () => {
      const entries = await seed('t-delete');
      await tamper(sql`DELETE FROM audit_entries WHERE tenant_id = 't-delete' AND seq = 3`);
      const report = await verifyTenant(s.audit, 't-delete', { secrets });
      expect(report.ok).toBe(false);
      expect(report.firstBreak?.entryId).toBe(entries[3]?.id);
      expect(report.firstBreak?.reason).toBe('seq_gap');
    });

    it('scanHashes reads the stored hashes exactly, also one tampered to another length', async () => {
      const tenant = 't-hashes';
      await seed(tenant);
      await tamper(sql`UPDATE audit_entries SET hash = 'short' WHERE tenant_id = ${tenant} AND seq = 2`);
      const scanned = [];
      for await (const r of s.audit.scan(tenant)) scanned.push(r.hash);
      expect(scanned[1]).toBe('short');
      const scanHashes = s.audit.scanHashes?.bind(s.audit);
      if (!scanHashes) throw new Error('the SQL store has no scanHashes');
      for (const batchSize of [1, 2, 10]) {
        const pages: string[][] = [];
        for await (const page of scanHashes(tenant, { batchSize })) pages.push(page);
        expect(pages.flat()).toEqual(scanned);
        expect(Math.max(...pages.map((p) => p.length))).toBeLessThanOrEqual(batchSize);
      }
    });

    it('anonymizing a user keeps the chain valid and leaves the clear id in no column of any row', async () => {
      const tenant = 't-gdpr';
      const subject = 'zoë@example.com';
      const log = createAuditLog({ store: s.audit, secrets });
      await log.appendBatch([
        input(tenant, 1),
        input(tenant, 2, {
          userId: subject,
          actionDetail: { initiatorUserId: subject, approverUserId: 'user-1' },
        }),
        input(tenant, 3, { userId: subject }),
      ]);
      await log.append(input('t-gdpr-other', 1)); // another tenant keeps its clear values
      const service = createAuditService({ store: s.audit, secrets, log });
      const erased = await service.anonymizeUser(
        { tenantId: tenant, userId: 'dpo', requestId: 'req-erase' },
        subject,
      );
      const result = erased._unsafeUnwrap();
      expect(result.recordsAnonymized).toBe(3);

      const report = await verifyTenant(s.audit, tenant, { secrets });
      expect(report.ok, JSON.stringify(report.firstBreak)).toBe(true);
      expect(report.checked).toBe(4);

      const { rows } = await sql<{
        t: string;
      }>`SELECT t::text AS t FROM audit_entries t WHERE tenant_id = ${tenant}`.execute(s.db);
      expect(rows).toHaveLength(4);
      for (const row of rows) expect(row.t).not.toContain(subject);
      // the three rewritten entries and the erasure entry itself (its subject is the placeholder)
      expect(rows.filter((r) => r.t.includes(result.placeholder)).length).toBe(4);
      const other = await sql<{
        t: string;
      }>`SELECT t::text AS t FROM audit_entries t WHERE tenant_id = 't-gdpr-other'`.execute(s.db);
      expect(other.rows[0]?.t).toContain('zoë@example.com');
      expect((await verifyTenant(s.audit, 't-gdpr-other', { secrets })).ok).toBe(true);
    });
  });
}

await describeSqlBackends('audit chain over the SQL store', chainSuite);
