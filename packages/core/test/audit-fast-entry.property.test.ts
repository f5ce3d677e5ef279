/**
 * The in-memory audit sink's fast path (`fastAuditEntry`) agrees with `AuditEntrySchema`, which
 * it stands in for: whatever the fast path accepts, the schema accepts with the same output (same
 * JSON, same key order); entries of the kind our own code appends take the fast path; anything
 * else goes to the schema (so every refusal is the schema's own).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fastAuditEntry } from '../src/audit/fast-entry';
import { InMemoryAuditSink } from '../src/audit/memory';
import {
  ACTION_TYPES,
  AUDIT_OUTCOMES,
  AuditEntryInputSchema,
  AuditEntrySchema,
  POLICY_RESULTS,
} from '../src/audit/schema';
import { CLASSIFICATION_LEVELS } from '../src/classification-lattice';

const ID = '01HZX3J8ZK0000000000000000';
const level = fc.constantFrom(...CLASSIFICATION_LEVELS);
/** Strings around the limits, astral characters and lone surrogates included. */
const anyString = fc.oneof(
  fc.string({ maxLength: 4 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({ minLength: 253, maxLength: 257 }),
  fc.constant(''),
);
const name = fc.oneof(fc.string({ minLength: 1, maxLength: 20 }), anyString);
const timestamp = fc.oneof(
  fc
    .date({ min: new Date('1970-01-01'), max: new Date('2999-12-31'), noInvalidDate: true })
    .map((d) => d.toISOString()),
  fc.constantFrom(
    '2026-02-30T00:00:00Z',
    '2026-01-31T10:00:00Z',
    '2026-01-01T10:00:00+02:00',
    '2026-01-01T10:00:00.123456Z',
    '2026-01-01 10:00:00Z',
    'yesterday',
  ),
);
const odd = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.integer(),
  fc.double(),
  fc.string({ maxLength: 3 }),
  fc.array(fc.nat(), { maxLength: 2 }),
  fc.constant(Object.create(null) as object),
  fc.constant(new Date(0)),
  fc.constant(JSON.parse('{"__proto__":{"x":1}}') as object),
  fc.constant({ [Symbol('s')]: 1 }),
);
const accessed = fc.record(
  {
    source: fc.oneof(fc.string(), odd),
    classification: fc.oneof(level, odd),
    purpose: fc.oneof(fc.string(), odd),
    extra: fc.nat(),
  },
  { requiredKeys: [] },
);
const input = fc.record(
  {
    tenantId: fc.oneof(name, odd),
    userId: fc.oneof(name, odd),
    timestamp: fc.oneof(timestamp, odd),
    actionType: fc.oneof(fc.constantFrom(...ACTION_TYPES), odd),
    actionDetail: fc.oneof(fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue()), odd),
    dataAccessed: fc.oneof(fc.array(accessed, { maxLength: 3 }), odd),
    modelUsed: fc.oneof(fc.string({ maxLength: 8 }), odd),
    modelTokens: fc.oneof(
      fc.record({
        input: fc.oneof(fc.nat(), fc.integer({ min: -3, max: 3 }), odd),
        output: fc.oneof(fc.nat(), odd),
      }),
      odd,
    ),
    dataClassification: fc.oneof(level, odd),
    policyApplied: fc.oneof(name, odd),
    policyResult: fc.oneof(fc.constantFrom(...POLICY_RESULTS), odd),
    policyReason: fc.oneof(fc.string({ maxLength: 8 }), odd),
    outcome: fc.oneof(fc.constantFrom(...AUDIT_OUTCOMES), odd),
    requestId: fc.oneof(name, odd),
    extra: fc.jsonValue(),
  },
  { requiredKeys: [] },
);
/** The members `AuditEntryInputSchema` requires (derived from it, so the two cannot drift). */
const REQUIRED_KEYS = (
  Object.keys(AuditEntryInputSchema.shape) as (keyof typeof AuditEntryInputSchema.shape)[]
).filter((k) => !AuditEntryInputSchema.shape[k].safeParse(undefined).success);

