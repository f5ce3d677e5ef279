/**
 * `pnpm bench policy`: the built-in engine's decision on a precomputed effective policy, and a
 * hierarchy validation of a 4-level chain (enterprise → org → team → user). Baselines: a decision
 * made by plain object-property lookups on the same input, and JSON.parse of the same documents.
 */
import {
  type AgentToAgentInput,
  InMemoryAuditSink,
  InMemoryOrgDirectory,
  InMemoryPolicyStore,
  type IntegrationsInput,
} from '@agentgov/core';
import {
  type AgentToAgentPolicy,
  BuiltinDecisionEngine,
  type ChainLevel,
  EffectivePolicyResolver,
  effectiveAlong,
  evaluate,
  type IntegrationsPolicy,
  PolicyService,
  parsePolicyContent,
  validateChain,
} from '@agentgov/policy';
import { type BenchSuite, measure } from './lib';

const A2A_YAML = {
  enterprise: `enabled: true
allowed_exchange_types: [information_query, meeting_scheduling, commitment_request]
max_classification_shared: internal
max_rounds: {information_query: 3, meeting_scheduling: 2, commitment_request: 1}
cross_org: {confidential: deny, restricted: deny}
`,
  org: 'allowed_exchange_types: [information_query, meeting_scheduling]\nmax_rounds: {meeting_scheduling: 1}\n',
  team: 'max_rounds: {information_query: 2}\ncross_org: {internal: deny}\n',
  user: 'max_classification_shared: public\nallowed_exchange_types: [information_query]\n',
};
const INTEGRATIONS_YAML = `actions:
  tracker_update: {allowed: true, target_systems: [tracker], sources: [work-tracking]}
  tracker_transition: {allowed: true, target_systems: [tracker], triggers: [pr_merged]}
`;

const a2aInput: AgentToAgentInput = {
  exchange_type: 'information_query',
  initiator_tenant_id: 'acme',
  responder_tenant_id: 'acme',
  initiator_org_unit: 'eng',
  responder_org_unit: 'sales',
  classification_level: 'internal',
};
const a2aJson = JSON.stringify(a2aInput);
const integrationsInput: IntegrationsInput = {
  action: 'tracker_update',
  context: { targetSystem: 'tracker', additional: { source: 'work-tracking' } },
};

const parse = (yaml: string) => parsePolicyContent('agent-to-agent', yaml)._unsafeUnwrap();
const refs = {
  enterprise: { scope: 'enterprise', scopeId: 'acme' },
  org: { scope: 'org', scopeId: 'eng' },
  team: { scope: 'team', scopeId: 'platform' },
  user: { scope: 'user', scopeId: 'alice' },
} as const;
const chain: ChainLevel[] = (['enterprise', 'org', 'team', 'user'] as const).map((k) => ({
  ref: refs[k],
  policies: [{ id: k, content: parse(A2A_YAML[k]) }],
}));
const effective = effectiveAlong('agent-to-agent', chain) as AgentToAgentPolicy;
const integrations = parsePolicyContent(
  'integrations',
  INTEGRATIONS_YAML,
)._unsafeUnwrap() as IntegrationsPolicy;
const chainJson = JSON.stringify(chain.map((l) => l.policies[0]?.content));

// Baseline: the same decision hard-coded as property lookups on a flat, pre-digested object.
const flat = {
  enabled: true,
  types: { information_query: true, meeting_scheduling: false, commitment_request: false } as Record<
    string,
    boolean
  >,
  crossOrgDeny: { public: false, internal: true, confidential: true, restricted: true } as Record<
    string,
    boolean
  >,
  rounds: { information_query: 2, meeting_scheduling: 1, commitment_request: 1 } as Record<string, number>,
  order: { public: 0, internal: 1, confidential: 2, restricted: 3 } as Record<string, number>,
  maxShared: 0,
};
function lookupDecision(input: AgentToAgentInput) {
  const sameOrg = input.initiator_org_unit === input.responder_org_unit;
  const allow =
    input.initiator_tenant_id === input.responder_tenant_id &&
    flat.enabled &&
    flat.types[input.exchange_type] === true &&
    (sameOrg || !flat.crossOrgDeny[input.classification_level]) &&
    (flat.order[input.classification_level] ?? 9) <= flat.maxShared;
  return { allow, deny: !allow, max_rounds: flat.rounds[input.exchange_type] };
}

async function builtinEngine(): Promise<BuiltinDecisionEngine> {
  const store = new InMemoryPolicyStore();
  const directory = InMemoryOrgDirectory.fromDefinitions({
    tenant: 'acme',
    orgs: { eng: { teams: { platform: ['alice'] } } },
  });
  const resolver = new EffectivePolicyResolver({ store, directory });
  const service = new PolicyService({
    store,
    directory,
    audit: new InMemoryAuditSink(),
    onChange: (t) => resolver.invalidate(t),
  });
  const admin = { userId: 'root', tenantId: 'acme', roles: ['enterprise_admin'] as const };
  for (const k of ['enterprise', 'org', 'team', 'user'] as const) {
    const r = await service.create(admin, {
      ...refs[k],
      domain: 'agent-to-agent',
      name: k,
      version: '1.0.0',
      content: A2A_YAML[k],
      changeReason: 'bench',
    });
    if (r.isErr()) throw r.error;
  }
  return new BuiltinDecisionEngine(resolver);
}

let sink: unknown;
const suites: BenchSuite[] = [
  {
    name: 'policy decision (built-in engine, precomputed effective policy)',
    baseline: 'property-lookup decision (hard-coded)',
    async run() {
      const engine = await builtinEngine();
      const request = {
        domain: 'agent-to-agent' as const,
        tenantId: 'acme',
        userId: 'alice',
        input: a2aInput,
      };
      if ((await engine.decide(request))._unsafeUnwrap().allow !== false)
        throw new Error('unexpected decision');
      return measure({
        'property-lookup decision (hard-coded)': () => {
          sink = lookupDecision(a2aInput);
        },
        'JSON.parse of the input': () => {
          sink = JSON.parse(a2aJson);
        },
        'evaluate agent-to-agent': () => {
          sink = evaluate(effective, 'agent-to-agent', a2aInput);
        },
        'evaluate integrations': () => {
          sink = evaluate(integrations, 'integrations', integrationsInput);
        },
        'engine.decide (resolver cache hit, async)': async () => {
          sink = await engine.decide(request);
        },
      });
    },
  },
  {
    name: 'policy hierarchy validation (4-level chain, agent-to-agent)',
    baseline: 'JSON.parse of the 4 contents',
    async run() {
      if (validateChain('agent-to-agent', chain).length !== 0) throw new Error('bench chain must be valid');
      return measure({
        'JSON.parse of the 4 contents': () => {
          sink = JSON.parse(chainJson);
        },
        'validateChain (parsed contents)': () => {
          sink = validateChain('agent-to-agent', chain);
        },
        'effectiveAlong (meet of the chain)': () => {
          sink = effectiveAlong('agent-to-agent', chain);
        },
        'parse 4 YAML contents + validateChain': () => {
          sink = validateChain(
            'agent-to-agent',
            (['enterprise', 'org', 'team', 'user'] as const).map((k) => ({
              ref: refs[k],
              policies: [{ content: parse(A2A_YAML[k]) }],
            })),
          );
        },
      });
    },
  },
];

export default suites;
export const _sink = () => sink;
