/**
 * `scan` and `scanPages` (keyset pages) read the records `get` and `query` read: for arbitrary
 * records — any unicode and escapes in text and jsonb, jsonb numbers JavaScript cannot write
 * (`-0`, `1.0`, `1e400`, 30 digits), microsecond timestamps, filters — value for value (`-0` apart
 * from `0`) and key order for key order. Whatever a page is read as (columns through the driver
 * today; a text PostgreSQL builds, such as JSON of the columns, is what any faster read would be),
 * it must pass this. Runs on PGlite and PostgreSQL.
 */
import { isDeepStrictEqual } from 'node:util';
import type { AuditEntry, AuditFilter, AuditRecord } from '@agentgov/core';
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { KyselyAuditStore } from '../src/index';
import { collect, describeSqlBackends, type TestStores } from './helpers';

/** Whether PostgreSQL can store the value (no NUL, no lone surrogate), judged on its JSON text. */
const storable = (value: unknown): boolean => !/\\u0000|\\ud[89a-f]/i.test(JSON.stringify(value));

const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.constantFrom('', '"', '\\', '\n\t\r\b\f', '\u0001\u001f\u007f', '\u2028\u2029', 'zoë 🚀 𝄞', '\\u0041'),
);
const json = fc.jsonValue({ maxDepth: 3, stringUnit: 'binary' });
const hex64 = fc.stringMatching(/^[0-9a-f]{64}$/);
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
/** A ULID of a time in 2001..2100, or any other id (listed in the id lookup table). */
const id = fc.oneof(
  fc
    .tuple(
      fc.integer({ min: 978_307_200_000, max: 4_102_444_800_000 }),
      fc.stringMatching(/^[0-9A-HJKMNP-TV-Z]{16}$/),
    )
    .map(([ms, rest]) => {
      let time = '';
      for (let i = 0, t = ms; i < 10; i++, t = Math.floor(t / 32)) time = CROCKFORD[t % 32] + time;
      return time + rest;
    }),
  text,
);

const entry = fc.record({
  id,
  userId: fc.constantFrom('alice', 'bob', 'zoë'),
  timestamp: fc.date({ min: new Date('2001-01-01Z'), max: new Date('2100-01-01Z'), noInvalidDate: true }),
  actionType: fc.constantFrom('tool_invocation', 'data_access', 'model_call'),
  actionDetail: fc.dictionary(text, json, { maxKeys: 4 }),
  dataAccessed: fc.array(fc.record({ source: text, classification: text, purpose: text }), { maxLength: 2 }),
  modelUsed: fc.option(text, { nil: null }),
  modelTokens: fc.option(
    fc.record({ input: fc.nat(), output: fc.double({ noNaN: true, noDefaultInfinity: true }) }),
    {
      nil: null,
    },
  ),
  dataClassification: text,
  policyApplied: text,
  policyResult: fc.constantFrom('allow', 'deny'),
  policyReason: text,
  outcome: text,
  requestId: fc.constantFrom('req-1', 'req-2', 'rëq-3'),
});

const entries = fc
  .uniqueArray(entry, { minLength: 1, maxLength: 8, selector: (e) => e.id })
  .filter((list) => storable(list));

/** Records of seq 1..n of `tenantId`, linked; the hashes are arbitrary (the store does not check them). */
const chainOf = fc
  .tuple(entries, fc.array(hex64, { minLength: 8, maxLength: 8 }), fc.dictionary(text, text, { maxKeys: 2 }))
  .filter(storable);

/** jsonb numbers as PostgreSQL reads them from text, many of which no JavaScript number prints as. */
const numberText = fc.oneof(
  fc.constantFrom(
    '-0',
    '0.0',
    '-0.0',
    '1.0',
    '1e400',
    '-1e400',
    '1e-400',
    '1E+2',
    '5e-324',
    '9007199254740993',
    '123456789012345678901234567890',
    '0.1000000000000000055511151231257827',
  ),
  fc
    .tuple(
      fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }),
      fc.nat(99_999),
      fc.integer({ min: -400, max: 400 }),
    )
    .map(([int, frac, exp]) => `${int}.${frac}e${exp}`),
);

let tenants = 0;

function equalRecords(actual: readonly AuditRecord[], expected: readonly AuditRecord[]): void {
  expect(actual).toEqual(expected);
  // toEqual treats -0 as 0 and ignores key order: a read must give the very same values.
  expect(isDeepStrictEqual(actual, expected)).toBe(true);
  expect(JSON.stringify(actual)).toBe(JSON.stringify(expected));
}

