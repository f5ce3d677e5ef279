/**
 * The append fast path (canonical JSON and commitments computed before the store's lock, only
 * concatenation + one SHA-256 under it) must produce exactly what the original path produces:
 * the same hash format (checked against `canonicalize` and node:crypto directly), the same
 * entries and the same validation errors.
 */
import { createHash, createHmac } from 'node:crypto';
import {
  type AuditEntryInput,
  AuditEntryInputSchema,
  type AuditRecord,
  InMemoryAuditStore,
  ManualClock,
  type ValidationError,
} from '@agentgov/core';
import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { plainCanonicalJson } from '../src/crypto';
import {
  canonicalJson,
  committedEntry,
  createAuditLog,
  deriveTenantKey,
  PERSONAL_IDENTIFIER_PATHS,
  verifyTenant,
} from '../src/index';
import { KEYS, secrets } from './helpers';

/** The original definition of the record's hash input, spelled out with the reference libraries. */
function referenceInput(record: AuditRecord): string {
  const text = canonicalize({
    commitments: record.commitments,
    entry: committedEntry(record.entry, record.commitments),
    prevHash: record.prevHash,
    seq: record.seq,
  });
  if (text === undefined) throw new Error('no canonical form');
  return text;
}

function referenceHash(record: AuditRecord): string {
  return createHash('sha256').update(referenceInput(record), 'utf8').digest('hex');
}

const referenceCommitment = (tenantId: string, value: string): string =>
  createHmac('sha256', deriveTenantKey(KEYS.commitmentKey, tenantId)).update(value, 'utf8').digest('hex');

/** Characters that stress escaping, sorting and the checks: quotes, controls, NUL, surrogates. */
const char = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('a', 'B', 'z', '0', '-', '.', ' ', 'é', '€', '😀', 'anon:') },
  { weight: 2, arbitrary: fc.constantFrom('"', '\\', '\n', '\t', '\u001f', '\u007f', '\u2028', '\\u0000') },
  { weight: 1, arbitrary: fc.constantFrom('\u0000', '\ud800', '\udfff', '\ud83d') },
);
const text = (maxLength = 6) => fc.array(char, { maxLength }).map((cs) => cs.join(''));
const cleanText = fc.array(fc.constantFrom('a', 'b', 'Z', '9', '_', 'é', '😀', '"', '\\'), {
  minLength: 1,
  maxLength: 8,
});

/** Detail values: JSON plus what JSON.stringify/canonicalize treat specially. */
const detailValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    text(),
    fc.double(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.constantFrom(-0, Number.NaN, Number.POSITIVE_INFINITY, undefined, new Date(0)),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(text(4), tie('value'), { maxKeys: 3 }),
  ),
})).value;

/** The members `AuditEntryInputSchema` requires (derived from it, so the two cannot drift). */
const REQUIRED_KEYS = (
  Object.keys(AuditEntryInputSchema.shape) as (keyof typeof AuditEntryInputSchema.shape)[]
).filter((k) => !AuditEntryInputSchema.shape[k].safeParse(undefined).success);

const identifierKeys = PERSONAL_IDENTIFIER_PATHS.filter((p) => p.startsWith('actionDetail.')).map((p) =>
  p.slice('actionDetail.'.length),
);

const actionDetail = fc
  .tuple(
    fc.dictionary(fc.oneof(text(4), fc.constantFrom('__proto__', '10', '2', 'b', 'a')), detailValue, {
      maxKeys: 4,
    }),
    fc.dictionary(fc.constantFrom(...identifierKeys), fc.oneof(text(), fc.integer()), { maxKeys: 3 }),
  )
  .map(([a, b]) => ({ ...a, ...b }));

