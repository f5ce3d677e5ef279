/**
 * What a caller hands `query()` is checked before anything is signed: a value nested past
 * MAX_VALUE_DEPTH is a 400 naming the field (before: canonical JSON overflowed the stack, an
 * internal_error), and field names read `message.text`, not `message..text`.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_VALUE_DEPTH } from '../src/json-depth';
import { makeWorld } from './harness';

const nested = (depth: number): unknown => {
  let v: unknown = 'leaf';
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { v };
  return v;
};
const item = (value: unknown) => ({ source: 'drive', field: 'f', classification: 'public' as const, value });

describe('query(): the message as the caller gives it', () => {
  it('a value nested deeper than MAX_VALUE_DEPTH is invalid_type naming it; at the limit it goes', async () => {
    const w = await makeWorld();
    for (const depth of [MAX_VALUE_DEPTH + 1, 5_000]) {
      const r = await w.nodes.alice.query({
        to: 'agent-bob',
        message: { text: 'q', items: [item(nested(depth))] },
      });
      const e = r._unsafeUnwrapErr();
      expect(e.code).toBe('invalid_type');
      expect(e.status).toBe(400);
      expect(e.detail).toEqual([
        { field: 'message.items.0.value', message: `nests deeper than ${MAX_VALUE_DEPTH} levels` },
      ]);
    }
    const ok = await w.nodes.alice.query({
      to: 'agent-bob',
      message: { text: 'q', items: [item(nested(MAX_VALUE_DEPTH))] },
    });
    expect(ok._unsafeUnwrap().status).toBe('answered');
    // Nothing was sent or recorded for the refused ones: one exchange on alice's side.
    expect(w.audits.bob.entries.filter((e) => e.actionDetail.event === 'received')).toHaveLength(1);
  });

  it('names fields with one dot and no trailing one', async () => {
    const w = await makeWorld();
    const missing = await w.nodes.alice.query({ to: 'agent-bob', message: undefined as never });
    expect(missing._unsafeUnwrapErr()).toMatchObject({
      code: 'missing_type',
      message: 'Missing required field: message',
    });
    const text = await w.nodes.alice.query({ to: 'agent-bob', message: { items: [] } as never });
    expect(text._unsafeUnwrapErr()).toMatchObject({ code: 'missing_type', field: 'message.text' });
  });

  it('any nesting depth is a 400 or a sent query, never an internal_error (property)', async () => {
    const w = await makeWorld();
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 300 }), async (depth) => {
        const r = await w.nodes.alice.query({
          to: 'agent-bob',
          message: { text: 'q', items: [item(nested(depth))] },
        });
        if (depth <= MAX_VALUE_DEPTH) expect(r.isOk()).toBe(true);
        else expect(r._unsafeUnwrapErr().code).toBe('invalid_type');
      }),
      { numRuns: 60 },
    );
  });
});
