/**
 * Effective-policy resolution over the ports: the chain comes from the OrgDirectory, the active
 * policies from the PolicyStore; the result is cached per (tenant, domain, node) and invalidated
 * when a policy of the tenant is written.
 */
import {
  type CallOptions,
  GovernanceError,
  knowsNode,
  type OrgDirectory,
  type Policy,
  type PolicyDomain,
  type PolicyStore,
  type ScopeRef,
  toGovernanceError,
} from '@agentgov/core';
import { err, ok, type Result } from 'neverthrow';
import { parsePolicyContent } from './content';
import type { PolicyContentByDomain } from './domains';
import { type ChainLevel, effectiveAlong } from './hierarchy';

export interface EffectivePolicy<D extends PolicyDomain = PolicyDomain> {
  tenantId: string;
  domain: D;
  /** The node the policy is effective for and its chain, enterprise first. */
  node: ScopeRef;
  chain: ScopeRef[];
  content: PolicyContentByDomain[D];
  /** The active policies that were combined, enterprise first. */
  sources: Array<Pick<Policy, 'id' | 'scope' | 'scopeId' | 'name' | 'version'>>;
}

const refKey = (ref: ScopeRef): string => `${ref.scope}:${ref.scopeId}`;

/** Parses a stored policy; a row whose content no longer parses is an internal error (fail closed). */
export function parseStored(policy: Policy): Result<unknown, GovernanceError> {
  const parsed = parsePolicyContent(policy.domain, policy.content);
  return parsed.isOk()
    ? ok(parsed.value)
    : err(
        new GovernanceError('internal_error', `stored policy ${policy.id} has invalid content`, {
          cause: parsed.error,
          detail: parsed.error.detail,
        }),
      );
}

/**
 * The chain of `node` (enterprise first) with the active policies of `domain` at each level.
 * `override` replaces or adds one policy (a write being validated); `exclude` drops one.
 */
export async function loadChain(
  ports: { store: PolicyStore; directory: OrgDirectory },
  tenantId: string,
  domain: PolicyDomain,
  node: ScopeRef,
  options: { override?: Policy; exclude?: string } = {},
): Promise<Result<{ chain: ChainLevel[]; policies: Policy[] }, GovernanceError>> {
  try {
    const refs = await ports.directory.ancestry(tenantId, node);
    const stored = await ports.store.list(tenantId, { domain, status: 'active', targets: refs });
    const policies = stored.filter((p) => p.id !== options.exclude && p.id !== options.override?.id);
    const o = options.override;
    if (o && o.status === 'active' && refs.some((r) => refKey(r) === refKey(o))) policies.push(o);
    const byRef = new Map<string, ChainLevel>(refs.map((ref) => [refKey(ref), { ref, policies: [] }]));
    for (const p of policies) {
      const parsed = parseStored(p);
      if (parsed.isErr()) return err(parsed.error);
      const level = byRef.get(refKey(p));
      if (level)
        (level.policies as { id: string; content: unknown }[]).push({ id: p.id, content: parsed.value });
    }
    return ok({ chain: refs.map((r) => byRef.get(refKey(r)) as ChainLevel), policies });
  } catch (error) {
    return err(toGovernanceError(error));
  }
}

export interface EffectivePolicyResolverOptions {
  store: PolicyStore;
  directory: OrgDirectory;
  /** Most cached effective policies across tenants (default 10 000); the oldest go first. */
  maxEntries?: number;
  /**
   * How long a cached effective policy is trusted (default: until invalidated). Writes through
   * this process invalidate at once; set this when other processes write the same policy store,
   * so their writes are seen within `maxAgeMs`.
   */
  maxAgeMs?: number;
}

/** What `resolve` is asked: the effective policy of `domain` for `node` in `tenantId`. */
export interface ResolveQuery<D extends PolicyDomain = PolicyDomain> {
  tenantId: string;
  domain: D;
  /** The user, team or org (or the tenant's enterprise) the policy is effective for. */
  node: ScopeRef;
}

