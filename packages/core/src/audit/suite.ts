/**
 * The two audit conformance suites: `describeAuditStoreConformance` (its cases live in
 * `suite-append.ts`, `suite-query.ts` and `suite-maintenance.ts`, in that order) and
 * `describeAuditSinkConformance` (below).
 */
import { expect } from 'vitest';
import { isUlid } from '../ids';
import { defineConformanceSuite, STRING_255, UNICODE_SAMPLES } from '../testing/conformance';
import { isoAt } from '../testing/fixtures';
import type { AuditSink, AuditStore } from './port';
import { type AuditEntry, type AuditEntryInput, AuditEntrySchema } from './schema';
import { auditAppendCases } from './suite-append';
import { auditMaintenanceCases } from './suite-maintenance';
import { auditQueryCases } from './suite-query';

const cases = { ...auditAppendCases, ...auditQueryCases, ...auditMaintenanceCases };

export type AuditStoreCaseName = keyof typeof cases;
export const AUDIT_STORE_CASES = Object.keys(cases) as AuditStoreCaseName[];

/** The AuditStore conformance suite (see the port's doc comments for the contract). */
export const describeAuditStoreConformance = defineConformanceSuite<AuditStore, AuditStoreCaseName>(
  'AuditStore',
  cases,
);

// ---------------------------------------------------------------------------------------------
// AuditSink

/**
 * What an AuditSink suite factory returns: the sink (timed by the system clock), and a reader of
 * what it stored — the AuditSink port itself only appends, so each implementation says how its
 * entries of a tenant are read back (e.g. `sink.entries` in memory, `store.scan` for an AuditLog).
 */
export interface AuditSinkHarness {
  sink: AuditSink;
  /** The stored entries of one tenant, in append order. */
  entries(tenantId: string): Promise<AuditEntry[]>;
}

const T = 'tenant-a';
const U = 'tenant-b';

const input = (overrides: Partial<AuditEntryInput> = {}): AuditEntryInput => ({
  tenantId: T,
  userId: 'alice',
  actionType: 'tool_invocation',
  policyApplied: 'enterprise/integrations@1.0.0',
  policyResult: 'allow',
  outcome: 'success',
  requestId: 'req-1',
  ...overrides,
});

async function appendOk(h: AuditSinkHarness, entry: AuditEntryInput): Promise<AuditEntry> {
  const result = await h.sink.append(entry);
  if (result.isErr()) throw new Error(`append failed: ${result.error.message}`);
  return result.value;
}

