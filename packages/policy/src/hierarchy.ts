/**
 * Hierarchy validation and effective policy along enterprise → org → team → user, for one tenant,
 * one domain and one target chain. Pure functions over parsed content; the PolicyService and the
 * CLI supply the chain (from an OrgDirectory and the active policies).
 */
import type { HierarchyViolation, PolicyDomain, ScopeRef } from '@agentgov/core';
import { DOMAIN_LATTICES, type PolicyContentByDomain } from './domains';
import { equivalent, leafViolations, leq, meetAll, nodeAt, valueAt, violationReason } from './lattice';

/** One active policy at a node of the chain (parsed content). */
export interface ChainPolicy {
  id?: string;
  content: unknown;
}

/** One node of a chain with its active policies of the domain (several combine by meet). */
export interface ChainLevel {
  ref: ScopeRef;
  policies: readonly ChainPolicy[];
}

/** The meet of several contents of one domain (no content: `{}`, nothing restricted). */
export function meetContents<D extends PolicyDomain>(
  domain: D,
  contents: readonly unknown[],
): PolicyContentByDomain[D] {
  return (meetAll(DOMAIN_LATTICES[domain], contents) ?? {}) as PolicyContentByDomain[D];
}

/** The effective policy along a chain: the meet of every policy of every level. */
export function effectiveAlong<D extends PolicyDomain>(
  domain: D,
  chain: readonly ChainLevel[],
): PolicyContentByDomain[D] {
  return meetContents(
    domain,
    chain.flatMap((level) => level.policies.map((p) => p.content)),
  );
}

const label = (ref: ScopeRef): string => `${ref.scope} '${ref.scopeId}'`;

/**
 * Every key `child` sets that is more permissive than the effective value of its ancestors
 * (`ancestors` root first, the child's own node excluded). Each violation names the nearest
 * ancestor whose own value equals the effective parent value (or, for intersections no single
 * ancestor holds, the nearest ancestor the child exceeds).
 */
export function violationsAgainst(
  domain: PolicyDomain,
  child: { ref: ScopeRef; content: unknown; policyId?: string },
  ancestors: readonly ChainLevel[],
): HierarchyViolation[] {
  const root = DOMAIN_LATTICES[domain];
  const combined = ancestors.map((level) => ({
    ref: level.ref,
    content: meetAll(
      root,
      level.policies.map((p) => p.content),
    ),
  }));
  const parent = meetAll(
    root,
    combined.map((c) => c.content),
  );
  const found = leafViolations(root, child.content, parent);
  return found.map((v) => {
    const leaf = nodeAt(root, v.path) ?? v.node;
    const nearestFirst = [...combined].reverse();
    const source =
      nearestFirst.find((c) => {
        const own = valueAt(c.content, v.path);
        return own !== undefined && equivalent(leaf, own, v.parentValue);
      }) ??
      nearestFirst.find((c) => {
        const own = valueAt(c.content, v.path);
        return own !== undefined && !leq(leaf, v.value, own);
      }) ??
      combined[0];
    const parentRef = source?.ref ?? { scope: 'enterprise' as const, scopeId: '?' };
    const key = v.path.join('.');
    const violation: HierarchyViolation = {
      key,
      scope: child.ref.scope,
      scopeId: child.ref.scopeId,
      value: v.value,
      parentScope: parentRef.scope,
      parentScopeId: parentRef.scopeId,
      parentValue: v.parentValue,
      reason: violationReason(leaf, key, v.value, v.parentValue, label(parentRef)),
    };
    if (child.policyId !== undefined) violation.policyId = child.policyId;
    return violation;
  });
}

/** Validates every policy of a chain against the levels above it. */
export function validateChain(domain: PolicyDomain, chain: readonly ChainLevel[]): HierarchyViolation[] {
  const out: HierarchyViolation[] = [];
  chain.forEach((level, i) => {
    const ancestors = chain.slice(0, i);
    for (const p of level.policies) {
      out.push(
        ...violationsAgainst(
          domain,
          p.id === undefined
            ? { ref: level.ref, content: p.content }
            : { ref: level.ref, content: p.content, policyId: p.id },
          ancestors,
        ),
      );
    }
  });
  return out;
}
