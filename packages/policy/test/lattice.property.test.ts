import { CLASSIFICATION_LEVELS, POLICY_DOMAINS, type PolicyDomain, type ScopeRef } from '@agentgov/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DOMAIN_LATTICES,
  effectiveAlong,
  type LatticeNode,
  leq,
  meet,
  parsePolicyContent,
  toYaml,
  validateChain,
  violationsAgainst,
} from '../src/index';
import { contentArb } from './content-arb';

const arb = contentArb;

type Dict = Record<string, unknown>;
const isDict = (v: unknown): v is Dict => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Reference model of "child ⊑ parent for every key the child sets", written from DESIGN.md
 * independently of the library: classification limit lower is stricter, classification floor
 * higher, allow-list subset, numeric max smaller, numeric min larger, grant false, obligation true,
 * ordinal later in the order; a deny list is added to the inherited one (union), so it never loosens.
 */
function oracle(node: LatticeNode, child: unknown, parent: unknown): boolean {
  if (child === undefined || parent === undefined) return true;
  switch (node.kind) {
    case 'level':
      return CLASSIFICATION_LEVELS.indexOf(child as never) <= CLASSIFICATION_LEVELS.indexOf(parent as never);
    case 'levelFloor':
      return CLASSIFICATION_LEVELS.indexOf(child as never) >= CLASSIFICATION_LEVELS.indexOf(parent as never);
    case 'allowList':
      return (child as string[]).every((x) => (parent as string[]).includes(x));
    case 'denyList':
      // A deny list a child writes is added to the one it inherits: it can only deny more.
      return true;
    case 'numericMax':
      return (child as number) <= (parent as number);
    case 'numericMin':
      return (child as number) >= (parent as number);
    case 'grant':
      return child === false || parent === true;
    case 'obligation':
      return child === true || parent === false;
    case 'ordinal':
      return node.order.indexOf(child as string) >= node.order.indexOf(parent as string);
    case 'map':
    case 'object': {
      const c = child as Dict;
      const p = isDict(parent) ? parent : {};
      return Object.keys(c).every((k) => {
        const n = node.kind === 'map' ? node.child : node.fields[k];
        return n ? oracle(n, c[k], p[k]) : true;
      });
    }
  }
}

/** Every leaf the child sets equals meet(child, parent) there — "c ⊑ p iff c ∧ p = c". */
function meetFixesChild(node: LatticeNode, child: unknown, parent: unknown): boolean {
  if (child === undefined) return true;
  if (node.kind === 'map' || node.kind === 'object') {
    const c = child as Dict;
    const p = isDict(parent) ? parent : {};
    return Object.keys(c).every((k) => {
      const n = node.kind === 'map' ? node.child : node.fields[k];
      return n ? meetFixesChild(n, c[k], p[k]) : true;
    });
  }
  // An additive (deny) list is read merged with what it inherits.
  const own = node.kind === 'denyList' ? meet(node, child, parent) : child;
  return JSON.stringify(meet(node, child, parent)) === JSON.stringify(own);
}

/**
 * The child as an author who states only what they add would write it: every deny list without
 * the items its parent already denies (an emptied list is dropped).
 */
function onlyAdditions(node: LatticeNode, child: unknown, parent: unknown): unknown {
  if (child === undefined) return undefined;
  if (node.kind === 'denyList') {
    const inherited = Array.isArray(parent) ? (parent as string[]) : [];
    const added = (child as string[]).filter((x) => !inherited.includes(x));
    return added.length > 0 ? added : undefined;
  }
  if (node.kind === 'map' || node.kind === 'object') {
    const c = child as Dict;
    const p = isDict(parent) ? parent : {};
    const out: Dict = {};
    for (const [k, v] of Object.entries(c)) {
      const n = node.kind === 'map' ? node.child : node.fields[k];
      const w = n ? onlyAdditions(n, v, p[k]) : v;
      if (w !== undefined) out[k] = w;
    }
    return out;
  }
  return child;
}

const ent: ScopeRef = { scope: 'enterprise', scopeId: 'acme' };
const org: ScopeRef = { scope: 'org', scopeId: 'eng' };
const team: ScopeRef = { scope: 'team', scopeId: 'platform' };
const user: ScopeRef = { scope: 'user', scopeId: 'alice' };
const level = (ref: ScopeRef, content: unknown) => ({
  ref,
  policies: content === undefined ? [] : [{ content }],
});