/** The error `resolve` answers for a user, team or org the org directory does not know. */
export const unknownNodeError = (tenantId: string, node: ScopeRef): GovernanceError =>
  new GovernanceError(
    'NOT_FOUND',
    `${node.scope} ${node.scopeId} is not in the org directory of tenant ${tenantId}`,
    { detail: { tenantId, scope: node.scope, scopeId: node.scopeId } },
  );

export class EffectivePolicyResolver {
  readonly #store: PolicyStore;
  readonly #directory: OrgDirectory;
  readonly #max: number;
  /**
   * tenant → domain → scope → scope id → cached policy. Nested maps keyed by the request's own
   * strings: a lookup hashes no new string (a composite key would be built and hashed per call).
   */
  readonly #cache = new Map<string, TenantCache>();
  readonly #maxAge: number;
  #size = 0;
  /**
   * `peekCached`'s last lookup: the cache's map of (tenant, domain, scope). Forgotten whenever a
   * map of the cache is dropped or added, so it never points to a map the cache no longer holds.
   */
  #last: Map<string, CacheEntry> | undefined;
  #lastTenant = '';
  #lastDomain = '';
  #lastScope = '';
  /** Bumped on invalidation so a resolve that raced a write does not cache a stale result. */
  readonly #generation = new Map<string, number>();
  #epoch = 0;

  constructor(options: EffectivePolicyResolverOptions) {
    this.#store = options.store;
    this.#directory = options.directory;
    this.#max = options.maxEntries ?? 10_000;
    this.#maxAge = options.maxAgeMs ?? Number.POSITIVE_INFINITY;
  }

  /** The cached effective policy, if any (no I/O). */
  peek<D extends PolicyDomain>(tenantId: string, domain: D, node: ScopeRef): EffectivePolicy<D> | undefined {
    return this.peekCached(tenantId, domain, node.scope, node.scopeId)?.policy as
      | EffectivePolicy<D>
      | undefined;
  }

  /**
   * `peek` for a decision's hot path: the node as `scope` and `scopeId` (no ScopeRef), and the
   * cached policy with the ids of its sources (`policyIds`, enterprise first; shared — copy it
   * before handing it out). The lookup of the last (tenant, domain, scope) asked is remembered,
   * so a run of decisions in one tenant and domain costs one map lookup each.
   */
  peekCached(
    tenantId: string,
    domain: PolicyDomain,
    scope: ScopeRef['scope'],
    scopeId: string,
  ): CachedEffectivePolicy | undefined {
    let byId = this.#last;
    if (
      byId === undefined ||
      tenantId !== this.#lastTenant ||
      domain !== this.#lastDomain ||
      scope !== this.#lastScope
    ) {
      byId = this.#cache.get(tenantId)?.get(domain)?.get(scope);
      if (byId === undefined) return undefined;
      this.#lastTenant = tenantId;
      this.#lastDomain = domain;
      this.#lastScope = scope;
      this.#last = byId;
    }
    const hit = byId.get(scopeId);
    // Without maxAgeMs nothing expires: no clock read on the hot path.
    if (!hit || (hit.expires !== Number.POSITIVE_INFINITY && hit.expires <= performance.now()))
      return undefined;
    return hit;
  }

