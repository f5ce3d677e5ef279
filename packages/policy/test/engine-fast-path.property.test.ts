/**
 * The built-in engine's fast path (issue 26: a ready request — `isReadyDecisionRequest` — decided
 * on `peekCached`, the resolver remembering its last lookup) against the checked path: for any
 * run of policy writes, cache invalidations and requests (valid, near-valid, other tenants,
 * unknown users, the enterprise scope), deciding a plain request gives the same answer as deciding
 * the request `parseDecisionRequest` (zod) checked, and as an engine without any cache deciding it
 * on the store as it is now — so neither the shortcut past zod nor the remembered lookup changes a
 * decision, and no write is missed.
 */
import {
  CLASSIFICATION_LEVELS,
  type DecisionRequest,
  EXCHANGE_TYPES,
  FEATURE_NAMES,
  InMemoryAuditSink,
  InMemoryOrgDirectory,
  InMemoryPolicyStore,
  parseDecisionRequest,
} from '@agentgov/core';
import fc from 'fast-check';
import { err } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import { BuiltinDecisionEngine, EffectivePolicyResolver, PolicyService } from '../src/index';

const TENANTS = ['acme', 'globex'] as const;
const USERS = ['alice', 'bob', 'carol', 'ghost'] as const;

/** A valid value, or one close to it that is not. */
const near = <T>(valid: fc.Arbitrary<T>) =>
  fc.oneof(
    { weight: 8, arbitrary: valid },
    { weight: 1, arbitrary: fc.constantFrom('', 7, null, undefined, 'nonsense') },
  );
const level = fc.constantFrom(...CLASSIFICATION_LEVELS);
const tenant = fc.constantFrom(...TENANTS);
const inputs = {
  'agent-to-agent': fc.record({
    exchange_type: near(fc.constantFrom(...EXCHANGE_TYPES)),
    initiator_tenant_id: tenant,
    responder_tenant_id: fc.oneof({ weight: 5, arbitrary: fc.constant('acme') }, tenant),
    initiator_org_unit: fc.constantFrom('eng', 'sales'),
    responder_org_unit: fc.constantFrom('eng', 'sales'),
    classification_level: near(level),
  }),
  data: fc.record(
    { classification_level: near(level), destination: fc.constantFrom('x', 'partner') },
    { requiredKeys: ['classification_level'] },
  ),
  features: fc.record({ feature: near(fc.constantFrom(...FEATURE_NAMES)) }),
  models: fc.record({
    provider: fc.constantFrom('openai', 'local'),
    model: fc.constant('m'),
    classification_level: level,
  }),
  actions: fc.record({ tool: fc.constantFrom('deploy', 'search') }),
};
type Domain = keyof typeof inputs;
const DOMAINS = Object.keys(inputs) as Domain[];

/** A request, mostly in the domain `focus` and for acme (runs that hit the cache, then miss it). */
const requestIn = (focus: Domain) =>
  fc
    .record({
      domain: fc.oneof({ weight: 4, arbitrary: fc.constant(focus) }, fc.constantFrom(...DOMAINS)),
      tenantId: fc.oneof({ weight: 6, arbitrary: fc.constant('acme') }, tenant, fc.constant('')),
      who: fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom(...USERS) },
        { weight: 1, arbitrary: fc.constantFrom('enterprise' as const, 'both' as const) },
      ),
      extra: fc.boolean(),
    })
    .chain(({ domain, tenantId, who, extra }) =>
      inputs[domain].map((input) => {
        const r: Record<string, unknown> = { domain, tenantId, input };
        if (who === 'enterprise' || who === 'both') r.scope = 'enterprise';
        if (who !== 'enterprise') r.userId = who === 'both' ? 'alice' : who;
        if (extra) r.role = 'admin';
        return r;
      }),
    );

const CONTENTS: Record<Domain, string[]> = {
  'agent-to-agent': [
    'enabled: true\n',
    'enabled: true\nmax_classification_shared: confidential\ncross_org:\n  confidential: deny\n',
    'max_classification_shared: public\n',
    'allowed_exchange_types: [information_query]\n',
  ],
  data: ['external_sharing_max: internal\n', 'external_sharing_max: public\n', 'denied_destinations: [x]\n'],
  features: ['briefings: true\n', 'web_ui: false\n'],
  models: ['allowed_providers: [openai]\n'],
  actions: ['default_autonomy: notify\n', 'blocked: [deploy]\n'],
};
const NODES = [
  { scope: 'enterprise', scopeId: 'acme' },
  { scope: 'org', scopeId: 'eng' },
  { scope: 'team', scopeId: 'platform' },
  { scope: 'user', scopeId: 'alice' },
] as const;

