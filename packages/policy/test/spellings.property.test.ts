/**
 * Property tests of the other spellings: any content written with the aliases parses to the same
 * canonical content, and the shorthands keep the restriction order of what they stand for (a
 * stricter shorthand is a stricter map), so the lattice holds whatever spelling a scope uses.
 */
import { CLASSIFICATION_LEVELS, type PolicyDomain } from '@agentgov/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DOMAIN_LATTICES, leq, MAX_ROUNDS_LIMIT, parsePolicyContent, toYaml } from '../src/index';
import { contentArb } from './content-arb';

type Dict = Record<string, unknown>;
const ok = (domain: PolicyDomain, value: unknown): Dict => {
  const r = parsePolicyContent(domain, value);
  if (r.isErr()) throw new Error(r.error.message);
  return r.value as Dict;
};

/** Canonical key → how to write it with its alias (`undefined`: this value has no alias spelling). */
const ALIASES: Partial<Record<PolicyDomain, Record<string, (v: unknown) => [string, unknown] | undefined>>> =
  {
    actions: { actions: (v) => ['tools', v] },
    models: {
      sensitive_data_models: (v) => {
        const list = v as string[];
        return ['sensitive_data_model', list.length === 1 ? list[0] : list];
      },
    },
    data: {
      retention: (v) => {
        const keys = Object.keys(v as Dict);
        return keys.length === 1 && keys[0] === 'default'
          ? ['retention_days', (v as Dict).default]
          : undefined;
      },
    },
  };

describe.each(Object.keys(ALIASES).map((d) => [d as PolicyDomain]))('aliases of %s', (domain) => {
  it('content written with the aliases (as YAML) parses to the canonical content', () => {
    const rules = ALIASES[domain] ?? {};
    fc.assert(
      fc.property(contentArb(DOMAIN_LATTICES[domain]), fc.boolean(), (content, useAlias) => {
        const written: Dict = {};
        for (const [k, v] of Object.entries(content as Dict)) {
          const alias = useAlias ? rules[k]?.(v) : undefined;
          if (alias) written[alias[0]] = alias[1];
          else written[k] = v;
        }
        expect(ok(domain, toYaml(written))).toEqual(content);
      }),
      { numRuns: 200 },
    );
  });
});

describe('shorthands keep the restriction order', () => {
  const a2a = DOMAIN_LATTICES['agent-to-agent'];
  const data = DOMAIN_LATTICES.data;
  const level = fc.constantFrom(...CLASSIFICATION_LEVELS);
  const rounds = fc.integer({ min: 1, max: MAX_ROUNDS_LIMIT });

  it('max_rounds: n ⊑ max_rounds: m iff n ≤ m, and n ⊑ a map iff n is within every limit it sets', () => {
    const map = contentArb(a2a.fields.max_rounds);
    fc.assert(
      fc.property(rounds, rounds, map, (n, m, limits) => {
        const of = (v: unknown) => ok('agent-to-agent', { max_rounds: v });
        expect(leq(a2a, of(n), of(m))).toBe(n <= m);
        const within = Object.values(limits as Dict).every((l) => n <= (l as number));
        expect(leq(a2a, of(n), of(limits))).toBe(within);
      }),
      { numRuns: 300 },
    );
  });

  it('cross_org: false ⊑ any level ⊑ true, and level a ⊑ level b iff a is not above b', () => {
    fc.assert(
      fc.property(level, level, (a, b) => {
        const of = (v: unknown) => ok('agent-to-agent', { cross_org: v });
        const order = (x: string) => CLASSIFICATION_LEVELS.indexOf(x as never);
        expect(leq(a2a, of(a), of(b))).toBe(order(a) <= order(b));
        expect(leq(a2a, of(false), of(a))).toBe(true);
        expect(leq(a2a, of(a), of(true))).toBe(true);
        expect(leq(a2a, of(true), of(a))).toBe(a === 'restricted');
      }),
      { numRuns: 100 },
    );
  });

  it('retention: n is retention: {default: n} and retention_days: n', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 36_500 }), fc.integer({ min: 1, max: 36_500 }), (n, m) => {
        const of = (v: unknown) => ok('data', { retention: v });
        expect(of(n)).toEqual(of({ default: n }));
        expect(ok('data', { retention_days: n })).toEqual(of(n));
        expect(leq(data, of(n), of(m))).toBe(n <= m);
      }),
      { numRuns: 100 },
    );
  });
});
