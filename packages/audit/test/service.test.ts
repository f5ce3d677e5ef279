import {
  ACTION_TYPES,
  type AuditRecord,
  type AuditStore,
  InMemoryAuditStore,
  POLICY_RESULTS,
} from '@agentgov/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CSV_COLUMNS,
  createAuditService,
  csvCell,
  exportStream,
  MAX_PAGE_SIZE,
  parseAuditExportQuery,
  parseAuditQuery,
  verifyTenant,
} from '../src/index';
import { entryInput, setup } from './helpers';

const KNOWN = [
  'user_id',
  'userId',
  'action_type',
  'actionType',
  'policy_result',
  'policyResult',
  'request_id',
  'requestId',
  'from',
  'to',
  'page',
  'page_size',
  'pageSize',
  'order',
];

function service() {
  const ctx = setup();
  return { ...ctx, audit: createAuditService({ store: ctx.store, secrets: ctx.secrets, log: ctx.log }) };
}

async function text(stream: ReadableStream<Uint8Array>): Promise<string> {
  return new Response(stream).text();
}

/** Minimal RFC 4180 parser for the tests. */
function parseCsv(input: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < input.length; i++) {
    const c = input[i];
    if (quoted) {
      if (c === '"' && input[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\r' && input[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += c;
  }
  if (cell || row.length) rows.push([...row, cell]);
  return rows;
}

describe('query parsing', () => {
  it('defaults, both spellings, date-only bounds', () => {
    expect(parseAuditQuery({})._unsafeUnwrap()).toEqual({
      filter: {},
      page: 1,
      pageSize: 100,
      order: 'desc',
    });
    expect(
      parseAuditQuery({
        user_id: 'u',
        actionType: 'model_call',
        policyResult: 'deny',
        request_id: 'r',
        from: '2026-01-01',
        to: '2026-01-31T10:00:00+01:00',
        page: '3',
        page_size: '1000',
      })._unsafeUnwrap(),
    ).toEqual({
      filter: {
        userId: 'u',
        actionType: 'model_call',
        policyResult: 'deny',
        requestId: 'r',
        from: '2026-01-01T00:00:00.000Z',
        to: '2026-01-31T09:00:00.000Z',
      },
      page: 3,
      pageSize: 1000,
      order: 'desc',
    });
    expect(parseAuditQuery({ to: '2026-01-31' })._unsafeUnwrap().filter.to).toBe('2026-01-31T23:59:59.999Z');
  });

  it('page_size above 1000 is invalid_type naming page_size, not a clamp', () => {
    fc.assert(
      fc.property(fc.integer({ min: MAX_PAGE_SIZE + 1, max: 10 ** 12 }), (n) => {
        const e = parseAuditQuery({ page_size: String(n) })._unsafeUnwrapErr();
        expect(e).toMatchObject({ code: 'invalid_type', field: 'page_size', status: 400 });
      }),
    );
  });

  it('every bad value is a ValidationError naming the parameter', () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ page: '0' }, 'page'],
      [{ page: '-1' }, 'page'],
      [{ page: '1.5' }, 'page'],
      [{ page_size: 'ten' }, 'page_size'],
      [{ action_type: 'nope' }, 'action_type'],
      [{ policyResult: 'maybe' }, 'policyResult'],
      [{ from: 'yesterday' }, 'from'],
      [{ to: '2026-13-01' }, 'to'],
      [{ user_id: '' }, 'user_id'],
      [{ user_id: ['a', 'b'] }, 'user_id'],
      [{ user_id: 'a', userId: 'b' }, 'userId'],
      [{ from: '2026-02-01', to: '2026-01-01' }, 'to'],
      [{ order: 'sideways' }, 'order'],
    ];
    for (const [raw, field] of cases) {
      const e = parseAuditQuery(raw)._unsafeUnwrapErr();
      expect([e.code, e.field]).toEqual(['invalid_type', field]);
    }
    expect(parseAuditExportQuery({ format: 'xml' })._unsafeUnwrapErr().field).toBe('format');
  });

  it('property: any raw query object parses or fails with a ValidationError naming a known parameter', () => {
    const value = fc.oneof(
      fc.string(),
      fc.constantFrom(
        ...ACTION_TYPES,
        ...POLICY_RESULTS,
        '1',
        '100',
        '1001',
        '2026-01-01',
        '2026-01-01T00:00:00Z',
      ),
      fc.integer().map(String),
      fc.array(fc.string(), { maxLength: 2 }),
    );
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom(...KNOWN, 'format', 'other'), value), (raw) => {
        const r = parseAuditQuery(raw);
        if (r.isOk()) {
          expect(r.value.pageSize).toBeGreaterThanOrEqual(1);
          expect(r.value.pageSize).toBeLessThanOrEqual(MAX_PAGE_SIZE);
          expect(r.value.page).toBeGreaterThanOrEqual(1);
          const f = r.value.filter;
          if (f.from) expect(Number.isNaN(Date.parse(f.from))).toBe(false);
          if (f.actionType) expect(ACTION_TYPES).toContain(f.actionType);
        } else {
          expect(['missing_type', 'invalid_type']).toContain(r.error.code);
          expect(KNOWN).toContain(r.error.field);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('property: well-formed queries round-trip into the filter', () => {
    fc.assert(
      fc.property(
        fc.record(
          {
            userId: fc.string({ minLength: 1, maxLength: 50 }),
            actionType: fc.constantFrom(...ACTION_TYPES),
            page: fc.integer({ min: 1, max: 1000 }),
            pageSize: fc.integer({ min: 1, max: 1000 }),
          },
          { requiredKeys: [] },
        ),
        fc.boolean(),
        (q, snake) => {
          const raw: Record<string, string> = {};
          if (q.userId !== undefined) raw[snake ? 'user_id' : 'userId'] = q.userId;
          if (q.actionType !== undefined) raw[snake ? 'action_type' : 'actionType'] = q.actionType;
          if (q.page !== undefined) raw.page = String(q.page);
          if (q.pageSize !== undefined) raw[snake ? 'page_size' : 'pageSize'] = String(q.pageSize);
          const r = parseAuditQuery(raw)._unsafeUnwrap();
          expect(r.filter.userId).toBe(q.userId);
          expect(r.filter.actionType).toBe(q.actionType);
          expect(r.page).toBe(q.page ?? 1);
          expect(r.pageSize).toBe(q.pageSize ?? 100);
        },
      ),
    );
  });
});

describe('AuditService reads', () => {
  it('queries with filters, paging and visibility; get is tenant- and user-scoped', async () => {
    const { audit, clock } = service();
    for (let i = 0; i < 30; i++) {
      clock.advance(60_000);
      await audit.log.append(
        entryInput({
          userId: ['alice', 'bob', 'carol'][i % 3] as string,
          actionType: i % 2 ? 'model_call' : 'data_access',
          policyResult: i % 5 === 0 ? 'deny' : 'allow',
          requestId: `req-${i}`,
          timestamp: clock.now().toISOString(),
        }),
      );
    }
    await audit.log.append(entryInput({ tenantId: 'other', userId: 'alice' }));
    const all = { tenantId: 't1' };
    const page = (await audit.query(all, { page_size: '7', page: '2' }))._unsafeUnwrap();
    expect(page.total).toBe(30);
    expect(page.entries.map((e) => e.requestId)).toEqual([22, 21, 20, 19, 18, 17, 16].map((i) => `req-${i}`));
    const asc = (await audit.query(all, { pageSize: '2', order: 'asc' }))._unsafeUnwrap();
    expect(asc.entries.map((e) => e.requestId)).toEqual(['req-0', 'req-1']);
    const bob = (await audit.query(all, { userId: 'bob', action_type: 'model_call' }))._unsafeUnwrap();
    expect(bob.total).toBe(5);
    expect(bob.entries.every((e) => e.userId === 'bob' && e.actionType === 'model_call')).toBe(true);
    expect((await audit.query(all, { policyResult: 'deny' }))._unsafeUnwrap().total).toBe(6);
    expect((await audit.query(all, { requestId: 'req-4' }))._unsafeUnwrap().entries).toHaveLength(1);
    const range = (
      await audit.query(all, { from: '2026-01-01T00:05:00Z', to: '2026-01-01T00:07:00Z' })
    )._unsafeUnwrap();
    expect(range.entries.map((e) => e.requestId).sort()).toEqual(['req-4', 'req-5', 'req-6']);

    const aliceOnly = { tenantId: 't1', userIds: ['alice'] };
    const mine = (await audit.query(aliceOnly, {}))._unsafeUnwrap();
    expect(mine.total).toBe(10);
    expect((await audit.query(aliceOnly, { user_id: 'bob' }))._unsafeUnwrap().total).toBe(0);
    const bobsEntry = bob.entries[0];
    expect((await audit.get(all, bobsEntry?.id as string))._unsafeUnwrap()).toEqual(bobsEntry);
    expect((await audit.get(aliceOnly, bobsEntry?.id as string))._unsafeUnwrapErr()).toMatchObject({
      code: 'NOT_FOUND',
      status: 404,
    });
    expect((await audit.get({ tenantId: 'other' }, bobsEntry?.id as string)).isErr()).toBe(true);
    expect((await audit.query(all, { page_size: '5000' }))._unsafeUnwrapErr()).toMatchObject({
      code: 'invalid_type',
      field: 'page_size',
    });
  });

  it('exposes no update or delete', () => {
    const { audit } = service();
    const names = [...Object.keys(audit), ...Object.keys(audit.log)];
    expect(names.filter((n) => /update|delete|remove|put|set/i.test(n))).toEqual([]);
  });
});

describe('export', () => {
  it('CSV has exactly the spec header and neutralises formula injection', async () => {
    const { audit } = service();
    const evil = ['=1+1', '+SUM(A1)', '-2', '@cmd', '\tx', '\rx', 'a,b', 'say "hi"', 'line\nbreak', 'plain'];
    for (const [i, v] of evil.entries()) {
      await audit.log.append(entryInput({ policyApplied: v, requestId: `r${i}` }));
    }
    const exp = (await audit.export({ tenantId: 't1' }, { format: 'csv' }))._unsafeUnwrap();
    expect(exp.headers).toEqual({
      'Content-Type': 'text/csv; charset=utf-8',
      'Content-Disposition': 'attachment; filename=audit-export.csv',
    });
    const body = await text(exp.body);
    expect(body.split('\r\n')[0]).toBe(
      'id,tenant_id,user_id,timestamp,action_type,data_classification,policy_applied,policy_result,outcome,request_id',
    );
    const rows = parseCsv(body);
    expect(rows[0]).toEqual([...CSV_COLUMNS]);
    expect(rows.slice(1).map((r) => r[6])).toEqual([
      "'=1+1",
      "'+SUM(A1)",
      "'-2",
      "'@cmd",
      "'\tx",
      "'\rx",
      'a,b',
      'say "hi"',
      'line\nbreak',
      'plain',
    ]);
    expect(rows.slice(1).every((r) => r.length === 10)).toBe(true);
  });

  it('property: every cell parses back to its neutralised value and never starts a formula', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (v) => {
        const [row] = parseCsv(`${csvCell(v)},x\r\n`);
        const back = row?.[0] as string;
        expect(back === v || back === `'${v}`).toBe(true);
        expect(/^[=+\-@\t\r]/.test(back)).toBe(false);
      }),
      { numRuns: 500 },
    );
  });

  it('JSON export is {entries, total} with the same entries as a query; filters and visibility apply', async () => {
    const { audit } = service();
    for (let i = 0; i < 12; i++) await audit.log.append(entryInput({ userId: i % 2 ? 'bob' : 'alice' }));
    const exp = (await audit.export({ tenantId: 't1' }, {}))._unsafeUnwrap();
    expect(exp.headers['Content-Type']).toBe('application/json; charset=utf-8');
    const json = JSON.parse(await text(exp.body));
    const q = (await audit.query({ tenantId: 't1' }, { order: 'asc' }))._unsafeUnwrap();
    expect(json).toEqual({ entries: q.entries, total: 12 });
    const bobs = JSON.parse(
      await text(
        (await audit.export({ tenantId: 't1', userIds: ['bob'] }, { format: 'json' }))._unsafeUnwrap().body,
      ),
    );
    expect(bobs.total).toBe(6);
    const none = JSON.parse(
      await text((await audit.export({ tenantId: 'nobody' }, {}))._unsafeUnwrap().body),
    );
    expect(none).toEqual({ entries: [], total: 0 });
  });

  it('cancelling the stream stops the scan', async () => {
    let yielded = 0;
    let finished = false;
    async function* records(): AsyncGenerator<AuditRecord> {
      try {
        for (let i = 0; i < 1e9; i++) {
          yielded++;
          yield synthetic(i);
        }
      } finally {
        finished = true;
      }
    }
    const reader = exportStream(records(), 'csv').getReader();
    await reader.read();
    await reader.cancel();
    expect(finished).toBe(true);
    expect(yielded).toBeLessThan(10_000);
  });

  it('100,000 entries stream with bounded memory from a lazily generated scan', async () => {
    const N = 100_000;
    /** Yields synthetic records one at a time: nothing is held, so only the export can use memory. */
    class LazyStore extends InMemoryAuditStore {
      override async head() {
        return { seq: N, hash: 'f'.repeat(64) };
      }
      override async *scan(_tenant: string, options: { toSeq?: number } = {}): AsyncIterable<AuditRecord> {
        for (let i = 0; i < N; i++) {
          if (options.toSeq !== undefined && i + 1 > options.toSeq) return;
          yield synthetic(i);
        }
      }
    }
    const lazy: AuditStore = new LazyStore();
    const { secrets } = setup();
    const audit = createAuditService({ store: lazy, secrets });
    for (const format of ['csv', 'json'] as const) {
      global.gc?.();
      const before = process.memoryUsage().rss;
      let peak = before;
      let bytes = 0;
      let newlines = 0;
      let chunks = 0;
      const exp = (await audit.export({ tenantId: 't1' }, { format }))._unsafeUnwrap();
      const decoder = new TextDecoder();
      let tail = '';
      for await (const chunk of exp.body as unknown as AsyncIterable<Uint8Array>) {
        bytes += chunk.byteLength;
        const s = decoder.decode(chunk, { stream: true });
        if (format === 'csv') for (const ch of s) if (ch === '\n') newlines++;
        tail = (tail + s).slice(-64);
        if (++chunks % 20 === 0) peak = Math.max(peak, process.memoryUsage().rss);
      }
      peak = Math.max(peak, process.memoryUsage().rss);
      const growthMb = (peak - before) / 2 ** 20;
      console.log(
        `export ${format}: ${N} entries, ${(bytes / 2 ** 20).toFixed(1)} MiB in ${chunks} chunks, peak RSS growth ${growthMb.toFixed(1)} MB`,
      );
      if (format === 'csv') expect(newlines).toBe(N + 1);
      else expect(tail.endsWith(`],"total":${N}}`)).toBe(true);
      expect(bytes).toBeGreaterThan(N * 100);
      expect(growthMb).toBeLessThan(200);
    }
  });
});

