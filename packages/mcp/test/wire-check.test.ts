/**
 * The fast paths of `tools/call`'s params and result agree with the SDK's schemas: whenever a fast
 * path answers, the schema accepts the same input and gives an equal value (same keys in the same
 * order, nothing shared with the input's top level); whenever the schema refuses, the fast path
 * does not answer. Inputs are near-valid shapes (JSON, and what an in-memory caller can hand over:
 * undefined, symbols, odd prototypes, an own `__proto__`).
 */
import {
  CallToolRequestParamsSchema,
  CallToolResultSchema,
  RELATED_TASK_META_KEY,
} from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fastCallParams, fastCallResult } from '../src/wire-check';

const key = fc.oneof(
  fc.constantFrom('a', 'query', '1', '0', '__proto__', 'constructor', 'toString', 'type', 'text'),
  fc.string({ maxLength: 4 }),
);
const leaf = fc.oneof(
  fc.jsonValue({ maxDepth: 1 }),
  fc.constant(undefined),
  fc.constant(Symbol('s')),
  fc.constant(() => 1),
  fc.double(),
);
/** Objects built in odd ways: plain, null prototype, from JSON (own `__proto__`), with a symbol key, an array, a class instance. */
const objectOf = (value: fc.Arbitrary<unknown>) =>
  fc
    .tuple(
      fc.dictionary(key, value, { maxKeys: 4 }),
      fc.constantFrom('plain', 'null-proto', 'json', 'symbol', 'array', 'instance'),
    )
    .map(([d, how]): unknown => {
      if (how === 'null-proto') return Object.assign(Object.create(null), d);
      if (how === 'json') {
        const text = JSON.stringify(d);
        return JSON.parse(text.length > 2 ? `{"__proto__":1,${text.slice(1)}` : '{"__proto__":1}');
      }
      if (how === 'symbol') return { ...d, [Symbol('k')]: 1 };
      if (how === 'array') return Object.values(d);
      // Own properties defined, not assigned: an own `__proto__` key would otherwise set the
      // instance's prototype (to a function, whose read-only `name` then refuses a `name` key).
      if (how === 'instance')
        return Object.defineProperties(new (class Args {})(), Object.getOwnPropertyDescriptors(d));
      return d;
    });

const withOptional = <T extends Record<string, unknown>>(
  base: T,
  extra: Record<string, fc.Arbitrary<unknown>>,
): fc.Arbitrary<unknown> =>
  fc
    .record(Object.fromEntries(Object.entries(extra).map(([k, a]) => [k, fc.option(a, { nil: undefined })])))
    .chain((opts) =>
      fc.subarray(Object.keys(extra)).map((present) => {
        const out: Record<string, unknown> = { ...base };
        for (const k of present) out[k] = opts[k];
        return out;
      }),
    );

const params = fc.oneof(
  fc.tuple(fc.oneof(fc.string(), fc.integer()), objectOf(leaf)).chain(([name, args]) =>
    withOptional(
      { name },
      {
        arguments: fc.oneof(fc.constant(args), objectOf(leaf)),
        _meta: fc.oneof(
          fc.record({ progressToken: fc.oneof(fc.string(), fc.integer(), fc.double()) }),
          fc.constant({ [RELATED_TASK_META_KEY]: { taskId: 't' } }),
        ),
        task: fc.record({ ttl: fc.integer() }),
        extra: leaf,
      },
    ),
  ),
  objectOf(leaf),
  leaf,
);

const block = fc.oneof(
  { arbitrary: fc.record({ type: fc.constant('text'), text: fc.string() }), weight: 12 },
  { arbitrary: fc.record({ text: fc.string(), type: fc.constant('text') }), weight: 4 },
  fc.record({ type: fc.constantFrom('text', 'image'), text: fc.oneof(fc.string(), fc.integer()) }),
  fc.record({ type: fc.constant('text'), text: fc.string(), annotations: fc.constant({ priority: 1 }) }),
  fc.record({ type: fc.constant('text'), text: fc.string(), extra: leaf }),
  fc.record({ type: fc.constant('image'), data: fc.base64String(), mimeType: fc.constant('image/png') }),
  fc.record({ type: fc.constant('text') }),
  objectOf(leaf),
  leaf,
);
const nearValidResult = withOptional(
  {},
  {
    structuredContent: fc.oneof(
      { arbitrary: objectOf(fc.jsonValue({ maxDepth: 1 })), weight: 3 },
      objectOf(leaf),
      leaf,
    ),
    isError: fc.oneof({ arbitrary: fc.boolean(), weight: 3 }, leaf),
  },
).chain((rest) => fc.array(block, { maxLength: 3 }).map((content) => ({ content, ...(rest as object) })));
const result = fc.oneof(
  { arbitrary: nearValidResult, weight: 4 },
  withOptional(
    {},
    {
      content: fc.oneof(fc.array(block, { maxLength: 3 }), objectOf(leaf), leaf),
      structuredContent: fc.oneof(objectOf(leaf), leaf),
      isError: fc.oneof(fc.boolean(), leaf),
      _meta: fc.record({ progressToken: fc.string() }),
      extra: leaf,
    },
  ),
  objectOf(leaf),
  leaf,
);

