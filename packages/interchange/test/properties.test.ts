/** fast-check properties: nothing above either ceiling crosses; no exchange passes its round limit. */
import {
  CLASSIFICATION_LEVELS,
  type ClassificationLevel,
  classificationOrder,
  minClassification,
} from '@agentgov/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { filterByClassification, type IncomingQuery } from '../src/index';
import { makeWorld } from './harness';

const level = fc.constantFrom(...CLASSIFICATION_LEVELS);
const item = fc.record({
  source: fc.constantFrom('drive', 'mail', 'calendar'),
  field: fc.string({ minLength: 1, maxLength: 8 }),
  classification: level,
  value: fc.integer(),
});

describe('property: filterByClassification', () => {
  it('keeps exactly the items at or below the ceiling, in order, and withholds the rest with a reason', () => {
    fc.assert(
      fc.property(fc.array(item, { maxLength: 40 }), level, (items, ceiling) => {
        const { kept, withheld } = filterByClassification(items, ceiling);
        expect(kept).toEqual(
          items.filter((i) => classificationOrder(i.classification) <= classificationOrder(ceiling)),
        );
        expect(withheld.map((w) => w.item)).toEqual(
          items.filter((i) => classificationOrder(i.classification) > classificationOrder(ceiling)),
        );
        for (const w of withheld) expect(w.reason).toBe('classification_exceeded');
      }),
    );
  });
});

const above = (items: { classification: ClassificationLevel }[], ceiling: ClassificationLevel) =>
  items.filter((i) => classificationOrder(i.classification) > classificationOrder(ceiling));

describe('property: no item above the sender’s or the receiver’s ceiling reaches the other side', () => {
  it('over random ceilings, policies and payloads in both directions', async () => {
    await fc.assert(
      fc.asyncProperty(
        level,
        level,
        fc.option(level, { nil: undefined }),
        fc.array(item, { maxLength: 12 }),
        fc.array(item, { maxLength: 12 }),
        async (aliceCeil, bobCeil, policyCeil, query, answer) => {
          const seenByBob: IncomingQuery['items'][] = [];
          const policy = `enabled: true\n${policyCeil ? `max_classification_shared: ${policyCeil}\n` : 'max_classification_shared: restricted\n'}`;
          const w = await makeWorld({
            policy,
            identity: {
              alice: JSON.stringify({ maxClassificationShared: aliceCeil }),
              bob: JSON.stringify({ maxClassificationShared: bobCeil }),
            },
            answer: {
              bob: async (q) => {
                seenByBob.push(q.items);
                return { text: 'a', items: answer };
              },
            },
          });
          const r = await w.nodes.alice.query({ to: 'agent-bob', message: { text: 'q', items: query } });
          const limit = minClassification(aliceCeil, bobCeil, policyCeil ?? 'restricted');
          for (const got of seenByBob) expect(above(got, limit)).toEqual([]);
          if (r.isOk() && r.value.reply) expect(above(r.value.reply.items, limit)).toEqual([]);
          // What is stored on either side never holds an item above the limit either.
          for (const side of ['alice', 'bob'] as const) {
            for (const x of (await w.stores[side].list('acme', {}, { offset: 0, limit: 10 })).exchanges) {
              for (const t of x.transcript)
                expect(
                  above((t.items as { classification: ClassificationLevel }[] | undefined) ?? [], limit),
                ).toEqual([]);
            }
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('property: no exchange passes its round limit', () => {
  it('random limits and random numbers of follow-ups (concurrent too)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 5 }),
        fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 1, maxLength: 6 }),
        async (limit, bursts) => {
          const w = await makeWorld({ extra: { roundLimits: limit } });
          const first = await w.nodes.alice.query({
            to: 'agent-bob',
            message: { text: 'r1' },
            keepOpen: true,
          });
          const id = first._unsafeUnwrap().exchange.exchangeId;
          for (const n of bursts) {
            const results = await Promise.all(
              Array.from({ length: n }, () =>
                w.nodes.alice.followUp(id, { message: { text: 'more' }, keepOpen: true }),
              ),
            );
            for (const r of results)
              if (r.isErr())
                expect(['EXCHANGE_ROUND_LIMIT', 'service_unavailable', 'policy_denied']).toContain(
                  r.error.code,
                );
          }
          for (const side of ['alice', 'bob'] as const) {
            const x = await w.stores[side].get('acme', id);
            // the policy's information_query limit (3) and the deployment's: the smaller wins
            expect(x?.maxRounds).toBe(Math.min(limit, 3));
            expect(x?.currentRound).toBeLessThanOrEqual(Math.min(limit, 3));
            const rounds = (x?.transcript ?? [])
              .filter((t) => t.kind === 'message')
              .map((t) => t.round as number);
            expect(Math.max(...rounds)).toBeLessThanOrEqual(limit);
          }
        },
      ),
      { numRuns: 30 },
    );
  });
});