const commandIn = (focus: Domain) =>
  fc.oneof(
    { weight: 6, arbitrary: requestIn(focus).map((r) => ({ kind: 'decide' as const, request: r })) },
    {
      weight: 2,
      arbitrary: fc
        .record({
          domain: fc.oneof({ weight: 3, arbitrary: fc.constant(focus) }, fc.constantFrom(...DOMAINS)),
          node: fc.constantFrom(...NODES),
          tenantId: fc.oneof({ weight: 3, arbitrary: fc.constant('acme') }, tenant),
          pick: fc.nat(),
        })
        .map((w) => ({ kind: 'write' as const, ...w })),
    },
    {
      weight: 1,
      arbitrary: fc.option(tenant).map((t) => ({ kind: 'invalidate' as const, tenantId: t ?? undefined })),
    },
  );
const commands = fc
  .constantFrom(...DOMAINS)
  .chain((focus) => fc.array(commandIn(focus), { minLength: 1, maxLength: 30 }));

/** A decide Result as comparable data: the decision, or the error's code, message and fields. */
const outcome = (r: Awaited<ReturnType<BuiltinDecisionEngine['decide']>>) =>
  r.isOk()
    ? { decision: r.value }
    : {
        code: r.error.code,
        message: r.error.message,
        detail: 'detail' in r.error ? r.error.detail : undefined,
      };

function setup() {
  const store = new InMemoryPolicyStore();
  const directory = InMemoryOrgDirectory.fromDefinitions(
    { tenant: 'acme', orgs: { eng: { teams: { platform: ['alice', 'bob'] } }, sales: { users: ['carol'] } } },
    { tenant: 'globex', orgs: { eng: { teams: { platform: ['alice'] } } } },
  );
  const resolver = new EffectivePolicyResolver({ store, directory });
  const service = new PolicyService({
    store,
    directory,
    audit: new InMemoryAuditSink(),
    onChange: (t) => resolver.invalidate(t),
  });
  return { store, directory, resolver, service, engine: new BuiltinDecisionEngine(resolver) };
}

describe("the built-in engine's fast path", () => {
  it('decides as the zod-checked path and as an engine without a cache, across writes and invalidations', async () => {
    let decided = 0;
    let written = 0;
    await fc.assert(
      fc.asyncProperty(commands, async (run) => {
        const { store, directory, resolver, service, engine } = setup();
        let n = 0;
        for (const c of run) {
          if (c.kind === 'write') {
            const contents = CONTENTS[c.domain];
            n += 1;
            const w = await service.create(
              { userId: 'root', tenantId: c.tenantId, roles: ['enterprise_admin'] },
              {
                scope: c.node.scope,
                scopeId: c.node.scope === 'enterprise' ? c.tenantId : c.node.scopeId,
                domain: c.domain,
                name: `p${n}`,
                version: '1.0.0',
                content: contents[c.pick % contents.length] as string,
                changeReason: 'property',
              },
            );
            // A write the hierarchy refuses changes nothing; one it takes invalidates the cache.
            if (w.isOk()) written += 1;
          } else if (c.kind === 'invalidate') {
            resolver.invalidate(c.tenantId);
          } else {
            const plain = structuredClone(c.request) as unknown as DecisionRequest;
            const fast = outcome(await engine.decide(plain));
            const parsed = parseDecisionRequest(structuredClone(c.request));
            const checked = parsed.isOk()
              ? outcome(await engine.decide(parsed.value))
              : outcome(err(parsed.error));
            const uncached = new BuiltinDecisionEngine(new EffectivePolicyResolver({ store, directory }));
            const fresh = outcome(
              await uncached.decide(structuredClone(c.request) as unknown as DecisionRequest),
            );
            expect(fast).toEqual(checked);
            expect(fast).toEqual(fresh);
            if ('decision' in fast) decided += 1;
          }
        }
      }),
      { numRuns: 200 },
    );
    // The runs reach decisions (not only refusals) often enough for the property to say something.
    expect(decided).toBeGreaterThan(200);
    expect(written).toBeGreaterThan(100);
  });
});