const sinkCases = {
  'append: returns the stored entry with a ULID id, the current time and the schema defaults': async (
    h: AuditSinkHarness,
  ) => {
    const before = Date.now();
    const entry = await appendOk(h, input());
    const after = Date.now();
    expect(isUlid(entry.id)).toBe(true);
    expect(Date.parse(entry.timestamp)).toBeGreaterThanOrEqual(before - 1_000);
    expect(Date.parse(entry.timestamp)).toBeLessThanOrEqual(after + 1_000);
    expect(entry).toEqual({
      ...input(),
      id: entry.id,
      timestamp: entry.timestamp,
      actionDetail: {},
      dataAccessed: [],
      modelUsed: null,
      modelTokens: null,
      dataClassification: 'public',
      policyReason: '',
    });
    expect(AuditEntrySchema.parse(entry)).toEqual(entry);
    expect(await h.entries(T)).toEqual([entry]);
  },
  'append: a given timestamp is kept (the same instant, also when written with an offset)': async (
    h: AuditSinkHarness,
  ) => {
    const utc = await appendOk(h, input({ timestamp: isoAt(5) }));
    expect(utc.timestamp).toBe(isoAt(5));
    const offset = await appendOk(h, input({ timestamp: '2025-01-01T01:00:00.000+01:00' }));
    expect(Date.parse(offset.timestamp)).toBe(Date.parse('2025-01-01T00:00:00.000Z'));
    expect((await h.entries(T)).map((e) => Date.parse(e.timestamp))).toEqual([
      Date.parse(isoAt(5)),
      Date.parse(isoAt(0)),
    ]);
  },
  'append: every field round-trips (unicode, nested actionDetail, dataAccessed, model tokens)': async (
    h: AuditSinkHarness,
  ) => {
    const rich = input({
      userId: STRING_255,
      timestamp: '2025-03-04T05:06:07.089Z',
      actionType: 'agent_exchange',
      actionDetail: {
        exchangeType: 'information_query',
        currentRound: 2,
        ratio: 0.25,
        escalated: false,
        nothing: null,
        nested: { deep: { list: [1, 'two', { three: true }] } },
        unicode: [...UNICODE_SAMPLES],
      },
      dataAccessed: [{ source: 'drive:doc-1', classification: 'confidential', purpose: 'answer 🚀' }],
      modelUsed: 'model-x-2025',
      modelTokens: { input: 1234, output: 0 },
      dataClassification: 'restricted',
      policyResult: 'require_approval',
      policyReason: UNICODE_SAMPLES.join(' | '),
      outcome: 'pending_approval',
      requestId: STRING_255,
    });
    const entry = await appendOk(h, rich);
    expect(entry).toEqual({ ...rich, id: entry.id });
    expect(await h.entries(T)).toEqual([entry]);
  },
  'append: invalid input is an err result (400), never a throw, and writes nothing': async (
    h: AuditSinkHarness,
  ) => {
    const { userId: _omitted, ...withoutUser } = input();
    const bad: unknown[] = [
      withoutUser,
      input({ actionType: 'bogus' as AuditEntryInput['actionType'] }),
      input({ policyResult: 'maybe' as AuditEntryInput['policyResult'] }),
      input({ timestamp: 'yesterday' }),
      input({ modelTokens: { input: -1, output: 0 } }),
      input({ tenantId: '' }),
      {},
    ];
    for (const value of bad) {
      const result = await h.sink.append(value as AuditEntryInput);
      expect(result.isErr()).toBe(true);
      if (result.isErr()) {
        expect(['missing_type', 'invalid_type']).toContain(result.error.code);
        expect(result.error.status).toBe(400);
      }
    }
    expect(await h.entries(T)).toEqual([]);
    expect(await h.entries('')).toEqual([]);
    // The sink stays usable.
    await appendOk(h, input());
    expect(await h.entries(T)).toHaveLength(1);
  },
  'append: ids are distinct ULIDs, increasing in append order': async (h: AuditSinkHarness) => {
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) ids.push((await appendOk(h, input({ requestId: `req-${i}` }))).id);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    for (const id of ids) expect(isUlid(id)).toBe(true);
  },
  'entries: each tenant reads back its own entries in append order': async (h: AuditSinkHarness) => {
    const mine: AuditEntry[] = [];
    const theirs: AuditEntry[] = [];
    for (let i = 0; i < 6; i++) {
      mine.push(await appendOk(h, input({ requestId: `a-${i}`, timestamp: isoAt(10 - i) })));
      theirs.push(await appendOk(h, input({ tenantId: U, requestId: `b-${i}` })));
    }
    expect(await h.entries(T)).toEqual(mine);
    expect(await h.entries(U)).toEqual(theirs);
    expect(await h.entries('tenant-none')).toEqual([]);
  },
  'append: 25 concurrent appends all land exactly once': async (h: AuditSinkHarness) => {
    const results = await Promise.all(
      Array.from({ length: 25 }, (_, i) => h.sink.append(input({ requestId: `req-${i}` }))),
    );
    const ids = results.map((r) => r._unsafeUnwrap().id);
    const stored = await h.entries(T);
    expect(stored).toHaveLength(25);
    expect(new Set(stored.map((e) => e.id))).toEqual(new Set(ids));
    expect(new Set(stored.map((e) => e.requestId)).size).toBe(25);
  },
  'copy: mutating the input or the returned entry does not change what was stored': async (
    h: AuditSinkHarness,
  ) => {
    const given = input({ actionDetail: { ticket: { key: 'ABC-1', labels: ['x'] } } });
    const entry = await appendOk(h, given);
    const snapshot = structuredClone(entry);
    (given.actionDetail as { ticket: { labels: string[] } }).ticket.labels.push('mutated');
    given.userId = 'mallory';
    entry.userId = 'mallory';
    (entry.actionDetail as { ticket: { key: string } }).ticket.key = 'XYZ-9';
    expect(await h.entries(T)).toEqual([snapshot]);
  },
} satisfies Record<string, (h: AuditSinkHarness) => Promise<void>>;

export type AuditSinkCaseName = keyof typeof sinkCases;

/** The AuditSink conformance suite: append's result and validation, and what a tenant reads back. */
export const describeAuditSinkConformance = defineConformanceSuite<AuditSinkHarness, AuditSinkCaseName>(
  'AuditSink',
  sinkCases,
);