const entry = (weird: boolean): fc.Arbitrary<AuditEntryInput> =>
  fc.record(
    {
      tenantId: fc.constantFrom('t1', 't2', 'tenant "3"'),
      userId: weird ? text().filter((s) => s.length > 0) : cleanText.map((cs) => cs.join('')),
      timestamp: fc.constantFrom('2026-02-03T04:05:06.789Z', '2026-02-03T05:05:06+01:00'),
      actionType: fc.constantFrom('tool_invocation', 'model_call', 'agent_exchange'),
      actionDetail: weird
        ? actionDetail
        : fc.dictionary(
            cleanText.map((cs) => cs.join('')),
            fc.jsonValue({ maxDepth: 2 }),
            { maxKeys: 4 },
          ),
      dataAccessed: fc.array(
        fc.record({
          source: weird ? text() : fc.constant('drive'),
          classification: fc.constantFrom('public', 'internal', 'confidential'),
          purpose: fc.constantFrom('answer', 'x"y'),
        }),
        { maxLength: 2 },
      ),
      modelUsed: fc.constantFrom(null, 'model-x'),
      modelTokens: fc.option(fc.record({ input: fc.nat(1000), output: fc.nat(1000) }), { nil: null }),
      dataClassification: fc.constantFrom('public', 'internal'),
      policyApplied: fc.constantFrom('p', 'policy "q"'),
      policyResult: fc.constantFrom('allow', 'deny'),
      policyReason: weird ? text() : fc.constant(''),
      outcome: fc.constantFrom('success', 'denied'),
      requestId: fc.constantFrom('req-1', 'req\u00e9'),
    },
    {
      requiredKeys: REQUIRED_KEYS,
    },
  ) as fc.Arbitrary<AuditEntryInput>;

function ulids(): () => string {
  let n = 0;
  return () => `01J${String(++n).padStart(23, '0')}`;
}

/** A log on the fast path and one forced onto the original path (a `timestamp.*` identifier path). */
function twoLogs() {
  const clock = new ManualClock('2026-01-01T00:00:00Z');
  const fastStore = new InMemoryAuditStore();
  const slowStore = new InMemoryAuditStore();
  const fast = createAuditLog({ store: fastStore, secrets: secrets(), clock, ids: ulids() });
  const slow = createAuditLog({
    store: slowStore,
    secrets: secrets(),
    clock,
    ids: ulids(),
    // Never holds a string (timestamp is one), so it commits nothing — but disables the fast path.
    identifierPaths: [...PERSONAL_IDENTIFIER_PATHS, 'timestamp.none'],
  });
  return { fast, slow, fastStore, slowStore };
}

async function records(store: InMemoryAuditStore): Promise<AuditRecord[]> {
  const out: AuditRecord[] = [];
  for (const t of await store.tenants()) for await (const r of store.scan(t)) out.push(r);
  return out;
}

describe('plainCanonicalJson', () => {
  it('equals canonicalize on JSON values', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(plainCanonicalJson(v)).toBe(canonicalize(v));
        expect(canonicalJson(v)).toBe(canonicalize(v));
      }),
      { numRuns: 1000 },
    );
  });

  it('either equals canonicalize or declines (never throws) on anything else', () => {
    fc.assert(
      fc.property(fc.oneof(detailValue, fc.anything({ withBoxedValues: true, withDate: true })), (v) => {
        let expected: string | undefined;
        try {
          expected = canonicalize(v);
        } catch {
          expected = undefined;
        }
        const fast = plainCanonicalJson(v);
        if (fast !== undefined) expect(fast).toBe(expected);
        // canonicalJson agrees with canonicalize, errors included.
        if (expected === undefined) expect(() => canonicalJson(v)).toThrow();
        else expect(canonicalJson(v)).toBe(expected);
      }),
      { numRuns: 1000 },
    );
  });

  it('declines cycles and deep nesting, which canonicalize handles', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(plainCanonicalJson(cyclic)).toBeUndefined();
    expect(() => canonicalJson(cyclic)).toThrow(/Circular/);
    let deep: unknown = 1;
    for (let i = 0; i < 200; i++) deep = [deep];
    expect(plainCanonicalJson(deep)).toBeUndefined();
    expect(canonicalJson(deep)).toBe(canonicalize(deep));
  });
});