  /**
   * The effective policy of `query.domain` for `query.node`: the meet of the active policies on
   * its chain. A node the org directory does not know is `err(NOT_FOUND)` (never a policy
   * computed on a partial chain); a store failure or a stored policy that no longer parses is
   * `err(internal_error)`.
   */
  async resolve<D extends PolicyDomain>(
    query: ResolveQuery<D>,
    options?: CallOptions,
  ): Promise<Result<EffectivePolicy<D>, GovernanceError>>;
  /** @deprecated Positional form; pass a `ResolveQuery` object. */
  async resolve<D extends PolicyDomain>(
    tenantId: string,
    domain: D,
    node: ScopeRef,
    options?: CallOptions,
  ): Promise<Result<EffectivePolicy<D>, GovernanceError>>;
  async resolve<D extends PolicyDomain>(
    first: ResolveQuery<D> | string,
    second?: D | CallOptions,
    third?: ScopeRef,
  ): Promise<Result<EffectivePolicy<D>, GovernanceError>> {
    const { tenantId, domain, node } =
      typeof first === 'string' ? { tenantId: first, domain: second as D, node: third as ScopeRef } : first;
    const hit = this.peek(tenantId, domain, node);
    if (hit) return ok(hit);
    const generation = this.#generation.get(tenantId) ?? 0;
    const epoch = this.#epoch;
    try {
      if (!(await knowsNode(this.#directory, tenantId, node))) return err(unknownNodeError(tenantId, node));
    } catch (error) {
      return err(toGovernanceError(error));
    }
    const loaded = await loadChain(
      { store: this.#store, directory: this.#directory },
      tenantId,
      domain,
      node,
    );
    if (loaded.isErr()) return err(loaded.error);
    const { chain, policies } = loaded.value;
    const order = new Map(chain.map((l, i) => [refKey(l.ref), i]));
    const effective: EffectivePolicy<D> = {
      tenantId,
      domain,
      node,
      chain: chain.map((l) => l.ref),
      content: effectiveAlong(domain, chain),
      sources: policies
        .map((p) => ({ id: p.id, scope: p.scope, scopeId: p.scopeId, name: p.name, version: p.version }))
        .sort((a, b) => (order.get(refKey(a)) ?? 0) - (order.get(refKey(b)) ?? 0)),
    };
    if ((this.#generation.get(tenantId) ?? 0) === generation && this.#epoch === epoch)
      this.#put(tenantId, domain, node, effective as EffectivePolicy);
    return ok(effective);
  }

  /** Drops the cached policies of a tenant (or of every tenant). */
  invalidate(tenantId?: string): void {
    this.#last = undefined;
    if (tenantId === undefined) {
      this.#epoch += 1;
      this.#cache.clear();
      this.#size = 0;
      return;
    }
    this.#generation.set(tenantId, (this.#generation.get(tenantId) ?? 0) + 1);
    const t = this.#cache.get(tenantId);
    if (t) {
      this.#size -= entriesOf(t);
      this.#cache.delete(tenantId);
    }
  }

  #put(tenantId: string, domain: string, node: ScopeRef, value: EffectivePolicy): void {
    this.#last = undefined;
    if (this.#size >= this.#max) this.#evictOldest();
    let t = this.#cache.get(tenantId);
    if (!t) {
      t = new Map();
      this.#cache.set(tenantId, t);
    }
    let byScope = t.get(domain);
    if (!byScope) {
      byScope = new Map();
      t.set(domain, byScope);
    }
    let byId = byScope.get(node.scope);
    if (!byId) {
      byId = new Map();
      byScope.set(node.scope, byId);
    }
    if (!byId.has(node.scopeId)) this.#size += 1;
    byId.set(node.scopeId, {
      policy: value,
      policyIds: value.sources.map((p) => p.id),
      expires: performance.now() + this.#maxAge,
    });
  }

  /** Drops the oldest entry of the oldest tenant (and the maps it leaves empty). */
  #evictOldest(): void {
    const [tenantId, t] = this.#cache.entries().next().value ?? [];
    if (tenantId === undefined || !t) return;
    const [domain, byScope] = t.entries().next().value ?? [];
    const [scope, byId] = byScope?.entries().next().value ?? [];
    const first = byId?.keys().next().value;
    if (first !== undefined && byId) {
      byId.delete(first);
      this.#size -= 1;
    }
    if (byId?.size === 0 && scope !== undefined) byScope?.delete(scope);
    if (byScope?.size === 0 && domain !== undefined) t.delete(domain);
    if (t.size === 0) this.#cache.delete(tenantId);
  }
}

/** A cached effective policy and the ids of its sources, as `peekCached` answers it. */
export interface CachedEffectivePolicy {
  readonly policy: EffectivePolicy;
  /** `policy.sources`' ids, enterprise first: one array shared by every reader (never change it). */
  readonly policyIds: readonly string[];
}
interface CacheEntry extends CachedEffectivePolicy {
  expires: number;
}
type TenantCache = Map<string, Map<string, Map<string, CacheEntry>>>;

const entriesOf = (t: TenantCache): number => {
  let n = 0;
  for (const byScope of t.values()) for (const byId of byScope.values()) n += byId.size;
  return n;
};
