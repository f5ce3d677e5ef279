/**
 * DecisionEngine conformance (spec: "Policy evaluation inputs and outputs", and the agent-to-agent
 * rules of the interchange protocol). The engine decides on the policies the harness seeds.
 */
import { expect } from 'vitest';
import { INTERCHANGE_DEFAULT_MAX_ROUNDS } from '../exchange/schema';
import type { Policy } from '../policy/schema';
import { defineConformanceSuite } from '../testing/conformance';
import { makePolicy } from '../testing/fixtures';
import type { Decision, DecisionEngine, DecisionRequest } from './port';
import type { AgentToAgentInput, IntegrationsInput } from './schema';
import { domainCases } from './suite-domains';

/**
 * What a DecisionEngine suite factory returns: a fresh engine with no policy, and `seed`, which
 * makes the given policies (any status, any scope) what the engine decides on from then on — e.g.
 * inserts them into the PolicyStore the engine reads and drops its cache. The engine's org
 * directory knows tenant `acme` with `alice` and `bob` (org `eng`, team `platform`) and tenant
 * `globex` with `alice` (org `research`); it does not know `mallory`.
 */
export interface DecisionEngineHarness {
  engine: DecisionEngine;
  seed(policies: readonly Policy[]): Promise<void>;
}

const ACME = 'acme';
const GLOBEX = 'globex';

const a2a = (overrides: Partial<AgentToAgentInput> = {}): AgentToAgentInput => ({
  exchange_type: 'information_query',
  initiator_tenant_id: ACME,
  responder_tenant_id: ACME,
  initiator_org_unit: 'eng',
  responder_org_unit: 'eng',
  classification_level: 'internal',
  ...overrides,
});

const integration = (
  action: string,
  additional: IntegrationsInput['context']['additional'] = {},
  targetSystem = 'tracker',
): IntegrationsInput => ({ action, context: { targetSystem, additional } });

const policy = (
  tenantId: string,
  domain: Policy['domain'],
  content: string,
  overrides: Partial<Policy> = {},
): Policy =>
  makePolicy({
    tenantId,
    scope: 'enterprise',
    scopeId: tenantId,
    domain,
    name: `${tenantId} ${domain}`,
    content,
    status: 'active',
    ...overrides,
  });

/** Decides and checks the shape every decision has: deny = !allow, a non-empty reason. */
async function decide(h: DecisionEngineHarness, request: DecisionRequest): Promise<Decision> {
  const result = await h.engine.decide(request);
  if (result.isErr()) throw new Error(`decide failed: ${result.error.message}`);
  const d = result.value;
  expect(typeof d.allow).toBe('boolean');
  expect(d.deny).toBe(!d.allow);
  expect(typeof d.reason).toBe('string');
  expect(d.reason.length).toBeGreaterThan(0);
  expect(typeof d.constraints).toBe('object');
  return d;
}
/** A request for `userId`, or — without one — explicitly for the enterprise level. */
const agentToAgent = (input: AgentToAgentInput, tenantId = ACME, userId?: string): DecisionRequest =>
  userId === undefined
    ? { domain: 'agent-to-agent', tenantId, scope: 'enterprise', input }
    : { domain: 'agent-to-agent', tenantId, userId, input };
const integrations = (input: IntegrationsInput, tenantId = ACME): DecisionRequest => ({
  domain: 'integrations',
  tenantId,
  scope: 'enterprise',
  input,
});

/** The spec's example cross-org policy, with its round limits per exchange type. */
const EXAMPLE_AGENT_TO_AGENT = `enabled: true
max_classification_shared: restricted
max_rounds:
  information_query: 3
  meeting_scheduling: 2
  commitment_request: 1
cross_org:
  confidential: deny
  restricted: deny
`;