describe.each(POLICY_DOMAINS.map((d) => [d] as [PolicyDomain]))('lattice of %s', (domain) => {
  const node = DOMAIN_LATTICES[domain];
  const content = arb(node);

  it('meet is commutative, associative and idempotent', () => {
    fc.assert(
      fc.property(content, content, content, (a, b, c) => {
        expect(meet(node, a, b)).toEqual(meet(node, b, a));
        expect(meet(node, meet(node, a, b), c)).toEqual(meet(node, a, meet(node, b, c)));
        expect(meet(node, a, a)).toEqual(a);
      }),
      { numRuns: 300 },
    );
  });

  it('meet is the greatest lower bound for ⊑', () => {
    fc.assert(
      fc.property(content, content, (a, b) => {
        const m = meet(node, a, b);
        expect(leq(node, m, a)).toBe(true);
        expect(leq(node, m, b)).toBe(true);
        // a ⊑ b exactly when a ∧ b ≡ a
        expect(leq(node, a, b)).toBe(leq(node, meet(node, a, b), a) && leq(node, a, meet(node, a, b)));
      }),
      { numRuns: 300 },
    );
  });

  it('validation accepts a child iff it is ⊑ its parent for every key it sets', () => {
    fc.assert(
      fc.property(content, content, (parent, child) => {
        const violations = violationsAgainst(domain, { ref: org, content: child }, [level(ent, parent)]);
        expect(violations.length === 0).toBe(oracle(node, child, parent));
        expect(violations.length === 0).toBe(meetFixesChild(node, child, parent));
        // and the same through whole-chain validation
        expect(validateChain(domain, [level(ent, parent), level(org, child)]).length === 0).toBe(
          oracle(node, child, parent),
        );
      }),
      { numRuns: 500 },
    );
  });

  it('a child states only what it adds: dropping what it inherits changes neither the verdict nor the effective policy', () => {
    fc.assert(
      fc.property(content, content, content, (e, o, child) => {
        const parent = meet(node, e, o);
        const lean = onlyAdditions(node, child, parent);
        const full = [level(ent, e), level(org, o), level(team, child)];
        const short = [level(ent, e), level(org, o), level(team, lean)];
        expect(validateChain(domain, short).length === 0).toBe(validateChain(domain, full).length === 0);
        // equally restrictive (an empty deny list and an absent one are the same)
        const [a, b] = [effectiveAlong(domain, short), effectiveAlong(domain, full)];
        expect(leq(node, a, b) && leq(node, b, a)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('for any chain, the effective policy of parent and child is never looser than the parent', () => {
    fc.assert(
      fc.property(content, content, content, (e, o, child) => {
        const parentChain = [level(ent, e), level(org, o)];
        const parent = effectiveAlong(domain, parentChain);
        const effective = effectiveAlong(domain, [...parentChain, level(team, child)]);
        expect(leq(node, effective, parent)).toBe(true);
        expect(oracle(node, effective, parent)).toBe(true);
        // and what validation accepts, merged, is within the parent too
        if (validateChain(domain, [...parentChain, level(team, child)]).length === 0) {
          expect(leq(node, meet(node, child, parent), parent)).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('a child made by meeting with its parent is always accepted', () => {
    fc.assert(
      fc.property(content, content, content, content, (e, o, t, u) => {
        const o2 = meet(node, o, e);
        const t2 = meet(node, t, meet(node, o2, e));
        const u2 = meet(node, u, meet(node, t2, meet(node, o2, e)));
        expect(
          validateChain(domain, [level(ent, e), level(org, o2), level(team, t2), level(user, u2)]),
        ).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });

  it('the effective policy of a 4-level chain is never more permissive than any ancestor', () => {
    const maybe = fc.option(content, { nil: undefined });
    fc.assert(
      fc.property(maybe, maybe, maybe, maybe, (e, o, t, u) => {
        const chain = [level(ent, e), level(org, o), level(team, t), level(user, u)];
        const effective = effectiveAlong(domain, chain);
        for (const ancestor of [e, o, t, u]) {
          expect(leq(node, effective, ancestor)).toBe(true);
          // in the reference model too: every key an ancestor sets is set at least as strictly
          expect(oracle(node, effective, ancestor)).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('violations name the nearest ancestor holding the effective value', () => {
    fc.assert(
      fc.property(content, content, content, (e, o, child) => {
        const violations = violationsAgainst(domain, { ref: team, content: child }, [
          level(ent, e),
          level(org, o),
        ]);
        for (const v of violations) {
          expect(['enterprise', 'org']).toContain(v.parentScope);
          expect(v.scope).toBe('team');
          expect(v.reason).toContain(v.key);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('content survives YAML text and parsing unchanged (parser round trip)', () => {
    fc.assert(
      fc.property(content, (c) => {
        const parsed = parsePolicyContent(domain, toYaml(c));
        expect(parsed.isOk()).toBe(true);
        expect(parsed._unsafeUnwrap()).toEqual(c);
      }),
      { numRuns: 200 },
    );
  });

  it('the parser never throws on arbitrary values or text', () => {
    fc.assert(
      fc.property(fc.oneof(fc.anything(), fc.string(), fc.json()), (input) => {
        const result = parsePolicyContent(domain, input);
        if (result.isErr()) {
          expect(result.error.code).toMatch(/^(invalid_type|missing_type)$/);
          expect(result.error.detail.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: 300 },
    );
  });
});
