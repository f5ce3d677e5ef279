/**
 * Property tests of the models, actions, data and features decisions (as for the lattice): on any
 * policy content and input the decision is well-formed and never throws, and restricting a policy
 * never turns a deny into an allow — the decision on meet(a, b) allows only if both a and b do.
 * The keys a decision needs explicitly (`default_autonomy`, `external_sharing_max`, each
 * feature) are a default deny when unset — below every value in the decision's order although
 * "unset" is the top of the lattice — so the monotonicity property is stated on contents that set
 * them, and the default deny is a property of its own.
 */
import { CLASSIFICATION_LEVELS, type DecisionRequest, FEATURE_NAMES } from '@agentgov/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DOMAIN_LATTICES, evaluate, type LatticeNode, meet } from '../src/index';
import { contentArb } from './content-arb';

/** Free map keys are the tool names the inputs use; feature flags are the known ones plus another. */
const flags = fc.record(Object.fromEntries([...FEATURE_NAMES, 'beta_search'].map((k) => [k, fc.boolean()])), {
  requiredKeys: [],
});
const arb = (node: LatticeNode) =>
  node === DOMAIN_LATTICES.features ? flags : contentArb(node, ['a', 'b', 'c']);

/** Keys a decision of the domain needs explicitly (unset = default deny). */
const DECISIVE: Record<keyof typeof INPUTS_KEYS, readonly string[]> = {
  models: [],
  actions: ['default_autonomy'],
  data: ['external_sharing_max'],
  features: FEATURE_NAMES,
};
const INPUTS_KEYS = { models: 0, actions: 0, data: 0, features: 0 } as const;
const setting = (domain: keyof typeof INPUTS_KEYS, lattice: LatticeNode) =>
  arb(lattice).filter((c) => DECISIVE[domain].every((k) => (c as Record<string, unknown>)[k] !== undefined));
const unsetting = (domain: keyof typeof INPUTS_KEYS, lattice: LatticeNode) =>
  arb(lattice).map((c) => {
    const out = { ...(c as Record<string, unknown>) };
    for (const k of DECISIVE[domain]) delete out[k];
    return out;
  });

const name = fc.constantFrom('a', 'b', 'c', 'd');
const level = fc.constantFrom(...CLASSIFICATION_LEVELS);
const INPUTS = {
  models: fc.record({ model: name, provider: name, classification_level: level }),
  actions: fc.record({ tool: name }),
  data: fc.record(
    { classification_level: level, destination: name },
    { requiredKeys: ['classification_level'] },
  ),
  features: fc.record({ feature: fc.constantFrom(...FEATURE_NAMES) }),
} as const;

describe.each(Object.keys(INPUTS) as (keyof typeof INPUTS)[])('%s decisions (property)', (domain) => {
  const lattice = DOMAIN_LATTICES[domain];
  const input = INPUTS[domain] as fc.Arbitrary<DecisionRequest['input']>;

  it('are well-formed and never throw', () => {
    fc.assert(
      fc.property(arb(lattice), input, (content, i) => {
        const d = evaluate(content, domain, i);
        expect(d.deny).toBe(!d.allow);
        expect(d.reason.length).toBeGreaterThan(0);
      }),
      { numRuns: 500 },
    );
  });

  it('restricting never allows more: allow(meet(a, b)) ⇒ allow(a) and allow(b)', () => {
    fc.assert(
      fc.property(setting(domain, lattice), setting(domain, lattice), input, (a, b, i) => {
        const both = evaluate(meet(lattice, a, b), domain, i).allow;
        if (both) {
          expect(evaluate(a, domain, i).allow).toBe(true);
          expect(evaluate(b, domain, i).allow).toBe(true);
        }
      }),
      { numRuns: 1000 },
    );
  });

  // models has no key a decision needs explicitly: nothing to state for it.
  if (DECISIVE[domain].length > 0)
    it('a policy that does not set the keys the decision needs denies (default deny)', () => {
      fc.assert(
        fc.property(unsetting(domain, lattice), input, (content, i) => {
          const d = evaluate(content, domain, i);
          // actions: an explicit actions.<tool> entry decides without default_autonomy.
          const own =
            domain === 'actions' &&
            (content.actions as Record<string, unknown> | undefined)?.[(i as { tool: string }).tool];
          if (own === undefined || own === 'block') expect(d.allow).toBe(false);
        }),
        { numRuns: 500 },
      );
    });

  it('some policy allows and some policy denies (the property above is not vacuous)', () => {
    const outcomes = new Set<boolean>();
    fc.assert(
      fc.property(setting(domain, lattice), input, (content, i) => {
        outcomes.add(evaluate(content, domain, i).allow);
      }),
      { numRuns: 300 },
    );
    expect([...outcomes].sort()).toEqual([false, true]);
  });
});