/** The schema's answer; a schema that throws (zod reads `.arguments` of a function) refuses. */
function parsedBy<T>(
  schema: { safeParse(v: unknown): { success: true; data: T } | { success: false } },
  v: unknown,
) {
  try {
    return schema.safeParse(v);
  } catch {
    return { success: false as const };
  }
}

/** Equal values with the same keys in the same order (`toStrictEqual` ignores the order). */
function expectSame(fast: unknown, slow: unknown): void {
  expect(fast).toStrictEqual(slow);
  const keys = (v: unknown) =>
    v && typeof v === 'object' ? Object.entries(v).map(([k, x]): unknown => [k, keys(x)]) : null;
  expect(keys(fast)).toEqual(keys(slow));
}

describe('fastCallParams', () => {
  it('answers only what CallToolRequestParamsSchema gives', () => {
    let answered = 0;
    fc.assert(
      fc.property(params, (p) => {
        const fast = fastCallParams(p);
        const slow = parsedBy(CallToolRequestParamsSchema, p);
        if (!slow.success) expect(fast).toBeUndefined();
        else if (fast !== undefined) {
          answered++;
          expectSame(fast, slow.data);
          if (fast.arguments !== undefined)
            expect(fast.arguments).not.toBe((p as { arguments: unknown }).arguments);
        }
      }),
      { numRuns: 3000 },
    );
    expect(answered).toBeGreaterThan(100); // the fast path was exercised, not only the refusals
  });

  it('answers the common shapes itself', () => {
    expect(fastCallParams({ name: 'notes__search', arguments: { query: 'plan', limit: 2 } })).toEqual({
      name: 'notes__search',
      arguments: { query: 'plan', limit: 2 },
    });
    expect(fastCallParams(JSON.parse('{"name":"n","arguments":{"a":{"b":[1]}}}'))).toBeDefined();
    expect(fastCallParams({ name: 'n' })).toEqual({ name: 'n' });
    // What the schema must decide: a symbol key, an own __proto__, _meta, task.
    expect(fastCallParams({ name: 'n', arguments: { [Symbol('s')]: 1 } })).toBeUndefined();
    expect(fastCallParams(JSON.parse('{"name":"n","arguments":{"__proto__":{"x":1}}}'))).toBeUndefined();
    expect(fastCallParams({ name: 'n', _meta: { progressToken: 1 } })).toBeUndefined();
    expect(fastCallParams({ name: 'n', task: {} })).toBeUndefined();
  });
});

describe('fastCallResult', () => {
  it('answers only what CallToolResultSchema gives', () => {
    let answered = 0;
    fc.assert(
      fc.property(result, (r) => {
        const fast = fastCallResult(r);
        const slow = parsedBy(CallToolResultSchema, r);
        if (!slow.success) expect(fast).toBeUndefined();
        else if (fast !== undefined) {
          answered++;
          expectSame(fast, slow.data);
        }
      }),
      { numRuns: 3000 },
    );
    expect(answered).toBeGreaterThan(100);
  });

  it('answers the common shapes itself', () => {
    const r = { content: [{ type: 'text', text: '["plan.md"]' }], structuredContent: { hits: ['plan.md'] } };
    expect(fastCallResult(r)).toEqual(r);
    expect(fastCallResult({ content: [], isError: true })).toEqual({ content: [], isError: true });
    // Images, annotations, _meta and unknown keys go to the schema.
    expect(
      fastCallResult({ content: [{ type: 'image', data: 'AA==', mimeType: 'image/png' }] }),
    ).toBeUndefined();
    expect(fastCallResult({ content: [{ type: 'text', text: 't', annotations: {} }] })).toBeUndefined();
    expect(fastCallResult({ content: [], _meta: {} })).toBeUndefined();
    expect(fastCallResult({ content: [], other: 1 })).toBeUndefined();
  });
});
