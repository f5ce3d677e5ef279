/**
 * fast-check: `withData` (a scan over the exchange's few sources) merges exactly as the Map-based
 * merge it replaced; `casUpdate` gives the same record and stored state whether the change is
 * made synchronously (not awaited) or asynchronously.
 */
import {
  CLASSIFICATION_LEVELS,
  type ClassificationLevel,
  type Exchange,
  InMemoryExchangeStore,
  maxClassification,
  newId,
} from '@agentgov/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { casUpdate, withData } from '../src/record';

/** The merge as it was written before (a Map of source → fields). */
function reference(
  x: Exchange,
  shared: Exchange['dataShared'],
  withheld: Exchange['dataWithheld'],
  level: ClassificationLevel,
): Exchange {
  const bySource = new Map(x.dataShared.map((d) => [d.source, [...d.fields]]));
  for (const d of shared) {
    const fields = bySource.get(d.source) ?? [];
    for (const f of d.fields) if (!fields.includes(f)) fields.push(f);
    bySource.set(d.source, fields);
  }
  return {
    ...x,
    dataShared: [...bySource].map(([source, fields]) => ({ source, fields })),
    dataWithheld: [...x.dataWithheld, ...withheld],
    classificationLevel: maxClassification(x.classificationLevel, level),
  };
}

const level = fc.constantFrom(...CLASSIFICATION_LEVELS);
// Few sources and fields, so that repeats (within and across the lists) are common.
const source = fc.oneof(
  fc.constantFrom('drive', 'mail', 'calendar', '__proto__', ''),
  fc.string({ maxLength: 3 }),
);
const field = fc.oneof(fc.constantFrom('a', 'b', 'c'), fc.string({ maxLength: 3 }));
const shared = fc.array(fc.record({ source, fields: fc.array(field, { maxLength: 5 }) }), { maxLength: 5 });
const withheld = fc.array(fc.record({ reason: fc.string(), description: fc.string() }), { maxLength: 3 });

const exchange = (
  dataShared: Exchange['dataShared'],
  dataWithheld: Exchange['dataWithheld'],
  l: ClassificationLevel,
) =>
  ({
    exchangeId: newId(),
    tenantId: 'acme',
    conversationId: newId(),
    initiatorAgentId: 'agent-alice',
    initiatorUserId: 'alice',
    responderAgentId: 'agent-bob',
    responderUserId: 'bob',
    exchangeType: 'information_query',
    currentRound: 1,
    maxRounds: 3,
    classificationLevel: l,
    outcome: 'in_progress',
    escalationReason: null,
    dataShared,
    dataWithheld,
    policyApplied: 'builtin:agent-to-agent',
    transcript: [],
    channel: 'a2a',
    startedAt: '2026-01-05T09:00:00.000Z',
    endedAt: null,
  }) satisfies Exchange;

describe('withData', () => {
  it('merges exactly as the Map-based merge (order, repeats, key order), with arrays of its own', () => {
    fc.assert(
      fc.property(shared, withheld, level, shared, withheld, level, (xs, xw, xl, s, w, l) => {
        const x = exchange(xs, xw, xl);
        const got = withData(x, s, w, l);
        const want = reference(x, s, w, l);
        expect(got).toStrictEqual(want);
        expect(JSON.stringify(got)).toBe(JSON.stringify(want));
        const inputs = new Set<unknown>([...xs, ...s].map((d) => d.fields));
        for (const d of got.dataShared) expect(inputs.has(d.fields)).toBe(false);
        expect(x.dataShared).toBe(xs);
      }),
      { numRuns: 500 },
    );
  });
});

describe('casUpdate', () => {
  it('gives the same record and stored state for a synchronous and an asynchronous change', async () => {
    await fc.assert(
      fc.asyncProperty(shared, level, fc.boolean(), async (s, l, withSnapshot) => {
        const results: Exchange[] = [];
        const stored: (Exchange | undefined)[] = [];
        for (const asynchronous of [false, true]) {
          const store = new InMemoryExchangeStore();
          const x = exchange([], [], 'public');
          x.exchangeId = '00000000-0000-4000-8000-000000000000';
          x.conversationId = '00000000-0000-4000-8000-000000000001';
          await store.insert(x);
          const change = (c: Exchange) => withData({ ...c, currentRound: 2 }, s, [], l);
          const y = await casUpdate(
            store,
            x.tenantId,
            x.exchangeId,
            asynchronous ? async (c) => change(c) : change,
            withSnapshot ? x : undefined,
          );
          results.push(y);
          stored.push(await store.get(x.tenantId, x.exchangeId));
        }
        expect(results[0]).toStrictEqual(results[1]);
        expect(stored[0]).toStrictEqual(stored[1]);
        expect(stored[0]).toStrictEqual(results[0]);
      }),
      { numRuns: 50 },
    );
  });
});