/** What our own code appends: every required member valid, the defaulted ones often absent. */
const typical = fc.record(
  {
    tenantId: fc.string({ minLength: 1, maxLength: 20 }),
    userId: fc.string({ minLength: 1, maxLength: 20 }),
    timestamp: fc
      .date({ min: new Date('2000-01-01'), max: new Date('2099-12-28'), noInvalidDate: true })
      .map((d) =>
        new Date(
          Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), Math.min(d.getUTCDate(), 28), 3),
        ).toISOString(),
      ),
    actionType: fc.constantFrom(...ACTION_TYPES),
    actionDetail: fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue()),
    dataAccessed: fc.array(fc.record({ source: fc.string(), classification: level, purpose: fc.string() }), {
      maxLength: 3,
    }),
    modelUsed: fc.option(fc.string({ maxLength: 8 })),
    modelTokens: fc.option(fc.record({ input: fc.nat(), output: fc.nat() })),
    dataClassification: level,
    policyApplied: fc.string({ minLength: 1, maxLength: 20 }),
    policyResult: fc.constantFrom(...POLICY_RESULTS),
    policyReason: fc.string({ maxLength: 8 }),
    outcome: fc.constantFrom(...AUDIT_OUTCOMES),
    requestId: fc.string({ minLength: 1, maxLength: 20 }),
  },
  {
    requiredKeys: REQUIRED_KEYS,
  },
);

const NOW = '2026-03-04T05:06:07.089Z';
/** What the sink hands the schema: the input with the id and the timestamp (its own, else the clock's). */
const schemaView = (e: Record<string, unknown>) => ({ ...e, id: ID, timestamp: e.timestamp ?? NOW });
const fast = (e: Record<string, unknown>) =>
  fastAuditEntry(e as never, ID, (e.timestamp as string | undefined) ?? NOW);

describe('fastAuditEntry', () => {
  it('accepts only what AuditEntrySchema accepts, with the same output (JSON and key order)', () => {
    fc.assert(
      fc.property(fc.oneof(input, typical), (e) => {
        const out = fast(e);
        if (out === undefined) return;
        const parsed = AuditEntrySchema.safeParse(schemaView(e));
        expect(parsed.success).toBe(true);
        expect(JSON.stringify(out)).toBe(JSON.stringify(parsed.data));
        expect(out).toStrictEqual(parsed.data);
      }),
      { numRuns: 3000 },
    );
  });

  it('takes entries of the kind our own code appends', () => {
    fc.assert(
      fc.property(typical, (e) => {
        expect(fast(e)).toBeDefined();
      }),
    );
  });

  it('leaves the caller nothing aliased at the top: new actionDetail, dataAccessed and modelTokens', () => {
    const e = {
      tenantId: 't',
      userId: 'u',
      actionType: 'agent_exchange' as const,
      actionDetail: { list: [1] },
      dataAccessed: [{ source: 's', classification: 'public' as const, purpose: 'p' }],
      modelTokens: { input: 1, output: 2 },
      policyApplied: 'p',
      policyResult: 'allow' as const,
      outcome: 'success' as const,
      requestId: 'r',
    };
    const out = fastAuditEntry(e, ID, NOW);
    expect(out?.actionDetail).not.toBe(e.actionDetail);
    expect(out?.dataAccessed[0]).not.toBe(e.dataAccessed[0]);
    expect(out?.modelTokens).not.toBe(e.modelTokens);
  });
});

describe('InMemoryAuditSink', () => {
  it('keeps a deep copy of what it returns and still refuses what the schema refuses', async () => {
    const sink = new InMemoryAuditSink();
    const detail = { nested: { v: 1 } };
    const r = await sink.append({
      tenantId: 't',
      userId: 'u',
      actionType: 'data_access',
      actionDetail: detail,
      policyApplied: 'p',
      policyResult: 'allow',
      outcome: 'success',
      requestId: 'r',
    });
    const entry = r._unsafeUnwrap();
    expect(sink.entries).toStrictEqual([entry]);
    detail.nested.v = 2;
    expect(sink.entries[0]?.actionDetail).toStrictEqual({ nested: { v: 1 } });
    const bad = await sink.append({ ...entry, userId: '' } as never);
    expect(bad.isErr()).toBe(true);
    expect(sink.entries).toHaveLength(1);
  });
});
