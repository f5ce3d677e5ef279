/**
 * The append ×1 fast path (`audit-append-one.ts`): one prepared statement instead of the
 * `audit_append` call. Property: for any record, the fast path (taken when `oneRowParams` accepts
 * the record, else the function) and `audit_append` agree — both refuse it, or both store the same
 * entry row, lookup rows and head. The compare-and-set: a stale expected head writes nothing. The
 * statements are prepared (named) on the connection. PGlite and PostgreSQL.
 */
import type { AuditRecord, ChainHead } from '@agentgov/core';
import fc from 'fast-check';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { oneRowParams } from '../src/audit-append-one';
import { appendCall, appendRows, idOutsideItsTime } from '../src/audit-sql';
import { describeSqlBackends, type OpenStores, storesFor, type TestStores } from './helpers';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A ULID whose time is `ms` (so the entry's id tells its partition). */
function ulid(ms: number, tail: string): string {
  let time = '';
  for (let i = 0, t = ms; i < 10; i++, t = Math.floor(t / 32)) time = CROCKFORD[t % 32] + time;
  return time + tail;
}

/** Text of every kind: plain, unicode, JSON-ish, and the odd (NUL, lone surrogates, line feeds). */
const text = fc.oneof(
  { weight: 6, arbitrary: fc.string({ minLength: 1, maxLength: 20 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 8 }) },
  { weight: 1, arbitrary: fc.constantFrom('', "it's", 'a\nb', '\\', 'x\u0000y', '\uD800', '{"a":1}', '🚀') },
);
/** JSON values, absent ones, and NaN (which JSON.stringify writes as null). */
const jsonish = fc.oneof(
  { weight: 6, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  { weight: 1, arbitrary: fc.constantFrom(undefined, null, Number.NaN) },
);

const recordArb = fc.record({
  ms: fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2100, 0, 1) }),
  offsetMs: fc.oneof(fc.constant(0), fc.integer({ min: -3 * 86_400_000, max: 3 * 86_400_000 })),
  idTail: fc.oneof(fc.stringMatching(/^[0-9A-HJKMNP-TV-Z]{16}$/), text),
  plainId: fc.boolean(),
  userId: text,
  actionType: text,
  actionDetail: jsonish,
  dataAccessed: jsonish,
  modelUsed: fc.option(text, { nil: undefined }),
  modelTokens: jsonish,
  dataClassification: text,
  policyReason: fc.option(text, { nil: undefined }),
  requestId: text,
  hash: text,
  commitments: fc.option(fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 })), {
    nil: undefined,
  }),
  leaf: fc.option(text, { nil: undefined }),
});

type Drawn = typeof recordArb extends fc.Arbitrary<infer T> ? T : never;

/** The drawn record for `tenantId`, second in its chain (after `head`). */
function recordOf(d: Drawn, tenantId: string, head: ChainHead): AuditRecord {
  const timestamp = new Date(d.ms + d.offsetMs).toISOString();
  const id = d.plainId ? ulid(d.ms, 'ABCDEFGHJKMNPQRS') : ulid(d.ms, d.idTail);
  const entry = {
    id,
    tenantId,
    userId: d.userId,
    timestamp,
    actionType: d.actionType,
    actionDetail: d.actionDetail,
    dataAccessed: d.dataAccessed,
    modelUsed: d.modelUsed,
    modelTokens: d.modelTokens,
    dataClassification: d.dataClassification,
    policyApplied: 'p',
    policyResult: 'allow',
    policyReason: d.policyReason,
    outcome: 'success',
    requestId: d.requestId,
  } as unknown as AuditRecord['entry'];
  const record: AuditRecord = {
    entry,
    seq: head.seq + 1,
    prevHash: head.hash,
    hash: d.hash,
    commitments: {},
  };
  if (d.commitments !== undefined) record.commitments = d.commitments;
  else delete (record as { commitments?: unknown }).commitments;
  if (d.leaf !== undefined) record.leaf = d.leaf;
  return record;
}

const FIRST: AuditRecord = {
  entry: {
    id: ulid(Date.UTC(2026, 0, 1), 'ABCDEFGHJKMNPQRS'),
    tenantId: '',
    userId: 'u',
    timestamp: new Date(Date.UTC(2026, 0, 1)).toISOString(),
    actionType: 'a',
    actionDetail: {},
    dataAccessed: [],
    dataClassification: 'internal',
    policyApplied: 'p',
    policyResult: 'allow',
    policyReason: '',
    outcome: 'success',
    requestId: 'r0',
  } as unknown as AuditRecord['entry'],
  seq: 1,
  prevHash: '0'.repeat(64),
  hash: 'h1',
  commitments: {},
  leaf: '{}',
};
const HEAD: ChainHead = { seq: 1, hash: 'h1' };

/** Everything an append wrote for a tenant, as text (the tenant id left out). */
async function written(s: TestStores, tenantId: string) {
  const entries =
    await sql`SELECT seq::text, id, user_id, "timestamp"::text, action_type, action_detail::text,
      data_accessed::text, model_used, model_tokens::text, data_classification, policy_applied, policy_result,
      policy_reason, outcome, request_id, prev_hash, hash, commitments::text, leaf
    FROM audit_entries WHERE tenant_id = ${tenantId} ORDER BY seq`.execute(s.db);
  const requests = await sql`SELECT request_id, seq::text, "timestamp"::text FROM audit_request_index
    WHERE tenant_id = ${tenantId} ORDER BY seq`.execute(s.db);
  const ids = await sql`SELECT id, seq::text, "timestamp"::text FROM audit_id_index
    WHERE tenant_id = ${tenantId} ORDER BY seq`.execute(s.db);
  const head = await sql`SELECT seq::text, hash FROM audit_chain_heads WHERE tenant_id = ${tenantId}`.execute(
    s.db,
  );
  return { entries: entries.rows, requests: requests.rows, ids: ids.rows, head: head.rows };
}

