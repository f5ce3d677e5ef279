/**
 * Test world: tenant `acme` (alice and bob in org eng, carol in org sales) and tenant `globex`
 * (dave), real policies written through PolicyService, the built-in decision engine, in-memory
 * audit sinks (one per agent, so each side's entries can be read), and one InterchangeNode per
 * agent on an InProcessNetwork. Used by the tests and the bench.
 */
import {
  type ClassificationLevel,
  type Clock,
  type DecisionEngine,
  type ExchangeStore,
  type ExchangeType,
  InMemoryAuditSink,
  InMemoryExchangeStore,
  ManualClock,
  newId,
  type OrgDirectory,
} from '@agentgov/core';
import { inMemoryPolicyStack } from '@agentgov/policy';
import {
  type AgentKeyPair,
  type AgentPolicyView,
  buildEnvelope,
  contentDigest,
  type EnvelopeClaims,
  type ExchangeMessage,
  generateAgentKeys,
  type HumanAvailability,
  type IncomingQuery,
  InProcessNetwork,
  InterchangeNode,
  KeyRing,
  type NodeOptions,
  type PeerInfo,
  parseAgentIdentityConfig,
  type SigningKey,
  signEnvelope,
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
  const policy = options.policy === undefined ? A2A_POLICY : options.policy;
  const stack = await inMemoryPolicyStack({
    placements: Object.values(AGENTS),
    enterprise: (policy === null ? [] : ['acme', 'globex']).map((tenantId) => ({
      tenantId,
      domain: 'agent-to-agent' as const,
      name: 'a2a',
      content: policy ?? '',
      changeReason: 'test',
    })),
  });
  const { directory } = stack;
  const engine = options.engine ? options.engine(stack.engine) : stack.engine;
  const policyView = async (tenantId: string, userId: string) =>
    (await stack.effectiveContent(tenantId, 'agent-to-agent', userId)) as AgentPolicyView;
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

/** bob's agent as its governed card publishes it: information queries, up to confidential, 3 rounds. */
export const BOB_PEER: PeerInfo = {
  tenantId: 'acme',
  agentId: 'agent-bob',
  userId: 'bob',
  orgUnit: 'eng',
  canReceiveQueries: true,
  supportedExchangeTypes: ['information_query'],
  maxClassificationShared: 'confidential',
  maxRoundsAccepted: 3,
};

/** Items at each level, from one source. */
export const itemsAt = (...levels: ('public' | 'internal' | 'confidential' | 'restricted')[]) =>
  levels.map((classification, i) => ({
    source: 'drive',
    field: `f${i}-${classification}`,
    classification,
    value: `v${i}`,
  }));

/**
 * What every node a test builds for agent `name` is given: its identity, its key, the world's key
 * ring, directory and engine, and the agent's own store and audit sink.
 */
export const nodeBase = (w: World, name: AgentName) => ({
  agentId: `agent-${name}`,
  ...AGENTS[name],
  signingKey: w.keyPairs[name].signingKey,
  keys: w.keys,
  directory: w.directory,
  store: w.stores[name],
  audit: w.audits[name],
  engine: w.engine,
});

/** Agent `name` as the sender of an envelope (tenant, agent, user, org unit). */
export const sender = (name: AgentName): EnvelopeClaims['from'] => ({
  tenantId: AGENTS[name].tenantId,
  agentId: `agent-${name}`,
  userId: AGENTS[name].userId,
  orgUnit: AGENTS[name].orgUnit,
});

/** Agent `name` as the audience of an envelope or a caller token. */
export const audience = (name: AgentName) => ({ tenantId: AGENTS[name].tenantId, agentId: `agent-${name}` });

/** A query round as a (possibly hostile) peer signs it; what is left out takes the default shown. */
export interface QueryClaims {
  signer: SigningKey;
  from: EnvelopeClaims['from'];
  to: EnvelopeClaims['to'];
  message: ExchangeMessage;
  nowMs: number;
  /** 60 000 */
  ttlMs?: number | undefined;
  /** information_query */
  exchangeType?: ExchangeType | undefined;
  /** A new one. */
  exchangeId?: string | undefined;
  /** A new one (also the conversation id). */
  contextId?: string | undefined;
  /** The context id (a peer that keeps the two apart). */
  conversationId?: string | undefined;
  /** 1 */
  currentRound?: number | undefined;
  /** true */
  final?: boolean | undefined;
  /** internal */
  classificationLevel?: ClassificationLevel | undefined;
}

/** A query envelope (agent-generated, at most 3 rounds, accepts internal in return), signed. */
export function signQuery(q: QueryClaims): Promise<{ jws: string; claims: EnvelopeClaims }> {
  const contextId = q.contextId ?? newId();
  return signEnvelope(
    q.signer,
    {
      envelope: buildEnvelope({
        messageType: 'agent-generated',
        replyPolicy: 'agent-ok',
        exchangeId: q.exchangeId ?? newId(),
        currentRound: q.currentRound ?? 1,
        maxRounds: 3,
        classificationLevel: q.classificationLevel ?? 'internal',
      }),
      kind: 'query',
      final: q.final ?? true,
      accepts: 'internal',
      exchangeType: q.exchangeType ?? 'information_query',
      conversationId: q.conversationId ?? contextId,
      from: q.from,
      to: q.to,
      contextId,
      digest: contentDigest(q.message),
    },
    { nowMs: q.nowMs, ttlMs: q.ttlMs ?? 60_000 },
  );
}

/** alice's public query to bob in world `w`, signed at `nowMs` (the world's now) with `ttlMs`. */
export function aliceAsksBob(
  w: World,
  message: ExchangeMessage,
  ttlMs: number,
  nowMs = w.clock.now().getTime(),
): Promise<{ jws: string; claims: EnvelopeClaims }> {
  return signQuery({
    signer: w.keyPairs.alice.signingKey,
    from: sender('alice'),
    to: audience('bob'),
    message,
    classificationLevel: 'public',
    nowMs,
    ttlMs,
  });
}

/** `from` asks `to` (an agent id) a round of `exchangeType` carrying `text`; throws on an error. */
export async function ask(from: InterchangeNode, to: string, exchangeType: ExchangeType, text: string) {
  return (await from.query({ to, exchangeType, message: { text } }))._unsafeUnwrap();
}

/** The responder's human `by` approves the waiting round (with `note`); throws on an error. */
export async function approve(node: InterchangeNode, exchangeId: string, by: string, note?: string) {
  return (
    await node.resolveApproval({
      exchangeId,
      by,
      decision: 'approved',
      ...(note !== undefined ? { note } : {}),
    })
  )._unsafeUnwrap();
}
