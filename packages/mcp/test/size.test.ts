/**
 * The result size limit without a second serialization: `jsonExceeds(value, max)` answers exactly
 * what measuring `JSON.stringify(value)` in UTF-8 would, for any value and limit — the walk's bounds
 * decide only when they are certain.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonExceeds } from '../src/size';

const bytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v) ?? '', 'utf8');

/** Values a result may hold in process: JSON, plus what JSON drops or turns into null. */
const loose = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.jsonValue(),
    fc.string({ unit: 'binary' }),
    fc.double(),
    fc.constant(undefined),
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(fc.string({ unit: 'binary' }), tie('value'), { maxKeys: 5 }),
  ),
})).value;

describe('jsonExceeds', () => {
  it('agrees with the exact UTF-8 size of JSON.stringify, for any value and limit', () => {
    fc.assert(
      fc.property(loose, fc.nat(5000), (value, max) => {
        const text = JSON.stringify(value);
        const exact = text === undefined ? true : Buffer.byteLength(text, 'utf8') > max;
        expect(jsonExceeds(value, max)).toBe(exact);
      }),
      { numRuns: 2000 },
    );
  });

  it('at the exact size: not over at the size, over one byte below', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const size = bytes(value);
        expect(jsonExceeds(value, size)).toBe(false);
        if (size > 0) expect(jsonExceeds(value, size - 1)).toBe(true);
      }),
    );
  });

  it('what JSON cannot hold is over any limit: a cycle, a BigInt, undefined alone', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(jsonExceeds(cyclic, 1e9)).toBe(true);
    expect(jsonExceeds({ n: 10n }, 1e9)).toBe(true);
    expect(jsonExceeds(undefined, 1e9)).toBe(true);
  });

  it('a value with toJSON, a Date or a deep nest is measured exactly', () => {
    const date = new Date(0);
    expect(jsonExceeds({ date }, bytes({ date }))).toBe(false);
    expect(jsonExceeds({ date }, bytes({ date }) - 1)).toBe(true);
    let deep: unknown = 'x';
    for (let i = 0; i < 200; i++) deep = [deep];
    expect(jsonExceeds(deep, bytes(deep))).toBe(false);
    expect(jsonExceeds(deep, bytes(deep) - 1)).toBe(true);
  });
});
