/**
 * Test world: tenant `acme` (alice and bob in org eng, carol in org sales) and tenant `globex`
 * (dave), real policies written through PolicyService, the built-in decision engine, in-memory
 * audit sinks (one per agent, so each side's entries can be read), and one InterchangeNode per
 * agent on an InProcessNetwork. Used by the tests and the bench.
 */
import {
  type Clock,
  type DecisionEngine,
  type ExchangeStore,
  InMemoryAuditSink,
  InMemoryExchangeStore,
  InMemoryOrgDirectory,
  InMemoryPolicyStore,
  ManualClock,
  type OrgDirectory,
} from '@agentgov/core';
import { BuiltinDecisionEngine, EffectivePolicyResolver, PolicyService } from '@agentgov/policy';
import {
  type AgentKeyPair,
  type AgentPolicyView,
  generateAgentKeys,
  type HumanAvailability,
  type IncomingQuery,
  InProcessNetwork,
  InterchangeNode,
  KeyRing,
  type NodeOptions,
  parseAgentIdentityConfig,
} from '../src/index';

const A2A_POLICY = `enabled: true
allowed_exchange_types: [information_query, meeting_scheduling, commitment_request]
max_classification_shared: confidential
max_rounds: {information_query: 3, meeting_scheduling: 2, commitment_request: 1}
cross_org: {confidential: deny, restricted: deny}
`;

export const AGENTS = {
  alice: { tenantId: 'acme', userId: 'alice', orgUnit: 'eng' },
  bob: { tenantId: 'acme', userId: 'bob', orgUnit: 'eng' },
  carol: { tenantId: 'acme', userId: 'carol', orgUnit: 'sales' },
  dave: { tenantId: 'globex', userId: 'dave', orgUnit: 'eng' },
} as const;
export type AgentName = keyof typeof AGENTS;

/** The default automatic answer: echoes the question and returns the agent's data items. */
export const answerWith = (items: IncomingQuery['items']) => async (q: IncomingQuery) => ({
  text: `answer to: ${q.text}`,
  items,
});

export interface World {
  clock: ManualClock;
  network: InProcessNetwork;
  keys: KeyRing;
  /** The org directory every node reads (alice, bob, carol and dave placed in their orgs). */
  directory: OrgDirectory;
  keyPairs: Record<AgentName, AgentKeyPair>;
  nodes: Record<AgentName, InterchangeNode>;
  audits: Record<AgentName, InMemoryAuditSink>;
  stores: Record<AgentName, ExchangeStore>;
  engine: DecisionEngine;
  availability: Record<AgentName, HumanAvailability>;
}

export interface WorldOptions {
  /** `shared`: one store per tenant (one deployment); `separate`: one per agent (as over A2A). */
  stores?: 'shared' | 'separate';
  policy?: string | null;
  engine?: (builtin: DecisionEngine) => DecisionEngine;
  identity?: Partial<Record<AgentName, string>>;
  answer?: Partial<Record<AgentName, NodeOptions['answer']>>;
  extra?: Partial<Omit<NodeOptions, 'agentId' | 'userId' | 'tenantId' | 'orgUnit'>>;
  clock?: Clock;
  /** The exchange store of each agent (default: in-memory, per `stores`). */
  storeFor?: (name: AgentName) => ExchangeStore;
}

export async function makeWorld(options: WorldOptions = {}): Promise<World> {
  const clock = new ManualClock('2026-01-05T09:00:00.000Z');
  const policyStore = new InMemoryPolicyStore();
  const directory = new InMemoryOrgDirectory();
  for (const a of Object.values(AGENTS)) await directory.place(a.tenantId, a.userId, { orgUnit: a.orgUnit });
  const resolver = new EffectivePolicyResolver({ store: policyStore, directory });
  const service = new PolicyService({
    store: policyStore,
    directory,
    audit: new InMemoryAuditSink(),
    onChange: (t) => resolver.invalidate(t),
  });
  const policy = options.policy === undefined ? A2A_POLICY : options.policy;
  if (policy !== null) {
    for (const tenantId of ['acme', 'globex']) {
      const created = await service.create(
        { userId: 'root', tenantId, roles: ['enterprise_admin'] },
        {
          scope: 'enterprise',
          scopeId: tenantId,
          domain: 'agent-to-agent',
          name: 'a2a',
          version: '1.0.0',
          content: policy,
          changeReason: 'test',
        },
      );
      if (created.isErr()) throw created.error;
    }
  }
  const builtin = new BuiltinDecisionEngine(resolver);
  const engine = options.engine ? options.engine(builtin) : builtin;
  const policyView = async (tenantId: string, userId: string): Promise<AgentPolicyView> => {
    const r = await resolver.resolve(tenantId, 'agent-to-agent', { scope: 'user', scopeId: userId });
    if (r.isErr()) throw r.error;
    return r.value.content as AgentPolicyView;
  };
  const network = new InProcessNetwork();
  const keys = new KeyRing();
  const tenantStores = new Map<string, ExchangeStore>();
  const availability = { alice: 'online', bob: 'online', carol: 'online', dave: 'online' } as Record<
    AgentName,
    HumanAvailability
  >;
  const w: Partial<World> = {
    clock,
    network,
    keys,
    directory,
    engine,
    availability,
    keyPairs: {} as World['keyPairs'],
    nodes: {} as World['nodes'],
    audits: {} as World['audits'],
    stores: {} as World['stores'],
  };
  for (const [name, a] of Object.entries(AGENTS) as [AgentName, (typeof AGENTS)[AgentName]][]) {
    const pair = await generateAgentKeys(a.tenantId, `agent-${name}`, { userId: a.userId });
    keys.add(pair.publicJwk);
    let store = options.storeFor?.(name) ?? tenantStores.get(a.tenantId);
    if (!store || (options.stores === 'separate' && !options.storeFor)) {
      store = new InMemoryExchangeStore();
      tenantStores.set(a.tenantId, store);
    }
    const audit = new InMemoryAuditSink(clock);
    const node = new InterchangeNode({
      agentId: `agent-${name}`,
      ...a,
      identityConfig: parseAgentIdentityConfig(
        options.identity?.[name] ?? '{"maxClassificationShared":"confidential"}',
      ),
      policy: policyView,
      availability: { availability: async () => availability[name] },
      signingKey: pair.signingKey,
      keys,
      directory,
      store,
      audit,
      engine,
      transport: network,
      answer: options.answer?.[name] ?? answerWith([]),
      clock: options.clock ?? clock,
      ...options.extra,
    });
    network.register(`agent-${name}`, node);
    (w.keyPairs as World['keyPairs'])[name] = pair;
    (w.nodes as World['nodes'])[name] = node;
    (w.audits as World['audits'])[name] = audit;
    (w.stores as World['stores'])[name] = store;
  }
  return w as World;
}

/** Items at each level, from one source. */
export const itemsAt = (...levels: ('public' | 'internal' | 'confidential' | 'restricted')[]) =>
  levels.map((classification, i) => ({
    source: 'drive',
    field: `f${i}-${classification}`,
    classification,
    value: `v${i}`,
  }));
