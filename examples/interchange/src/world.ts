/**
 * The demo's world: tenant `acme` with alice and bob (org eng) and tenant `globex` with dave;
 * the spec's example agent-to-agent policy written through PolicyService (round limits 3/2/1,
 * confidential and restricted denied across org units, internal the most shared); the built-in
 * decision engine; one key pair, exchange store and audit log per assistant.
 */
import { InMemoryAuditSink, InMemoryExchangeStore } from '@agentgov/core';
import {
  type AgentKeyPair,
  type AgentPolicyView,
  EXAMPLE_ROUND_LIMITS,
  generateAgentKeys,
  type IncomingQuery,
  InterchangeNode,
  KeyRing,
  parseAgentIdentityConfig,
  type Transport,
} from '@agentgov/interchange';
import { inMemoryPolicyStack } from '@agentgov/policy';

const POLICY = `enabled: true
allowed_exchange_types: [information_query, meeting_scheduling, commitment_request]
max_classification_shared: confidential
max_rounds: {information_query: 3, meeting_scheduling: 2, commitment_request: 1}
cross_org: {confidential: deny, restricted: deny}
`;

export const PEOPLE = {
  alice: { tenantId: 'acme', userId: 'alice', orgUnit: 'eng' },
  bob: { tenantId: 'acme', userId: 'bob', orgUnit: 'eng' },
  dave: { tenantId: 'globex', userId: 'dave', orgUnit: 'eng' },
} as const;
export type Person = keyof typeof PEOPLE;
/** The user the `guest-assistant` key of `--serve` acts for (the org directory places it in `partners`). */
export const GUEST = { tenantId: 'acme', userId: 'guest', orgUnit: 'partners' } as const;

/** The `interchange` integration entry of each assistant (its defaultAgentIdentity JSON). */
const IDENTITY: Record<Person, string> = {
  alice: '{"maxClassificationShared":"internal"}',
  bob: '{"maxClassificationShared":"internal"}',
  dave: '{}',
};

/** What bob's assistant knows and may answer with: its items carry their own classification. */
async function bobAnswers(q: IncomingQuery) {
  return {
    text: `Bob's assistant: here is what I can share about "${q.text}".`,
    items: [
      {
        source: 'calendar',
        field: 'free_slots',
        classification: 'internal' as const,
        value: ['Tue 10:00', 'Wed 14:00'],
      },
      { source: 'tracker', field: 'open_tickets', classification: 'internal' as const, value: 4 },
      { source: 'drive', field: 'roadmap_draft', classification: 'confidential' as const, value: 'Q3 plans' },
    ],
  };
}

export interface Assistant {
  person: Person;
  agentId: string;
  node: InterchangeNode;
  keys: AgentKeyPair;
  audit: InMemoryAuditSink;
  store: InMemoryExchangeStore;
}

export async function buildWorld(
  transportFor: (person: Person, keys: AgentKeyPair, ring: KeyRing) => Transport,
  keyPairs?: Partial<Record<Person, AgentKeyPair>>,
) {
  const stack = await inMemoryPolicyStack({
    placements: [...Object.values(PEOPLE), GUEST],
    enterprise: ['acme', 'globex'].map((tenantId) => ({
      tenantId,
      domain: 'agent-to-agent' as const,
      name: 'Agent-to-agent',
      content: POLICY,
      changeReason: 'demo',
    })),
  });
  const { directory, engine } = stack;
  const policyView = async (tenantId: string, userId: string) =>
    (await stack.effectiveContent(tenantId, 'agent-to-agent', userId)) as AgentPolicyView;
  const ring = new KeyRing();
  const pairs = {} as Record<Person, AgentKeyPair>;
  for (const person of Object.keys(PEOPLE) as Person[]) {
    pairs[person] =
      keyPairs?.[person] ??
      (await generateAgentKeys(PEOPLE[person].tenantId, `${person}-assistant`, {
        userId: PEOPLE[person].userId,
      }));
    ring.add(pairs[person].publicJwk);
  }
  const assistants = {} as Record<Person, Assistant>;
  for (const person of Object.keys(PEOPLE) as Person[]) {
    const p = PEOPLE[person];
    const keys = pairs[person];
    const audit = new InMemoryAuditSink();
    const store = new InMemoryExchangeStore();
    const node = new InterchangeNode({
      agentId: `${person}-assistant`,
      ...p,
      identityConfig: parseAgentIdentityConfig([
        { type: 'interchange', config: { defaultAgentIdentity: IDENTITY[person] } },
      ]),
      policy: policyView,
      signingKey: keys.signingKey,
      keys: ring,
      directory,
      store,
      audit,
      engine,
      transport: transportFor(person, keys, ring),
      // The deployment's limits are the policy's (3/2/1): an exchange refused before any decision
      // (an agent-written commitment) is recorded with its type's limit, not the default 3.
      roundLimits: EXAMPLE_ROUND_LIMITS,
      ...(person === 'bob' ? { answer: bobAnswers } : {}),
    });
    assistants[person] = { person, agentId: `${person}-assistant`, node, keys, audit, store };
  }
  return { assistants, ring };
}
