/**
 * Migration `0010_audit_append_leaves`: `audit_append` takes the leaves as one LF-joined text
 * parameter (the rows' `l` key stays the path for any other leaf and for callers of 0009). A
 * database with entries appended at 0009 still verifies after the migration and its chain goes
 * on; a 0009 caller (six arguments, leaves in `l`) still appends; a call whose rows or leaves do
 * not match the head's move raises and writes nothing; both ways of sending the leaves store the
 * same text (property). PGlite and PostgreSQL.
 */
import { createAuditLog, ensureAuditKeysOrThrow, verifyTenant } from '@agentgov/audit';
import {
  type AuditEntryInput,
  type AuditRecord,
  InMemoryAuditStore,
  InMemorySecretStore,
} from '@agentgov/core';
import { linkRecords, makeAuditEntry } from '@agentgov/core/testing';
import fc from 'fast-check';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { joinedLeaves } from '../src/audit-sql';
import { MIGRATIONS, migrateToLatest } from '../src/index';
import {
  collect,
  describeSqlBackends,
  type OpenStores,
  partialMigrations,
  storesFor,
  type TestStores,
} from './helpers';

const input = (tenantId: string, i: number): AuditEntryInput => ({
  tenantId,
  userId: `user-${i % 3}`,
  actionType: 'tool_invocation',
  actionDetail: { tool: 'tracker_update', ticketId: `T-${i}`, initiatorUserId: `user-${i % 3}` },
  dataAccessed: [{ source: 'tracker', classification: 'internal', purpose: `update ${i} — ü 🚀` }],
  modelUsed: 'model-x',
  modelTokens: { input: 120 + i, output: 40 },
  dataClassification: 'internal',
  policyApplied: 'policy-actions',
  policyResult: 'allow',
  policyReason: '',
  outcome: 'success',
  requestId: `req-${i}`,
});

/** The JSON rows of `audit_append` as a 0009 caller sends them (the leaf in `l`). */
const rows0009 = (records: readonly AuditRecord[]) =>
  JSON.stringify(
    records.map((r) => ({
      s: r.seq,
      i: r.entry.id,
      u: r.entry.userId,
      t: r.entry.timestamp,
      a: r.entry.actionType,
      ad: r.entry.actionDetail,
      da: r.entry.dataAccessed,
      mu: r.entry.modelUsed,
      mt: r.entry.modelTokens,
      dc: r.entry.dataClassification,
      pa: r.entry.policyApplied,
      pr: r.entry.policyResult,
      pn: r.entry.policyReason,
      o: r.entry.outcome,
      q: r.entry.requestId,
      ph: r.prevHash,
      h: r.hash,
      c: r.commitments,
      x: false,
      l: r.leaf ?? null,
    })),
  );

/** A 0009 caller's call: six arguments, the leaves in the rows. */
function call0009(s: TestStores, tenantId: string, from: number, fromHash: string, records: AuditRecord[]) {
  const last = records.at(-1) as AuditRecord;
  return sql<{
    written: boolean;
  }>`SELECT audit_append(${tenantId}, ${from}, ${fromHash}, ${last.seq}, ${last.hash},
    ${rows0009(records)}::json) AS written`.execute(s.db);
}

/** Records with valid hashes and leaves, built by the log over a memory store. */
async function builtRecords(
  secrets: InMemorySecretStore,
  tenantId: string,
  n: number,
): Promise<AuditRecord[]> {
  const memory = new InMemoryAuditStore();
  const log = createAuditLog({ store: memory, secrets });
  (await log.appendBatch(Array.from({ length: n }, (_, i) => input(tenantId, i + 1))))._unsafeUnwrap();
  return collect(memory.scan(tenantId));
}

const storedLeaves = async (s: TestStores, tenantId: string) =>
  (
    await sql<{
      leaf: string | null;
    }>`SELECT leaf FROM audit_entries WHERE tenant_id = ${tenantId} ORDER BY seq`.execute(s.db)
  ).rows.map((r) => r.leaf);