describe('append fast path', () => {
  it('hashes exactly as canonicalize + SHA-256 over {commitments, entry, prevHash, seq} (random entries)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(entry(false), { minLength: 1, maxLength: 8 }), async (inputs) => {
        const { fast, fastStore } = twoLogs();
        const written = (await fast.appendBatch(inputs))._unsafeUnwrap();
        (await fast.append(inputs[0] as AuditEntryInput))._unsafeUnwrap();
        for (const [i, e] of written.entries()) {
          const input = inputs[i] as AuditEntryInput;
          expect(e.actionDetail).toEqual(JSON.parse(JSON.stringify(input.actionDetail ?? {})));
        }
        for (const r of await records(fastStore)) {
          expect(r.hash).toBe(referenceHash(r));
          // The leaf kept with the record is the very text hashed.
          expect(r.leaf).toBe(referenceInput(r));
          expect(r.commitments.userId).toBe(referenceCommitment(r.entry.tenantId, r.entry.userId));
        }
        for (const t of await fastStore.tenants()) {
          expect(await verifyTenant(fastStore, t, { secrets: secrets(), deep: true })).toMatchObject({
            ok: true,
            derived: await fastStore.count(t),
          });
        }
      }),
      { numRuns: 200 },
    );
  });

  it('gives the same records and the same errors as the original path, whatever the input', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(entry(true), { minLength: 1, maxLength: 4 }), async (inputs) => {
        const { fast, slow, fastStore, slowStore } = twoLogs();
        const a = await fast.appendBatch(inputs);
        const b = await slow.appendBatch(inputs);
        expect(a.isOk()).toBe(b.isOk());
        if (a.isErr() && b.isErr()) {
          expect(a.error.constructor).toBe(b.error.constructor);
          expect({ ...a.error, message: a.error.message }).toEqual({ ...b.error, message: b.error.message });
          return;
        }
        expect(a._unsafeUnwrap()).toEqual(b._unsafeUnwrap());
        const ra = await records(fastStore);
        expect(ra).toEqual(await records(slowStore));
        for (const r of ra) expect(r.hash).toBe(referenceHash(r));
      }),
      { numRuns: 500 },
    );
  });

  it('append of one input (its own shortcut): the entry, record and error of the original path', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(entry(true), entry(false)), async (input) => {
        const { fast, slow, fastStore, slowStore } = twoLogs();
        // The keys loaded first: the shortcut is taken only with them at hand.
        for (const log of [fast, slow]) (await log.commitment('t1', 'x'))._unsafeUnwrap();
        const [a, b] = [await fast.append(input), await slow.append(input)];
        expect(a.isOk()).toBe(b.isOk());
        if (a.isErr() && b.isErr())
          expect({ ...a.error, message: a.error.message }).toEqual({ ...b.error, message: b.error.message });
        else expect(a._unsafeUnwrap()).toEqual(b._unsafeUnwrap());
        expect(await records(fastStore)).toEqual(await records(slowStore));
      }),
      { numRuns: 500 },
    );
  });

  it('is not fooled by the stand-ins it cuts the canonical JSON at (id, timestamp)', async () => {
    const details: Record<string, unknown>[] = [
      { id: '\u0000id' },
      { timestamp: '\u0000timestamp', id: '\u0000id' },
      { nested: { id: '\u0000id', timestamp: '\u0000timestamp' } },
      { '\u0000id': 'x', note: '"id":"\\u0000id"' },
      { note: '"id":"\\u0000id","timestamp":"\\u0000timestamp"' },
      { id: 'plain', timestamp: 'plain' },
    ];
    for (const actionDetail of details) {
      const input: AuditEntryInput = {
        tenantId: 't1',
        userId: 'alice',
        actionType: 'tool_invocation',
        actionDetail,
        policyApplied: 'p',
        policyResult: 'allow',
        outcome: 'success',
        requestId: 'r',
      };
      const { fast, slow, fastStore, slowStore } = twoLogs();
      const a = await fast.appendBatch([input, { ...input, timestamp: '2026-01-01T00:00:00.000Z' }]);
      const b = await slow.appendBatch([input, { ...input, timestamp: '2026-01-01T00:00:00.000Z' }]);
      expect(a.isOk(), JSON.stringify(actionDetail)).toBe(b.isOk());
      if (a.isErr() && b.isErr()) {
        expect({ ...a.error, message: a.error.message }).toEqual({ ...b.error, message: b.error.message });
        continue;
      }
      const ra = await records(fastStore);
      expect(ra).toEqual(await records(slowStore));
      for (const r of ra) expect(r.hash).toBe(referenceHash(r));
    }
  });

  it('keeps the entry the caller cannot mutate after the call', async () => {
    const { fast, fastStore } = twoLogs();
    const detail = { nested: { ticket: 'A-1' }, list: [1, 2] };
    const input: AuditEntryInput = {
      tenantId: 't1',
      userId: 'alice',
      actionType: 'tool_invocation',
      actionDetail: detail,
      policyApplied: 'p',
      policyResult: 'allow',
      outcome: 'success',
      requestId: 'r',
    };
    const pending = fast.append(input);
    detail.nested.ticket = 'changed';
    detail.list.push(3);
    const e = (await pending)._unsafeUnwrap();
    expect(e.actionDetail).toEqual({ nested: { ticket: 'A-1' }, list: [1, 2] });
    expect((await verifyTenant(fastStore, 't1', { secrets: secrets(), deep: true })).ok).toBe(true);
  });
});

