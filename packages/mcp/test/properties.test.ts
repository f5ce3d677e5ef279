import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { argumentsDigest, canonicalArguments } from '../src/index';

/** JSON values as MCP arguments carry them (no -0: JSON has no distinct negative zero). */
const json = fc.jsonValue().map((v) => JSON.parse(JSON.stringify(v)) as unknown);
const args = fc.dictionary(fc.string(), json, { maxKeys: 8 });

/** The same object with every object's keys in a shuffled order. */
function reorder(value: unknown, seed: number): unknown {
  if (Array.isArray(value)) return value.map((v, i) => reorder(v, seed + i));
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>);
  const shuffled = entries
    .map((e, i) => ({ e, k: Math.sin(seed * 9301 + i * 49297) }))
    .sort((a, b) => a.k - b.k)
    .map(({ e }) => e);
  const out: Record<string, unknown> = {};
  for (const [k, v] of shuffled)
    Object.defineProperty(out, k, {
      value: reorder(v, seed + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return out;
}

describe('argument canonicalization and digests', () => {
  it('the same arguments in any key order give the same canonical JSON and digest', () => {
    fc.assert(
      fc.property(args, fc.integer(), (a, seed) => {
        const b = reorder(a, seed) as Record<string, unknown>;
        expect(canonicalArguments(b)).toBe(canonicalArguments(a));
        expect(argumentsDigest(b)).toBe(argumentsDigest(a));
      }),
    );
  });

  it('canonical JSON round-trips to an equal value', () => {
    fc.assert(
      fc.property(args, (a) => {
        expect(JSON.parse(canonicalArguments(a))).toEqual(a);
      }),
    );
  });

  it('any change (a value, a key, a key added or removed) gives another digest', () => {
    fc.assert(
      fc.property(args, fc.string(), json, (a, key, value) => {
        const changed = { ...a, [key]: value };
        fc.pre(canonicalArguments(changed) !== canonicalArguments(a));
        expect(argumentsDigest(changed)).not.toBe(argumentsDigest(a));
      }),
    );
    fc.assert(
      fc.property(
        args.filter((a) => Object.keys(a).length > 0),
        (a) => {
          const [first] = Object.keys(a);
          const { [first as string]: _removed, ...rest } = a;
          expect(argumentsDigest(rest)).not.toBe(argumentsDigest(a));
        },
      ),
    );
  });

  it('absent arguments are {}; distinct values of one key never collide', () => {
    expect(argumentsDigest(undefined)).toBe(argumentsDigest({}));
    fc.assert(
      fc.property(json, json, (x, y) => {
        fc.pre(
          JSON.stringify(x) !== JSON.stringify(y) &&
            canonicalArguments({ v: x }) !== canonicalArguments({ v: y }),
        );
        expect(argumentsDigest({ v: x })).not.toBe(argumentsDigest({ v: y }));
      }),
    );
  });

  it('refuses values JSON cannot hold', () => {
    expect(() => canonicalArguments({ n: Number.NaN })).toThrow();
    expect(() => canonicalArguments({ s: '\ud800' })).toThrow();
  });
});