function suite(name: string, open: OpenStores): void {
  describe(name, () => {
    const secrets = new InMemorySecretStore();
    beforeAll(async () => {
      await ensureAuditKeysOrThrow(secrets);
    });

    // The file's first PGlite use starts the instance and runs every migration twice over: a
    // loaded machine takes far longer than the default timeout.
    it('entries appended at 0009 still verify after 0010; the chain goes on through the new call', {
      timeout: 240_000,
    }, async () => {
      const s = await open({ migrate: false });
      try {
        await (await partialMigrations(s)).up('0010');
        const tenant = 't-upgrade';
        const records = await builtRecords(secrets, tenant, 6);
        expect((await call0009(s, tenant, 0, '0'.repeat(64), records)).rows[0]?.written).toBe(true);

        expect(await migrateToLatest(s.db, s.schema)).toEqual(
          Object.keys(MIGRATIONS).filter((n) => n >= '0010'),
        );
        expect(await verifyTenant(s.audit, tenant, { secrets })).toMatchObject({ ok: true, checked: 6 });
        expect(await verifyTenant(s.audit, tenant, { secrets, deep: false })).toMatchObject({
          ok: true,
          checked: 6,
          derived: 0,
        });
        const log = createAuditLog({ store: s.audit, secrets });
        (await log.append(input(tenant, 7)))._unsafeUnwrap();
        (await log.appendBatch([input(tenant, 8), input(tenant, 9)]))._unsafeUnwrap();
        const report = await verifyTenant(s.audit, tenant, { secrets, deep: false });
        expect(report).toMatchObject({ ok: true, checked: 9, derived: 0 });
        expect(await verifyTenant(s.audit, tenant, { secrets })).toMatchObject({ ok: true, checked: 9 });
        const leaves = await storedLeaves(s, tenant);
        expect(leaves.slice(0, 6)).toEqual(records.map((r) => r.leaf));
        expect(leaves.every((l) => typeof l === 'string' && l.length > 0)).toBe(true);
      } finally {
        await s.cleanup();
      }
    });

    describe('on a migrated schema', () => {
      const s = storesFor(open);

      it('a 0009 caller (six arguments, leaves in the rows) still appends, leaves kept', async () => {
        const tenant = 't-old-caller';
        const records = await builtRecords(secrets, tenant, 3);
        expect((await call0009(s, tenant, 0, '0'.repeat(64), records)).rows[0]?.written).toBe(true);
        expect(await storedLeaves(s, tenant)).toEqual(records.map((r) => r.leaf));
        expect(await verifyTenant(s.audit, tenant, { secrets, deep: false })).toMatchObject({
          ok: true,
          checked: 3,
          derived: 0,
        });
      });

      it('rows or leaves that do not match the move of the head raise; nothing is written', async () => {
        const tenant = 't-mismatch';
        const records = await builtRecords(secrets, tenant, 3);
        const last = records.at(-1) as AuditRecord;
        const leaves = joinedLeaves(records) as string;
        const rows = (rs: AuditRecord[]) => JSON.stringify(JSON.parse(rows0009(rs)));
        const calls = [
          // Three rows, the head moved by two.
          sql`SELECT audit_append(${tenant}, 0, ${'0'.repeat(64)}, 2, ${last.hash}, ${rows(records)}::json, ${leaves})`,
          // Two leaves for three rows, and four.
          sql`SELECT audit_append(${tenant}, 0, ${'0'.repeat(64)}, 3, ${last.hash}, ${rows(records)}::json,
            ${joinedLeaves(records.slice(0, 2))})`,
          sql`SELECT audit_append(${tenant}, 0, ${'0'.repeat(64)}, 3, ${last.hash}, ${rows(records)}::json,
            ${`${leaves}\n{"more":1}`})`,
          // Leaves in the rows (0009's way): three rows, the head moved by four.
          sql`SELECT audit_append(${tenant}, 0, ${'0'.repeat(64)}, 4, ${last.hash}, ${rows(records)}::json)`,
        ];
        for (const call of calls) {
          await expect(call.execute(s.db)).rejects.toThrow(/audit_append/);
          expect(await s.audit.count(tenant)).toBe(0);
          expect(await s.audit.head(tenant)).toBeUndefined();
          const lookups = await sql<{ n: number }>`SELECT count(*)::int AS n FROM audit_request_index
            WHERE tenant_id = ${tenant}`.execute(s.db);
          expect(lookups.rows[0]?.n).toBe(0);
        }
      });

      it('property: whichever way the leaves are sent, the stored leaf is the one given', async () => {
        let n = 0;
        // Any text PostgreSQL stores (no NUL), with line feeds and empty ones among them.
        const text = fc.oneof(
          fc.string(),
          fc.string({ unit: 'grapheme' }),
          fc.json(),
          fc.constantFrom('', '\n', 'a\nb', '{"a":1}\n'),
        );
        const leaf = fc.option(
          text.filter((t) => !t.includes('\u0000')),
          { nil: undefined },
        );
        await fc.assert(
          fc.asyncProperty(fc.array(leaf, { minLength: 1, maxLength: 6 }), async (leaves) => {
            const tenant = `t-prop-${++n}`;
            const built = linkRecords(
              undefined,
              leaves.map(() => makeAuditEntry({ tenantId: tenant })),
            ).map((r, i) => (leaves[i] === undefined ? r : { ...r, leaf: leaves[i] }));
            await s.audit.append(tenant, () => built);
            const joined = joinedLeaves(built);
            expect(joined === undefined).toBe(
              leaves.some((l) => l === undefined || l === '' || l.includes('\n')),
            );
            expect(await storedLeaves(s, tenant)).toEqual(leaves.map((l) => l ?? null));
          }),
          { numRuns: 40 },
        );
      });
    });
  });
}

await describeSqlBackends('audit_append leaves (0010)', suite);