describe('append of a plainly valid input', () => {
  const decision: AuditEntryInput = {
    tenantId: 't1',
    userId: 'alice',
    actionType: 'policy_decision',
    actionDetail: { domain: 'agent-to-agent', input: { rounds: 1 } },
    policyApplied: 'p',
    policyResult: 'allow',
    policyReason: 'ok',
    outcome: 'success',
    requestId: 'r',
  };

  it('skips zod, which still parses (and names the fault of) anything else', async () => {
    const parse = vi.spyOn(AuditEntryInputSchema, 'safeParse');
    try {
      const { fast } = twoLogs();
      (await fast.append(decision))._unsafeUnwrap();
      (
        await fast.appendBatch([decision, { ...decision, modelTokens: { input: 1, output: 2 } }])
      )._unsafeUnwrap();
      expect(parse).not.toHaveBeenCalled();
      const bad = await fast.appendBatch([decision, { ...decision, modelTokens: { input: -1, output: 2 } }]);
      expect(parse).toHaveBeenCalledTimes(1);
      expect((bad._unsafeUnwrapErr() as ValidationError).field).toBe('1.modelTokens.input');
    } finally {
      parse.mockRestore();
    }
  });

  it('gives what the schema gives: defaults, unknown members dropped, private copies', async () => {
    const accessed = [{ source: 'drive', classification: 'internal' as const, purpose: 'answer', extra: 1 }];
    const tokens = { input: 3, output: 4, extra: 5 };
    const inputs: AuditEntryInput[] = [
      decision,
      {
        ...decision,
        dataAccessed: accessed,
        modelTokens: tokens,
        modelUsed: undefined,
        policyReason: undefined,
      },
      { ...decision, timestamp: '2026-01-31T10:00:00+02:00', extra: 'dropped' } as AuditEntryInput,
      { ...decision, actionDetail: undefined, dataClassification: 'restricted' },
    ];
    const { fast, slow, fastStore, slowStore } = twoLogs();
    const pending = fast.appendBatch(inputs);
    const b = await slow.appendBatch(inputs);
    accessed[0] = { ...(accessed[0] as (typeof accessed)[number]), source: 'changed' };
    (accessed[0] as { purpose: string }).purpose = 'changed';
    tokens.input = 99;
    const a = await pending;
    expect(a._unsafeUnwrap()).toEqual(b._unsafeUnwrap());
    expect(a._unsafeUnwrap()[1]).toMatchObject({
      dataAccessed: [{ source: 'drive', classification: 'internal', purpose: 'answer' }],
      modelTokens: { input: 3, output: 4 },
      modelUsed: null,
      policyReason: '',
    });
    expect(a._unsafeUnwrap()[1]?.dataAccessed[0]).not.toHaveProperty('extra');
    expect(await records(fastStore)).toEqual(await records(slowStore));
  });
});