const outcome = (p: Promise<boolean>) =>
  p.then(
    (w) => ({ ok: true as const, w }),
    () => ({ ok: false as const }),
  );

function suite(name: string, open: OpenStores): void {
  describe(name, () => {
    const s = storesFor(open);

    it('property: the fast path and audit_append store the same, or both refuse', async () => {
      let n = 0;
      let fast = 0;
      await fc.assert(
        fc.asyncProperty(recordArb, async (d) => {
          const [a, b] = [`t-fast-${++n}`, `t-call-${n}`];
          for (const t of [a, b]) {
            expect(
              await appendCall(s.db, t, undefined, [{ ...FIRST, entry: { ...FIRST.entry, tenantId: t } }]),
            ).toBe(true);
          }
          const ra = recordOf(d, a, HEAD);
          const accepted =
            !idOutsideItsTime(ra.entry.id, ra.entry.timestamp) && oneRowParams(a, HEAD, ra) !== undefined;
          if (accepted) fast++;
          const viaFast = await outcome(appendRows(s.db, a, HEAD, [ra]));
          const viaCall = await outcome(appendCall(s.db, b, HEAD, [recordOf(d, b, HEAD)]));
          expect(viaFast).toEqual(viaCall);
          expect(await written(s, a)).toEqual(await written(s, b));
        }),
        { numRuns: 80 },
      );
      expect(fast).toBeGreaterThan(10); // the fast path was taken, not only the function
    });

    it('a stale expected head: nothing written, false', async () => {
      const t = 't-stale';
      expect(
        await appendCall(s.db, t, undefined, [{ ...FIRST, entry: { ...FIRST.entry, tenantId: t } }]),
      ).toBe(true);
      const record = {
        ...FIRST,
        entry: { ...FIRST.entry, tenantId: t, requestId: 'r2' },
        seq: 2,
        prevHash: 'h1',
        hash: 'h2',
      };
      expect(oneRowParams(t, HEAD, record)).toBeDefined();
      expect(await appendRows(s.db, t, { seq: 1, hash: 'other' }, [record])).toBe(false);
      expect(await appendRows(s.db, t, { seq: 2, hash: 'h1' }, [{ ...record, seq: 3, prevHash: 'h1' }])).toBe(
        false,
      );
      expect((await written(s, t)).entries).toHaveLength(1);
      expect(await appendRows(s.db, t, HEAD, [record])).toBe(true);
      expect((await written(s, t)).head).toEqual([{ seq: '2', hash: 'h2' }]);
      // The head moved on: the same expected head is stale now.
      expect(await appendRows(s.db, t, HEAD, [{ ...record, hash: 'h2b' }])).toBe(false);
      expect((await written(s, t)).entries).toHaveLength(2);
    });

    it('a record that does not follow the expected head is not taken by the fast path', () => {
      const record = { ...FIRST, seq: 3, prevHash: 'h1' };
      expect(oneRowParams('t', HEAD, record)).toBeUndefined();
      expect(oneRowParams('t', HEAD, { ...FIRST, seq: 2, prevHash: 'h0' })).toBeUndefined();
      expect(oneRowParams('t', HEAD, { ...FIRST, seq: 2, prevHash: 'h1' })).toBeDefined();
    });

    it('the append statements are prepared on the connection', async () => {
      const t = 't-prepared';
      const names = await s.db.connection().execute(async (db) => {
        expect(
          await appendCall(db, t, undefined, [{ ...FIRST, entry: { ...FIRST.entry, tenantId: t } }]),
        ).toBe(true);
        const record = {
          ...FIRST,
          entry: { ...FIRST.entry, tenantId: t },
          seq: 2,
          prevHash: 'h1',
          hash: 'h2',
        };
        expect(await appendRows(db, t, HEAD, [record])).toBe(true);
        return (
          await sql<{ statement: string }>`SELECT statement FROM pg_prepared_statements
            WHERE name LIKE 'agentgov\\_%' ORDER BY statement`.execute(db)
        ).rows.map((r) => r.statement);
      });
      expect(names.some((x) => x.startsWith('SELECT audit_append('))).toBe(true);
      expect(names.some((x) => x.startsWith('WITH h AS ('))).toBe(true);
    });

    it('a statement the session lost (DEALLOCATE ALL) is run again: the append still lands', async () => {
      const t = 't-deallocated';
      await s.db.connection().execute(async (db) => {
        expect(
          await appendCall(db, t, undefined, [{ ...FIRST, entry: { ...FIRST.entry, tenantId: t } }]),
        ).toBe(true);
        const second = {
          ...FIRST,
          entry: { ...FIRST.entry, tenantId: t },
          seq: 2,
          prevHash: 'h1',
          hash: 'h2',
        };
        expect(await appendRows(db, t, HEAD, [second])).toBe(true);
        await sql`DEALLOCATE ALL`.execute(db);
        const third = { ...second, seq: 3, prevHash: 'h2', hash: 'h3' };
        expect(await appendRows(db, t, { seq: 2, hash: 'h2' }, [third])).toBe(true);
        const fourth = { ...second, seq: 4, prevHash: 'h3', hash: 'h4' };
        expect(await appendRows(db, t, { seq: 3, hash: 'h3' }, [fourth])).toBe(true);
      });
      expect((await written(s, t)).head).toEqual([{ seq: '4', hash: 'h4' }]);
    });
  });
}

await describeSqlBackends('audit append ×1 fast path', suite);
