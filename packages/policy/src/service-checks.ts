/**
 * The checks the policy service (`./service`) makes around a write, each a function of the ports
 * it reads: an empty content refused, whether a caller may see a scope (asking the directory only
 * for what the answer still needs), and the write-time hierarchy check — the policy against its
 * ancestors' effective value, then every active policy of the domain below its node against a
 * chain that includes the new content, all violations reported at once.
 */
import {
  GovernanceError,
  type HierarchyViolation,
  type OrgDirectory,
  type Policy,
  PolicyHierarchyViolationError,
  type PolicyStore,
  SCOPE_DEPTH,
  type ScopeRef,
  ValidationError,
} from '@agentgov/core';
import { err, ok, type Result } from 'neverthrow';
import { violationsAgainst } from './hierarchy';
import { canSee, type Principal, principalChain } from './rbac';
import { loadChain, parseStored } from './resolver';

export const refOf = (p: Pick<Policy, 'scope' | 'scopeId'>): ScopeRef => ({
  scope: p.scope,
  scopeId: p.scopeId,
});
const sameRef = (a: ScopeRef, b: ScopeRef): boolean => a.scope === b.scope && a.scopeId === b.scopeId;

/**
 * `canSee`, asking the directory only for what the answer still needs: `canSee` can only turn
 * true with more chain, so it is asked with the chains known so far (none, then the caller's own,
 * then the target's too), and each true answer is final. An enterprise_admin costs no lookup.
 */
export async function visible(
  directory: OrgDirectory,
  principal: Principal,
  target: ScopeRef,
): Promise<boolean> {
  if (canSee(principal, target, [], [])) return true;
  const own = await principalChain(directory, principal);
  if (canSee(principal, target, [], own)) return true;
  return canSee(principal, target, await directory.ancestry(principal.tenantId, target), own);
}

/** An empty (or blank, or comments-only) content says nothing: refused rather than stored as `{}`. */
export function refuseEmpty(content: string): Result<void, ValidationError> {
  const meaningful = content
    .split(/\r?\n/)
    .some((line) => line.trim() !== '' && !line.trim().startsWith('#'));
  return meaningful ? ok(undefined) : err(ValidationError.invalid('content', 'the policy content is empty'));
}

/**
 * The policy against its ancestors' effective value, then every active policy of the domain
 * below its node against a chain that includes the new content.
 */
export async function checkHierarchy(
  ports: { store: PolicyStore; directory: OrgDirectory },
  policy: Policy,
  content: unknown,
): Promise<Result<void, PolicyHierarchyViolationError | GovernanceError>> {
  const ref = refOf(policy);
  const own = await loadChain(ports, policy.tenantId, policy.domain, ref, { exclude: policy.id });
  if (own.isErr()) return err(own.error);
  const ancestors = own.value.chain.filter((l) => !sameRef(l.ref, ref));
  const violations: HierarchyViolation[] = violationsAgainst(policy.domain, { ref, content }, ancestors);

  const active = await ports.store.list(policy.tenantId, { domain: policy.domain, status: 'active' });
  const below = new Map<string, { ref: ScopeRef; policies: Policy[] }>();
  for (const other of active) {
    if (other.id === policy.id || SCOPE_DEPTH[other.scope] <= SCOPE_DEPTH[policy.scope]) continue;
    const chain = await ports.directory.ancestry(policy.tenantId, refOf(other));
    if (!chain.some((r) => sameRef(r, ref))) continue;
    const key = `${other.scope}:${other.scopeId}`;
    const group = below.get(key) ?? { ref: refOf(other), policies: [] };
    group.policies.push(other);
    below.set(key, group);
  }
  for (const group of below.values()) {
    const chain = await loadChain(ports, policy.tenantId, policy.domain, group.ref, { override: policy });
    if (chain.isErr()) return err(chain.error);
    const ancestorsOfGroup = chain.value.chain.filter((l) => !sameRef(l.ref, group.ref));
    for (const other of group.policies) {
      const parsed = parseStored(other);
      if (parsed.isErr()) return err(parsed.error);
      violations.push(
        ...violationsAgainst(
          policy.domain,
          { ref: group.ref, content: parsed.value, policyId: other.id },
          ancestorsOfGroup,
        ),
      );
    }
  }
  if (violations.length === 0) return ok(undefined);
  const own_ = violations.filter((v) => v.policyId === undefined).length;
  const message =
    own_ > 0
      ? `Policy content violates hierarchy constraints (${violations.length} violation${violations.length > 1 ? 's' : ''})`
      : `The change would make ${violations.length} descendant polic${violations.length > 1 ? 'ies' : 'y'} violate the hierarchy`;
  return err(new PolicyHierarchyViolationError(violations, message));
}

/** What makes two policies the same policy: a re-POST of it (a retry) creates nothing. */
type Identity = Pick<Policy, 'scope' | 'scopeId' | 'domain' | 'name' | 'version' | 'content'>;

/** The active policy with the same scope, domain, name, version and content, if any. */
export async function activeIdentical(
  store: PolicyStore,
  tenantId: string,
  p: Identity,
): Promise<Policy | undefined> {
  const active = await store.list(tenantId, { domain: p.domain, status: 'active' });
  return active.find(
    (a) =>
      a.scope === p.scope &&
      a.scopeId === p.scopeId &&
      a.name === p.name &&
      a.version === p.version &&
      a.content === p.content,
  );
}

/** 409 POLICY_ALREADY_ACTIVE, naming the active identical policy. */
export const alreadyActive = (id: string): GovernanceError =>
  new GovernanceError('POLICY_ALREADY_ACTIVE', undefined, { detail: { id } });
