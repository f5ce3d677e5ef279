/**
 * fast-check: `casUpdate` gives the same record and stored state whether the change is made
 * synchronously (not awaited) or asynchronously.
 */
import { CLASSIFICATION_LEVELS, type Exchange, InMemoryExchangeStore } from '@agentgov/core';
import { makeExchange } from '@agentgov/core/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { casUpdate, withData } from '../src/record';

const level = fc.constantFrom(...CLASSIFICATION_LEVELS);
// Few sources and fields, so that repeats (within and across the lists) are common.
const source = fc.oneof(
  fc.constantFrom('drive', 'mail', 'calendar', '__proto__', ''),
  fc.string({ maxLength: 3 }),
);
const field = fc.oneof(fc.constantFrom('a', 'b', 'c'), fc.string({ maxLength: 3 }));
const shared = fc.array(fc.record({ source, fields: fc.array(field, { maxLength: 5 }) }), { maxLength: 5 });

describe('casUpdate', () => {
  it('gives the same record and stored state for a synchronous and an asynchronous change', async () => {
    await fc.assert(
      fc.asyncProperty(shared, level, fc.boolean(), async (s, l, withSnapshot) => {
        const results: Exchange[] = [];
        const stored: (Exchange | undefined)[] = [];
        for (const asynchronous of [false, true]) {
          const store = new InMemoryExchangeStore();
          const x = makeExchange({
            exchangeId: '00000000-0000-4000-8000-000000000000',
            conversationId: '00000000-0000-4000-8000-000000000001',
            classificationLevel: 'public',
          });
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
