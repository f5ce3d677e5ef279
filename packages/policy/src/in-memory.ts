/**
 * A whole policy stack in memory, for demos and tests: an org directory with its placements, a
 * policy store, the cached resolver, a PolicyService (audited into an in-memory sink) that
 * invalidates the resolver on every write, the built-in engine, and the enterprise policies
 * created through that service.
 */
import {
  InMemoryAuditSink,
  InMemoryOrgDirectory,
  InMemoryPolicyStore,
  type PolicyDomain,
} from '@agentgov/core';
import { BuiltinDecisionEngine } from './engines';
import { EffectivePolicyResolver } from './resolver';
import { PolicyService } from './service';

export interface InMemoryPolicyStackOptions {
  /** Where each user sits: `orgUnit` in the directory of `tenantId`. */
  placements: Iterable<{ tenantId: string; userId: string; orgUnit: string }>;
  /** Enterprise-scope policies (version 1.0.0) created by an `enterprise_admin` of each tenant. */
  enterprise?: Iterable<{
    tenantId: string;
    domain: PolicyDomain;
    name: string;
    content: string;
    changeReason: string;
  }>;
}

export interface InMemoryPolicyStack {
  store: InMemoryPolicyStore;
  directory: InMemoryOrgDirectory;
  resolver: EffectivePolicyResolver;
  service: PolicyService;
  engine: BuiltinDecisionEngine;
  /** The effective content of `domain` for a user (throws when it cannot be resolved). */
  effectiveContent(tenantId: string, domain: PolicyDomain, userId: string): Promise<unknown>;
}

export async function inMemoryPolicyStack(options: InMemoryPolicyStackOptions): Promise<InMemoryPolicyStack> {
  const store = new InMemoryPolicyStore();
  const directory = new InMemoryOrgDirectory();
  for (const p of options.placements) await directory.place(p.tenantId, p.userId, { orgUnit: p.orgUnit });
  const resolver = new EffectivePolicyResolver({ store, directory });
  const service = new PolicyService({
    store,
    directory,
    audit: new InMemoryAuditSink(),
    onChange: (t) => resolver.invalidate(t),
  });
  for (const p of options.enterprise ?? []) {
    const admin = { userId: 'admin', tenantId: p.tenantId, roles: ['enterprise_admin' as const] };
    const created = await service.create(admin, {
      scope: 'enterprise',
      scopeId: p.tenantId,
      domain: p.domain,
      name: p.name,
      version: '1.0.0',
      content: p.content,
      changeReason: p.changeReason,
    });
    if (created.isErr()) throw created.error;
  }
  return {
    store,
    directory,
    resolver,
    service,
    engine: new BuiltinDecisionEngine(resolver),
    async effectiveContent(tenantId, domain, userId) {
      const r = await resolver.resolve(tenantId, domain, { scope: 'user', scopeId: userId });
      if (r.isErr()) throw r.error;
      return r.value.content;
    },
  };
}