function synthetic(i: number): AuditRecord {
  return {
    seq: i + 1,
    prevHash: '0'.repeat(64),
    hash: '1'.repeat(64),
    commitments: { userId: '2'.repeat(64) },
    entry: {
      id: `01J${String(i).padStart(23, '0')}`,
      tenantId: 't1',
      userId: `user-${i % 1000}`,
      timestamp: new Date(1_700_000_000_000 + i * 1000).toISOString(),
      actionType: 'model_call',
      actionDetail: { n: i },
      dataAccessed: [],
      modelUsed: 'model-x',
      modelTokens: { input: 10, output: 20 },
      dataClassification: 'internal',
      policyApplied: 'default-policy',
      policyResult: 'allow',
      policyReason: '',
      outcome: 'success',
      requestId: `req-${i}`,
    },
  };
}

describe('GDPR erasure', () => {
  it('anonymizes a user everywhere, the chain still verifies, and the erasure is an audited entry', async () => {
    const { audit, store, secrets } = service();
    for (let i = 0; i < 10; i++) {
      await audit.log.append(
        i % 2
          ? entryInput({ userId: 'alice', requestId: `r${i}` })
          : entryInput({
              userId: 'bob',
              actionType: 'agent_exchange',
              actionDetail: { initiatorUserId: 'bob', responderUserId: 'alice', exchangeId: `e${i}` },
              requestId: `r${i}`,
            }),
      );
    }
    await audit.log.checkpoint('t1');
    const r = (
      await audit.anonymizeUser({ tenantId: 't1', userId: 'dpo-officer', requestId: 'erase-1' }, 'alice')
    )._unsafeUnwrap();
    expect(r.placeholder).toMatch(/^anon:[0-9a-f]{16}$/);
    expect(r.recordsAnonymized).toBe(10);
    expect(r.entry).toMatchObject({
      userId: 'dpo-officer',
      actionType: 'data_access',
      actionDetail: { operation: 'gdpr_erasure', subject: r.placeholder },
      requestId: 'erase-1',
    });
    const records: AuditRecord[] = [];
    for await (const rec of store.scan('t1')) records.push(rec);
    expect(records).toHaveLength(11);
    for (const rec of records) expect(JSON.stringify(rec)).not.toContain('alice');
    expect(records.at(-1)?.commitments).toHaveProperty('userId');
    expect(records.at(-1)?.entry.userId).toBe('dpo-officer');
    // The leaves hold commitments, never clear identifiers: erasure leaves them, and the chain, as they were.
    const report = await verifyTenant(store, 't1', { secrets, deep: false });
    expect(report).toMatchObject({ ok: true, checked: 11, depth: 'leaf', derived: 0 });
    expect(report.checkpoints[0]).toMatchObject({ ok: true, rootMatches: true });
    // Re-derived from the columns (the default), the placeholders match their commitments.
    const deep = await verifyTenant(store, 't1', { secrets });
    expect(deep).toMatchObject({ ok: true, checked: 11, depth: 'deep', derived: 11, identifiers: 'checked' });

    // A placeholder is itself bound to the commitment: swapping it for another one breaks (a
    // column: the deep check finds it).
    const { RowsStore } = await import('./helpers');
    const rows = structuredClone(records);
    (rows[1] as AuditRecord).entry.userId = 'anon:0123456789abcdef';
    const broken = await verifyTenant(new RowsStore(rows), 't1', { deep: true });
    expect(broken.firstBreak).toMatchObject({ reason: 'commitment_mismatch', entryId: rows[1]?.entry.id });
  });

  it('self-erasure leaves no clear id either, including in the erasure entry', async () => {
    const { audit, store, secrets } = service();
    await audit.log.append(entryInput({ userId: 'alice' }));
    const r = (
      await audit.anonymizeUser({ tenantId: 't1', userId: 'alice', requestId: 'self' }, 'alice')
    )._unsafeUnwrap();
    expect(r.entry.userId).toBe(r.placeholder);
    for await (const rec of store.scan('t1')) expect(JSON.stringify(rec)).not.toContain('alice');
    expect((await verifyTenant(store, 't1', { secrets })).ok).toBe(true);
    // Idempotent: a retry finds nothing left to rewrite and still verifies.
    const again = (
      await audit.anonymizeUser({ tenantId: 't1', userId: 'dpo', requestId: 'x' }, 'alice')
    )._unsafeUnwrap();
    expect(again.recordsAnonymized).toBe(0);
    expect((await audit.verify('t1')).ok).toBe(true);
    expect((await audit.anonymizeUser({ tenantId: 't1', userId: 'dpo', requestId: 'x' }, '')).isErr()).toBe(
      true,
    );
  });
});
