import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../src/index';

describe('canonicalJson (RFC 8785)', () => {
  it('is valid JSON that parses back to the same value, whatever the key order', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const text = canonicalJson(v);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(v)));
        if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
          const reversed = Object.fromEntries(Object.entries(v).reverse());
          expect(canonicalJson(reversed)).toBe(text);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('sorts keys by UTF-16 code units and formats numbers as ES does', () => {
    expect(
      canonicalJson({ b: 1, a: [1e21, 0.1, -0, 1e-7], '\u20ac': 'x', '\ud83d\ude00': 'y', é: true }),
    ).toBe('{"a":[1e+21,0.1,0,1e-7],"b":1,"é":true,"€":"x","😀":"y"}');
  });

  it('rejects values without a canonical form', () => {
    expect(() => canonicalJson({ n: Number.NaN })).toThrow();
    expect(() => canonicalJson([Number.POSITIVE_INFINITY])).toThrow();
    expect(() => canonicalJson({ s: '\ud800' })).toThrow();
    expect(() => canonicalJson({ b: 1n })).toThrow();
  });
});