/** Every read of `tenantId`'s `n` records (scan, scanPages, filtered scans, get) equals `query`'s. */
async function expectSameReads(
  stores: TestStores,
  tenantId: string,
  n: number,
  batchSize: number,
): Promise<void> {
  const audit = stores.audit as KyselyAuditStore;
  const all = (await audit.query(tenantId, {}, { offset: 0, limit: n + 1 })).records;
  expect(all.map((r) => r.seq)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
  equalRecords(await collect(audit.scan(tenantId, { batchSize })), all);
  equalRecords((await collect(audit.scanPages(tenantId, { batchSize }))).flat(), all);
  equalRecords(
    await collect(audit.scan(tenantId, { fromSeq: 2, toSeq: n - 1, batchSize })),
    all.slice(1, n - 1),
  );
  for (const r of all) equalRecords([(await audit.get(tenantId, r.entry.id)) as AuditRecord], [r]);
  const first = all[0] as AuditRecord;
  const filters: AuditFilter[] = [
    { userId: first.entry.userId },
    { requestId: first.entry.requestId },
    { actionType: first.entry.actionType, policyResult: first.entry.policyResult },
  ];
  for (const filter of filters) {
    const { records } = await audit.query(tenantId, filter, { offset: 0, limit: n + 1 });
    expect(records.length).toBeGreaterThan(0);
    equalRecords(await collect(audit.scan(tenantId, { filter, batchSize })), records);
  }
}

function scanSuite(make: () => Promise<TestStores>): void {
  let stores: TestStores;
  beforeAll(async () => {
    stores = await make();
  });
  afterAll(async () => {
    await stores.cleanup();
  });

  it('appended records: scan and scanPages read what get and query read', async () => {
    await fc.assert(
      fc.asyncProperty(
        chainOf,
        fc.integer({ min: 1, max: 4 }),
        async ([list, hashes, commitments], batchSize) => {
          const tenantId = `t-${++tenants}-ü`;
          const records: AuditRecord[] = list.map((e, i) => ({
            entry: { ...e, tenantId, timestamp: e.timestamp.toISOString() } as AuditEntry,
            seq: i + 1,
            prevHash: i === 0 ? '0'.repeat(64) : (hashes[i - 1] as string),
            hash: hashes[i] as string,
            commitments,
          }));
          await stores.audit.append(tenantId, () => records);
          await expectSameReads(stores, tenantId, records.length, batchSize);
        },
      ),
      { numRuns: 25 },
    );
  }, 120_000);

  it('rows written in SQL with jsonb numbers JavaScript cannot write and microsecond timestamps', async () => {
    const row = fc.record({
      numbers: fc.array(numberText, { minLength: 1, maxLength: 4 }),
      value: json,
      micros: fc.integer({ min: 0, max: 999_999 }),
      offset: fc.constantFrom('Z', '+05:30', '-08:00'),
      userId: fc.constantFrom('alice', 'bob'),
      reason: text,
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(row, { minLength: 2, maxLength: 6 }).filter(storable),
        fc.integer({ min: 1, max: 3 }),
        async (rows, batchSize) => {
          const tenantId = `t-${++tenants}`;
          for (const [i, r] of rows.entries()) {
            const timestamp = `2024-0${1 + (i % 9)}-15T10:20:30.${String(r.micros).padStart(6, '0')}${r.offset}`;
            const detail = `{"numbers": [${r.numbers.join(', ')}], "value": ${JSON.stringify(r.value)}}`;
            await sql`INSERT INTO audit_entries (tenant_id, seq, id, user_id, "timestamp", action_type, action_detail,
                data_accessed, model_used, model_tokens, data_classification, policy_applied, policy_result,
                policy_reason, outcome, request_id, prev_hash, hash, commitments)
              VALUES (${tenantId}, ${i + 1}, ${`id-${tenantId}-${i}`}, ${r.userId}, ${timestamp}::timestamptz,
                'data_access', ${detail}::jsonb, ${`[${r.numbers[0]}]`}::jsonb, NULL,
                ${`{"input": ${r.numbers.at(-1)}}`}::jsonb, 'internal', 'p', 'allow', ${r.reason}, 'success',
                'req', ${'0'.repeat(64)}, ${'1'.repeat(64)}, '{}'::jsonb)`.execute(stores.db);
          }
          await sql`SELECT audit_rebuild_lookups()`.execute(stores.db);
          await expectSameReads(stores, tenantId, rows.length, batchSize);
        },
      ),
      { numRuns: 20 },
    );
  }, 120_000);
}

await describeSqlBackends('audit scan pages ≡ column reads', (_name, open) => scanSuite(() => open()));
