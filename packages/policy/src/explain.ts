/**
 * "Why was this denied?": a decision for a user with its trace along the chain enterprise → org →
 * team → user — the effective policy (the meet of every active policy on the chain), what each
 * policy contributed to it, the decision the chain would give after each level, and the policy
 * that decided. Built from the same parts as the built-in engine (`loadChain`, `meetContents`,
 * `decideOnEffective`), so the decision it explains is the one the built-in engine makes.
 */
import {
  type Decision,
  type DecisionRequest,
  type GovernanceError,
  knowsNode,
  type OrgDirectory,
  type Policy,
  type PolicyStore,
  parseDecisionRequest,
  type ScopeRef,
  toGovernanceError,
} from '@agentgov/core';
import { err, ok, type Result } from 'neverthrow';
import { DOMAIN_LATTICES } from './domains';
import { decideOnEffective } from './engines';
import { meetContents } from './hierarchy';
import { childNode, isLeaf, type LatticeNode, leq } from './lattice';
import { loadChain, unknownNodeError } from './resolver';

/** One key a policy set for the first time on the chain, or made stricter than everything above it. */
export interface Contribution {
  /** The key's path, dotted (`actions.send_mail`, `max_rounds.commitment_request`). */
  key: string;
  /** The key's effective value once the policy is combined. */
  value: unknown;
}

export type PolicyRef = Pick<Policy, 'id' | 'scope' | 'scopeId' | 'name' | 'version'>;

/** One level of the chain, its active policies of the domain, and the decision after it. */
export interface TraceLevel {
  scope: ScopeRef['scope'];
  scopeId: string;
  /** The level's active policies (none: the level inherits), each with what it contributed. */
  policies: Array<PolicyRef & { contributed: Contribution[] }>;
  /** The decision had the chain ended with this level. */
  decision: Pick<Decision, 'allow' | 'reason'>;
}

export interface DecisionExplanation {
  userId: string;
  domain: DecisionRequest['domain'];
  /** The effective policy: the meet of every active policy on the chain. */
  effective: Record<string, unknown>;
  /** The decision (the built-in engine's, on the effective policy). */
  decision: Decision;
  /**
   * The policy that decided: the last one on the chain that changed the decision (its allow,
   * reason or constraints). `null`: no policy changed it — the defaults decided.
   */
  decidedBy: PolicyRef | null;
  /** Enterprise first. */
  trace: TraceLevel[];
}

const isDict = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The leaves of `after` (= `before` ⊓ a policy) that the policy set for the first time or made
 * stricter: `before` is absent there, or not ⊑ `after` (the lattice's own order).
 */
function contributions(
  node: LatticeNode,
  before: unknown,
  after: unknown,
  path: string[] = [],
): Contribution[] {
  if (after === undefined) return [];
  if (!isLeaf(node)) {
    if (!isDict(after)) return [];
    return Object.entries(after).flatMap(([k, v]) => {
      const child = childNode(node, k);
      return child ? contributions(child, isDict(before) ? before[k] : undefined, v, [...path, k]) : [];
    });
  }
  return before === undefined || !leq(node, before, after) ? [{ key: path.join('.'), value: after }] : [];
}

const sameDecision = (a: Decision, b: Decision): boolean =>
  a.allow === b.allow &&
  a.reason === b.reason &&
  JSON.stringify(a.constraints) === JSON.stringify(b.constraints);

/**
 * Explains the decision of `request` (for `request.userId`) from the active policies on the
 * user's chain. A user the org directory does not know is `err(NOT_FOUND)`; a malformed request
 * `err(ValidationError)`; a store failure or a stored policy that no longer parses
 * `err(internal_error)` (the engine denies in that case; there is nothing to explain).
 */
export async function explainDecision(
  ports: { store: PolicyStore; directory: OrgDirectory },
  request: DecisionRequest & { userId: string },
): Promise<Result<DecisionExplanation, GovernanceError>> {
  const parsed = parseDecisionRequest(request);
  if (parsed.isErr()) return err(parsed.error);
  const r = parsed.value;
  const node: ScopeRef = { scope: 'user', scopeId: request.userId };
  try {
    if (!(await knowsNode(ports.directory, r.tenantId, node))) return err(unknownNodeError(r.tenantId, node));
  } catch (error) {
    return err(toGovernanceError(error));
  }
  const loaded = await loadChain(ports, r.tenantId, r.domain, node);
  if (loaded.isErr()) return err(loaded.error);
  const { chain, policies } = loaded.value;
  const byId = new Map(policies.map((p) => [p.id, p]));
  const root = DOMAIN_LATTICES[r.domain];

  let effective: unknown = meetContents(r.domain, []);
  const ids: string[] = [];
  let decision = decideOnEffective(r, effective, []);
  let decidedBy: PolicyRef | null = null;
  const trace: TraceLevel[] = [];
  for (const level of chain) {
    const out: TraceLevel['policies'] = [];
    for (const p of level.policies) {
      const stored = byId.get(p.id as string) as Policy;
      const after = meetContents(r.domain, [effective, p.content]);
      const ref: PolicyRef = {
        id: stored.id,
        scope: stored.scope,
        scopeId: stored.scopeId,
        name: stored.name,
        version: stored.version,
      };
      out.push({ ...ref, contributed: contributions(root, effective, after) });
      effective = after;
      ids.push(stored.id);
      const next = decideOnEffective(r, effective, [...ids]);
      if (!sameDecision(decision, next)) decidedBy = ref;
      decision = next;
    }
    trace.push({
      scope: level.ref.scope,
      scopeId: level.ref.scopeId,
      policies: out,
      decision: { allow: decision.allow, reason: decision.reason },
    });
  }
  return ok({
    userId: request.userId,
    domain: r.domain,
    effective: effective as Record<string, unknown>,
    decision,
    decidedBy,
    trace,
  });
}