const cases = {
  'default deny: with no policy, both domains deny (for a user and at the enterprise level)': async (
    h: DecisionEngineHarness,
  ) => {
    for (const userId of [undefined, 'alice']) {
      expect((await decide(h, agentToAgent(a2a(), ACME, userId))).allow).toBe(false);
    }
    expect((await decide(h, integrations(integration('tracker_update')))).allow).toBe(false);
  },
  'agent-to-agent: an enabled policy allows within one tenant, with max_rounds and max_classification_shared':
    async (h: DecisionEngineHarness) => {
      await h.seed([
        policy(
          ACME,
          'agent-to-agent',
          'enabled: true\nmax_classification_shared: confidential\nmax_rounds:\n  meeting_scheduling: 2\n',
        ),
      ]);
      const d = await decide(
        h,
        agentToAgent(a2a({ exchange_type: 'meeting_scheduling', classification_level: 'confidential' })),
      );
      expect(d.allow).toBe(true);
      expect(d.constraints).toEqual({ max_rounds: 2, max_classification_shared: 'confidential' });
      // An exchange type without a limit of its own gets INTERCHANGE_DEFAULT_MAX_ROUNDS.
      const other = await decide(h, agentToAgent(a2a({ exchange_type: 'information_query' })));
      expect(other.allow).toBe(true);
      expect(other.constraints.max_rounds).toBe(INTERCHANGE_DEFAULT_MAX_ROUNDS);
    },
  'agent-to-agent: the spec example (round limits per type; confidential data denied cross-org)': async (
    h: DecisionEngineHarness,
  ) => {
    await h.seed([policy(ACME, 'agent-to-agent', EXAMPLE_AGENT_TO_AGENT)]);
    const crossOrg = { initiator_org_unit: 'eng', responder_org_unit: 'sales' };
    for (const level of ['public', 'internal'] as const) {
      const d = await decide(h, agentToAgent(a2a({ ...crossOrg, classification_level: level })));
      expect(d.allow).toBe(true);
      expect(d.constraints.max_rounds).toBe(3);
      // Between org units nothing above internal is shared either way (the answer is filtered to it too).
      expect(d.constraints.max_classification_shared).toBe('internal');
    }
    // Within one org unit, the policy's own maximum.
    expect(
      (await decide(h, agentToAgent(a2a({ classification_level: 'internal' })))).constraints,
    ).toMatchObject({
      max_classification_shared: 'restricted',
    });
    for (const level of ['confidential', 'restricted'] as const) {
      const d = await decide(h, agentToAgent(a2a({ ...crossOrg, classification_level: level })));
      expect(d.allow).toBe(false);
      expect(d.reason).toContain('confidential data cannot be shared cross-org');
      // Within one org unit the same data may be shared.
      expect((await decide(h, agentToAgent(a2a({ classification_level: level })))).allow).toBe(true);
    }
    const rounds = async (exchange_type: AgentToAgentInput['exchange_type']) =>
      (await decide(h, agentToAgent(a2a({ exchange_type })))).constraints.max_rounds;
    expect(await rounds('meeting_scheduling')).toBe(2);
    expect(await rounds('commitment_request')).toBe(1);
  },
  'agent-to-agent: disabled, an exchange type not allowed, or a level above max_classification_shared deny':
    async (h: DecisionEngineHarness) => {
      await h.seed([
        policy(ACME, 'agent-to-agent', 'enabled: false\n'),
        policy(
          GLOBEX,
          'agent-to-agent',
          'enabled: true\nallowed_exchange_types: [information_query]\nmax_classification_shared: internal\n',
        ),
      ]);
      expect((await decide(h, agentToAgent(a2a()))).allow).toBe(false);
      const g = (overrides: Partial<AgentToAgentInput>) =>
        agentToAgent(a2a({ initiator_tenant_id: GLOBEX, responder_tenant_id: GLOBEX, ...overrides }), GLOBEX);
      expect((await decide(h, g({}))).allow).toBe(true);
      expect((await decide(h, g({ classification_level: 'public' }))).allow).toBe(true);
      expect((await decide(h, g({ exchange_type: 'meeting_scheduling' }))).allow).toBe(false);
      const above = await decide(h, g({ classification_level: 'confidential' }));
      expect(above.allow).toBe(false);
      expect(above.constraints.max_classification_shared).toBe('internal');
    },
  'agent-to-agent: cross-tenant is always denied, whatever the policies say': async (
    h: DecisionEngineHarness,
  ) => {
    const open = 'enabled: true\nmax_classification_shared: restricted\n';
    await h.seed([policy(ACME, 'agent-to-agent', open), policy(GLOBEX, 'agent-to-agent', open)]);
    expect((await decide(h, agentToAgent(a2a()))).allow).toBe(true);
    const denied: DecisionRequest[] = [
      agentToAgent(a2a({ responder_tenant_id: GLOBEX })),
      agentToAgent(a2a({ initiator_tenant_id: GLOBEX })),
      agentToAgent(a2a({ responder_tenant_id: GLOBEX }), GLOBEX),
      // Both sides in one tenant, but not the tenant the request is decided for.
      agentToAgent(a2a({ initiator_tenant_id: GLOBEX, responder_tenant_id: GLOBEX }), ACME),
      agentToAgent(a2a({ responder_tenant_id: GLOBEX, classification_level: 'public' }), ACME, 'alice'),
    ];
    for (const request of denied) expect((await decide(h, request)).allow).toBe(false);
  },
  'integrations: an action is allowed only by a rule that allows it': async (h: DecisionEngineHarness) => {
    await h.seed([
      policy(
        ACME,
        'integrations',
        'actions:\n  tracker_update:\n    allowed: true\n  tracker_transition:\n    allowed: false\n',
      ),
    ]);
    expect((await decide(h, integrations(integration('tracker_update')))).allow).toBe(true);
    expect((await decide(h, integrations(integration('tracker_transition')))).allow).toBe(false);
    expect((await decide(h, integrations(integration('tracker_delete')))).allow).toBe(false);
  },
  'integrations: the conditions of a rule (target system, source, trigger) must all match': async (
    h: DecisionEngineHarness,
  ) => {
    await h.seed([
      policy(
        ACME,
        'integrations',
        'actions:\n  tracker_transition:\n    allowed: true\n    target_systems: [tracker]\n' +
          '    sources: [work-tracking]\n    triggers: [pr_merged]\n',
      ),
    ]);
    const ok = { source: 'work-tracking', trigger: 'pr_merged' };
    expect((await decide(h, integrations(integration('tracker_transition', ok)))).allow).toBe(true);
    const denied = [
      integration('tracker_transition', ok, 'codehost'),
      integration('tracker_transition', { ...ok, source: 'manual' }),
      integration('tracker_transition', { ...ok, trigger: 'pr_opened' }),
      integration('tracker_transition', { source: 'work-tracking' }),
      integration('tracker_transition', {}),
    ];
    for (const input of denied) expect((await decide(h, integrations(input))).allow).toBe(false);
  },
  'policies: one tenant’s policies never decide for another, nor for another domain': async (
    h: DecisionEngineHarness,
  ) => {
    await h.seed([
      policy(ACME, 'agent-to-agent', 'enabled: true\n'),
      policy(GLOBEX, 'integrations', 'actions:\n  tracker_update:\n    allowed: true\n'),
    ]);
    expect((await decide(h, agentToAgent(a2a()))).allow).toBe(true);
    const globexA2a = a2a({ initiator_tenant_id: GLOBEX, responder_tenant_id: GLOBEX });
    expect((await decide(h, agentToAgent(globexA2a, GLOBEX))).allow).toBe(false);
    expect((await decide(h, integrations(integration('tracker_update'), GLOBEX))).allow).toBe(true);
    expect((await decide(h, integrations(integration('tracker_update'), ACME))).allow).toBe(false);
  },
  'policies: only active policies are decided on': async (h: DecisionEngineHarness) => {
    await h.seed([
      policy(ACME, 'agent-to-agent', 'enabled: true\n', { status: 'draft' }),
      policy(ACME, 'agent-to-agent', 'enabled: true\n', { status: 'deprecated' }),
    ]);
    expect((await decide(h, agentToAgent(a2a()))).allow).toBe(false);
  },
  'user: the effective policy of the user is decided on (a user policy narrows the enterprise’s)': async (
    h: DecisionEngineHarness,
  ) => {
    await h.seed([
      policy(ACME, 'agent-to-agent', 'enabled: true\nmax_rounds:\n  meeting_scheduling: 3\n'),
      policy(ACME, 'agent-to-agent', 'max_rounds:\n  meeting_scheduling: 1\n', {
        scope: 'user',
        scopeId: 'alice',
        name: 'alice agent-to-agent',
      }),
    ]);
    const input = a2a({ exchange_type: 'meeting_scheduling' });
    const rounds = async (userId?: string) => {
      const d = await decide(h, agentToAgent(input, ACME, userId));
      expect(d.allow).toBe(true);
      return d.constraints.max_rounds;
    };
    expect(await rounds('alice')).toBe(1);
    expect(await rounds('bob')).toBe(3);
    expect(await rounds()).toBe(3);
  },
  'health: true when the engine can answer': async (h: DecisionEngineHarness) => {
    expect(await h.engine.health()).toBe(true);
    expect(typeof h.engine.name).toBe('string');
    expect(h.engine.name.length).toBeGreaterThan(0);
  },
  ...domainCases,
} satisfies Record<string, (h: DecisionEngineHarness) => Promise<void>>;

export type DecisionEngineCaseName = keyof typeof cases;

/** The DecisionEngine conformance suite: the factory returns a fresh engine and a way to seed policies. */
export const describeDecisionEngineConformance = defineConformanceSuite<
  DecisionEngineHarness,
  DecisionEngineCaseName
>('DecisionEngine', cases);
