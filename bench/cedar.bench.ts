/**
 * The built-in decision engine against Cedar (`@cedar-policy/cedar-wasm`) on the same
 * agent-to-agent policy hierarchy, in the setup most favourable to Cedar:
 *
 * - the Cedar policy set is pre-parsed once (`preparsePolicySet`, then `statefulIsAuthorized`);
 * - each call passes only the requester's own entities (user, team, org) — no directory lookups;
 * - the restrict-only hierarchy is written the natural Cedar way: one `permit` for the enterprise's
 *   `enabled`, and one `forbid` per restriction of each scope, scoped with `principal in …`.
 *
 * Before timing, both engines answer the same 1,000 random requests and every answer is compared:
 * a bench of two engines that disagree would measure nothing. The baseline is Cedar; the ratio of
 * the built-in rows is how many times faster they are.
 *
 * Fair by construction: every row cycles through the same 1,000 requests in the same order, and
 * each call builds its request (Cedar's and the plain `engine.decide` row's) afresh, so no cache
 * keyed by a request object can answer for it. The one thing the built-in engine keeps between
 * calls is what Cedar's pre-parsed policy set is to Cedar: each requester's effective policy
 * (resolver cache; one tenant and domain here, so its remembered last lookup always hits).
 */

import {
  type AgentToAgentInput,
  type CheckedDecisionRequest,
  CLASSIFICATION_LEVELS,
  EXCHANGE_TYPES,
  InMemoryAuditSink,
  InMemoryOrgDirectory,
  InMemoryPolicyStore,
  parseDecisionRequest,
} from '@agentgov/core';
import { BuiltinDecisionEngine, EffectivePolicyResolver, evaluate, PolicyService } from '@agentgov/policy';
import {
  type AuthorizationAnswer,
  type EntityJson,
  preparsePolicySet,
  statefulIsAuthorized,
} from '@cedar-policy/cedar-wasm/nodejs';
import { type BenchSuite, measure } from './lib';

const USERS = {
  alice: { org: 'eng', team: 'platform' },
  bob: { org: 'eng', team: 'web' },
  carol: { org: 'sales', team: 'emea' },
} as const;
type User = keyof typeof USERS;

/** The hierarchy, as agentgov policies (YAML content per scope). */
const POLICIES = [
  {
    scope: 'enterprise',
    scopeId: 'acme',
    content:
      'enabled: true\nmax_classification_shared: confidential\ncross_org:\n  confidential: deny\n  restricted: deny\n',
  },
  { scope: 'org', scopeId: 'sales', content: 'max_classification_shared: internal\n' },
  {
    scope: 'team',
    scopeId: 'platform',
    content: 'allowed_exchange_types: [information_query, commitment_request]\n',
  },
  { scope: 'user', scopeId: 'alice', content: 'max_classification_shared: public\n' },
] as const;

/** The same hierarchy in Cedar: levels as numbers (public 0 … restricted 3). */
const CEDAR_POLICIES = `
permit(principal in Org::"acme", action, resource)
  when { context.initiator_tenant == context.responder_tenant };
forbid(principal, action, resource) when { context.level > 2 };
forbid(principal, action, resource) when { context.cross_org && context.level >= 2 };
forbid(principal in Org::"sales", action, resource) when { context.level > 1 };
forbid(principal in Team::"platform", action == Action::"meeting_scheduling", resource);
forbid(principal == User::"alice", action, resource) when { context.level > 0 };
`;

const entitiesOf = (user: User): EntityJson[] => {
  const { org, team } = USERS[user];
  return [
    { uid: { type: 'User', id: user }, attrs: {}, parents: [{ type: 'Team', id: team }] },
    { uid: { type: 'Team', id: team }, attrs: {}, parents: [{ type: 'Org', id: org }] },
    { uid: { type: 'Org', id: org }, attrs: {}, parents: [{ type: 'Org', id: 'acme' }] },
  ];
};
const ENTITIES = Object.fromEntries((Object.keys(USERS) as User[]).map((u) => [u, entitiesOf(u)])) as Record<
  User,
  EntityJson[]
>;

interface Case {
  user: User;
  input: AgentToAgentInput;
}

/** A deterministic pseudo-random stream of requests (xorshift32), reproducible run to run. */
function cases(n: number): Case[] {
  let x = 0x2545f491;
  const next = (k: number) => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % k;
  };
  const users = Object.keys(USERS) as User[];
  const orgs = ['eng', 'sales'];
  return Array.from({ length: n }, () => {
    const user = users[next(users.length)]!;
    return {
      user,
      input: {
        exchange_type: EXCHANGE_TYPES[next(EXCHANGE_TYPES.length)]!,
        initiator_tenant_id: 'acme',
        responder_tenant_id: next(10) === 0 ? 'globex' : 'acme',
        initiator_org_unit: USERS[user].org,
        responder_org_unit: orgs[next(orgs.length)]!,
        classification_level: CLASSIFICATION_LEVELS[next(CLASSIFICATION_LEVELS.length)]!,
      },
    };
  });
}

