/**
 * The built-in engine's hot path (issue 26): a valid request is decided as it is — no zod parse,
 * no copy, nothing frozen — and a request core checked once (`parseDecisionRequest`) is not
 * checked again; a request its caller changes while the policy is read is checked again after the
 * read. The resolver's cache (nested per tenant, domain, scope) keeps its size bound.
 */
import {
  type DecisionRequest,
  DecisionRequestSchema,
  InMemoryAuditSink,
  InMemoryOrgDirectory,
  InMemoryPolicyStore,
  type PolicyStore,
  parseDecisionRequest,
  type ValidationError,
} from '@agentgov/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BuiltinDecisionEngine, EffectivePolicyResolver, PolicyService } from '../src/index';

afterEach(() => {
  vi.restoreAllMocks();
});

const admin = { userId: 'root', tenantId: 'acme', roles: ['enterprise_admin'] as const };

async function setup(store: PolicyStore = new InMemoryPolicyStore(), maxEntries?: number) {
  const directory = InMemoryOrgDirectory.fromDefinitions({
    tenant: 'acme',
    orgs: { eng: { teams: { platform: ['alice', 'bob', 'carol'] } } },
  });
  const resolver = new EffectivePolicyResolver({
    store,
    directory,
    ...(maxEntries === undefined ? {} : { maxEntries }),
  });
  const service = new PolicyService({
    store,
    directory,
    audit: new InMemoryAuditSink(),
    onChange: (t) => resolver.invalidate(t),
  });
  const created = await service.create(admin, {
    scope: 'enterprise',
    scopeId: 'acme',
    domain: 'data',
    name: 'data',
    version: '1.0.0',
    content: 'external_sharing_max: internal\n',
    changeReason: 'test',
  });
  expect(created.isOk()).toBe(true);
  return { engine: new BuiltinDecisionEngine(resolver), resolver };
}

const share = (userId: string, level = 'public') =>
  ({ domain: 'data', tenantId: 'acme', userId, input: { classification_level: level } }) as DecisionRequest;

describe('the built-in engine on its hot path', () => {
  it("decides a typed caller's valid request without zod, a copy or a freeze", async () => {
    const { engine } = await setup();
    await engine.decide(share('alice')); // fills the cache
    const parse = vi.spyOn(DecisionRequestSchema, 'safeParse');
    const request = share('alice');
    const decided = await engine.decide(request);
    expect(decided._unsafeUnwrap().allow).toBe(true);
    expect(parse).not.toHaveBeenCalled();
    expect(Object.isFrozen(request) || Object.isFrozen(request.input)).toBe(false);
    // The request the caller still holds is not remembered as checked: a change is seen.
    (request.input as { classification_level: string }).classification_level = 'nonsense';
    const changed = await engine.decide(request);
    expect(changed.isErr() && (changed.error as ValidationError).detail.map((f) => f.field)).toEqual([
      'input.classification_level',
    ]);
  });

  it('decides a request checked once by parseDecisionRequest without checking it again', async () => {
    const { engine } = await setup();
    const checked = parseDecisionRequest(share('alice', 'confidential'))._unsafeUnwrap();
    await engine.decide(checked);
    const parse = vi.spyOn(DecisionRequestSchema, 'safeParse');
    expect((await engine.decide(checked))._unsafeUnwrap().allow).toBe(false);
    expect(parse).not.toHaveBeenCalled();
  });

  it('checks again a request its caller changed while the policy was being read', async () => {
    const store = new InMemoryPolicyStore();
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let hold = false;
    const list = store.list.bind(store);
    vi.spyOn(store, 'list').mockImplementation(async (...args) => {
      if (hold) await held;
      return list(...args);
    });
    const { engine } = await setup(store);
    hold = true;
    const request = share('bob');
    const pending = engine.decide(request);
    (request.input as { classification_level: string }).classification_level = 'nonsense';
    release();
    const decided = await pending;
    expect(decided.isErr() && decided.error.code).toBe('invalid_type');
  });

  it('refuses an untyped request with neither userId nor scope (issue 23, item 11)', async () => {
    const { engine } = await setup();
    const untyped = JSON.parse(
      '{"domain":"data","tenantId":"acme","input":{"classification_level":"public"}}',
    );
    const decided = await engine.decide(untyped);
    expect(decided.isErr() && (decided.error as ValidationError).detail.map((f) => f.field)).toEqual([
      'userId',
    ]);
  });
});

describe('the effective-policy cache', () => {
  it('keeps at most maxEntries, dropping the oldest first, and counts again after an invalidation', async () => {
    const { resolver } = await setup(new InMemoryPolicyStore(), 2);
    const node = (scopeId: string) => ({ scope: 'user', scopeId }) as const;
    for (const user of ['alice', 'bob', 'carol']) {
      expect((await resolver.resolve({ tenantId: 'acme', domain: 'data', node: node(user) })).isOk()).toBe(
        true,
      );
    }
    expect(resolver.peek('acme', 'data', node('alice'))).toBeUndefined();
    expect(resolver.peek('acme', 'data', node('bob'))?.node).toEqual(node('bob'));
    expect(resolver.peek('acme', 'data', node('carol'))?.node).toEqual(node('carol'));
    resolver.invalidate('acme');
    expect(resolver.peek('acme', 'data', node('carol'))).toBeUndefined();
    for (const user of ['alice', 'bob'])
      await resolver.resolve({ tenantId: 'acme', domain: 'data', node: node(user) });
    // Two entries fit again: none was dropped.
    expect(resolver.peek('acme', 'data', node('alice'))).toBeDefined();
    expect(resolver.peek('acme', 'data', node('bob'))).toBeDefined();
  });
});