function cedarDecide(c: Case): boolean {
  const answer: AuthorizationAnswer = statefulIsAuthorized({
    principal: { type: 'User', id: c.user },
    action: { type: 'Action', id: c.input.exchange_type },
    resource: { type: 'Agent', id: 'responder' },
    context: {
      initiator_tenant: c.input.initiator_tenant_id,
      responder_tenant: c.input.responder_tenant_id,
      cross_org: c.input.initiator_org_unit !== c.input.responder_org_unit,
      level: CLASSIFICATION_LEVELS.indexOf(c.input.classification_level),
    },
    preparsedPolicySetId: 'a2a',
    entities: ENTITIES[c.user],
  });
  if (answer.type !== 'success') throw new Error(JSON.stringify(answer.errors));
  return answer.response.decision === 'allow';
}

async function builtinEngine(): Promise<{
  engine: BuiltinDecisionEngine;
  resolver: EffectivePolicyResolver;
}> {
  const store = new InMemoryPolicyStore();
  const directory = InMemoryOrgDirectory.fromDefinitions({
    tenant: 'acme',
    orgs: {
      eng: { teams: { platform: ['alice'], web: ['bob'] } },
      sales: { teams: { emea: ['carol'] } },
    },
  });
  const resolver = new EffectivePolicyResolver({ store, directory });
  const service = new PolicyService({
    store,
    directory,
    audit: new InMemoryAuditSink(),
    onChange: (t) => resolver.invalidate(t),
  });
  const admin = { userId: 'root', tenantId: 'acme', roles: ['enterprise_admin'] as const };
  for (const p of POLICIES) {
    const r = await service.create(admin, {
      scope: p.scope,
      scopeId: p.scopeId,
      domain: 'agent-to-agent',
      name: `${p.scope} ${p.scopeId}`,
      version: '1.0.0',
      content: p.content,
      changeReason: 'bench',
    });
    if (r.isErr()) throw r.error;
  }
  return { engine: new BuiltinDecisionEngine(resolver), resolver };
}

const suites: BenchSuite[] = [
  {
    name: 'built-in engine vs Cedar (agent-to-agent, 4-level hierarchy, Cedar pre-parsed with only the requester’s entities)',
    baseline: 'cedar-wasm statefulIsAuthorized',
    async run() {
      const parsed = preparsePolicySet('a2a', { staticPolicies: CEDAR_POLICIES });
      if (parsed.type !== 'success') throw new Error(JSON.stringify(parsed.errors));
      const { engine, resolver } = await builtinEngine();
      const requests = cases(1000);
      // The pre-parsed form of the built-in engine: each requester's effective policy, computed once.
      const effective = {} as Record<User, unknown>;
      for (const user of Object.keys(USERS) as User[]) {
        const r = await resolver.resolve({
          tenantId: 'acme',
          domain: 'agent-to-agent',
          node: { scope: 'user', scopeId: user },
        });
        effective[user] = r._unsafeUnwrap().content;
      }
      const precomputed = (c: Case) => evaluate(effective[c.user], 'agent-to-agent', c.input, 'acme').allow;
      const builtin = async (c: Case) =>
        (
          await engine.decide({ domain: 'agent-to-agent', tenantId: 'acme', userId: c.user, input: c.input })
        )._unsafeUnwrap().allow;
      // A typed caller's form: each request checked once at its edge (`parseDecisionRequest`),
      // then decided without any check.
      const checked: CheckedDecisionRequest[] = requests.map((c) =>
        parseDecisionRequest({
          domain: 'agent-to-agent',
          tenantId: 'acme',
          userId: c.user,
          input: c.input,
        })._unsafeUnwrap(),
      );
      const builtinChecked = async (i: number) => (await engine.decide(checked[i]!))._unsafeUnwrap().allow;
      let allowed = 0;
      for (const [i, c] of requests.entries()) {
        const [ours, cedar] = [await builtin(c), cedarDecide(c)];
        if (ours !== cedar || (await builtinChecked(i)) !== cedar)
          throw new Error(`the engines disagree on ${JSON.stringify(c)}: ${ours} vs ${cedar}`);
        if (ours) allowed++;
      }
      if (allowed === 0 || allowed === requests.length)
        throw new Error('the cases do not exercise both answers');
      // One cursor per row, each cycling through the same 1,000 requests; one tinybench run per row
      // (the three in one run crashed V8 20's deoptimizer here: 'unreachable code').
      const cursor = () => {
        let i = 0;
        return () => requests[i++ % requests.length]!;
      };
      const [a, b, c] = [cursor(), cursor(), cursor()];
      let d = 0;
      const rows = [
        ...(await measure({
          'cedar-wasm statefulIsAuthorized': () => cedarDecide(a()),
        })),
        ...(await measure({
          'built-in evaluate (requester’s effective policy precomputed, sync)': () => precomputed(b()),
        })),
        ...(await measure({
          'built-in engine.decide (resolver cache hit, async)': () => builtin(c()),
        })),
        ...(await measure({
          'built-in engine.decide, request checked once by parseDecisionRequest': () =>
            builtinChecked(d++ % checked.length),
        })),
      ];
      for (const r of rows) r.note = `${r.note}; same 1,000 answers checked first (${allowed} allow)`;
      return rows;
    },
  },
];
export default suites;
