import { describe, expect, it } from 'vitest';
import { type AgentToAgentPolicy, evaluate, type IntegrationsPolicy, parsePolicyContent } from '../src/index';

const specA2A = parsePolicyContent(
  'agent-to-agent',
  `enabled: true
max_classification_shared: internal
max_rounds: {information_query: 3, meeting_scheduling: 2, commitment_request: 1}
cross_org: {confidential: deny, restricted: deny}
`,
)._unsafeUnwrap() as AgentToAgentPolicy;

const specIntegrations = parsePolicyContent(
  'integrations',
  `actions:
  tracker_update: {allowed: true, target_systems: [tracker], sources: [work-tracking]}
  tracker_transition: {allowed: true, target_systems: [tracker], triggers: [pr_merged]}
`,
)._unsafeUnwrap() as IntegrationsPolicy;

const a2a = (over: Partial<Record<string, string>> = {}) =>
  ({
    exchange_type: 'information_query',
    initiator_tenant_id: 'acme',
    responder_tenant_id: 'acme',
    initiator_org_unit: 'eng',
    responder_org_unit: 'eng',
    classification_level: 'internal',
    ...over,
  }) as Parameters<typeof evaluate>[2] & { exchange_type: 'information_query' };

describe('agent-to-agent (spec example policy)', () => {
  it('allows information_query within one tenant for public and internal data', () => {
    for (const level of ['public', 'internal']) {
      for (const responder of ['eng', 'sales']) {
        const d = evaluate(
          specA2A,
          'agent-to-agent',
          a2a({ classification_level: level, responder_org_unit: responder }),
        );
        expect(d).toEqual({
          allow: true,
          deny: false,
          reason: 'allowed by agent-to-agent policy',
          constraints: { max_rounds: 3, max_classification_shared: 'internal' },
        });
      }
    }
  });

  it('denies confidential and restricted data between different org units', () => {
    const d = evaluate(
      specA2A,
      'agent-to-agent',
      a2a({ classification_level: 'confidential', responder_org_unit: 'sales' }),
    );
    expect(d.allow).toBe(false);
    expect(d.deny).toBe(true);
    expect(d.reason).toBe('confidential data cannot be shared cross-org');
    const r = evaluate(
      specA2A,
      'agent-to-agent',
      a2a({ classification_level: 'restricted', responder_org_unit: 'sales' }),
    );
    expect(r.reason).toBe('confidential data cannot be shared cross-org (classification: restricted)');
  });

  it('denies data above max_classification_shared within one org', () => {
    const d = evaluate(specA2A, 'agent-to-agent', a2a({ classification_level: 'confidential' }));
    expect(d.allow).toBe(false);
    expect(d.reason).toBe('confidential data exceeds max_classification_shared internal');
  });

  it('returns the round limit of the input exchange type: 3, 2, 1, default 3', () => {
    const rounds = (t: string, p: AgentToAgentPolicy = specA2A) =>
      evaluate(p, 'agent-to-agent', a2a({ exchange_type: t })).constraints.max_rounds;
    expect(rounds('information_query')).toBe(3);
    expect(rounds('meeting_scheduling')).toBe(2);
    expect(rounds('commitment_request')).toBe(1);
    expect(rounds('meeting_scheduling', { enabled: true, max_rounds: { information_query: 5 } })).toBe(3);
  });

  it('denies across tenants whatever the policy says', () => {
    const permissive: AgentToAgentPolicy = { enabled: true, max_classification_shared: 'restricted' };
    const d = evaluate(permissive, 'agent-to-agent', a2a({ responder_tenant_id: 'globex' }));
    expect(d).toMatchObject({ allow: false, deny: true, reason: 'cross-tenant exchange is always blocked' });
    expect(evaluate(permissive, 'agent-to-agent', a2a(), 'globex').allow).toBe(false);
  });

  it('denies by default: no policy, or enabled not true, or a type not allowed', () => {
    expect(evaluate({}, 'agent-to-agent', a2a()).allow).toBe(false);
    expect(evaluate({ enabled: false }, 'agent-to-agent', a2a()).reason).toContain('not enabled');
    const d = evaluate(
      { enabled: true, allowed_exchange_types: ['meeting_scheduling'] },
      'agent-to-agent',
      a2a(),
    );
    expect(d.reason).toBe('exchange type information_query is not allowed by policy');
  });
});

describe('integrations (spec tracker rules)', () => {
  const input = (action: string, targetSystem: string, additional: Record<string, string> = {}) => ({
    action,
    context: { targetSystem, additional },
  });

  it('allows tracker_update to the tracker from work-tracking only', () => {
    expect(
      evaluate(
        specIntegrations,
        'integrations',
        input('tracker_update', 'tracker', { source: 'work-tracking' }),
      ).allow,
    ).toBe(true);
    expect(
      evaluate(specIntegrations, 'integrations', input('tracker_update', 'tracker', { source: 'chat' }))
        .allow,
    ).toBe(false);
    expect(evaluate(specIntegrations, 'integrations', input('tracker_update', 'tracker')).allow).toBe(false);
    expect(
      evaluate(
        specIntegrations,
        'integrations',
        input('tracker_update', 'codehost', { source: 'work-tracking' }),
      ).allow,
    ).toBe(false);
  });

  it('allows tracker_transition to the tracker on pr_merged only', () => {
    expect(
      evaluate(
        specIntegrations,
        'integrations',
        input('tracker_transition', 'tracker', { trigger: 'pr_merged' }),
      ).allow,
    ).toBe(true);
    const d = evaluate(
      specIntegrations,
      'integrations',
      input('tracker_transition', 'tracker', { trigger: 'pr_opened' }),
    );
    expect(d).toMatchObject({
      allow: false,
      deny: true,
      reason: 'action tracker_transition is not allowed on trigger pr_opened',
    });
  });

  it('denies everything else', () => {
    const d = evaluate(
      specIntegrations,
      'integrations',
      input('mail_send', 'mail', { source: 'work-tracking' }),
    );
    expect(d).toMatchObject({ allow: false, reason: 'no integrations policy allows action mail_send' });
    expect(
      evaluate({}, 'integrations', input('tracker_update', 'tracker', { source: 'work-tracking' })).allow,
    ).toBe(false);
  });

  it('honours connector enablement and write permission', () => {
    const disabled: IntegrationsPolicy = { ...specIntegrations, connectors: { tracker: { enabled: false } } };
    expect(
      evaluate(disabled, 'integrations', input('tracker_update', 'tracker', { source: 'work-tracking' }))
        .reason,
    ).toBe('connector tracker is disabled by policy');
    const readOnly: IntegrationsPolicy = {
      ...specIntegrations,
      connectors: { tracker: { permissions: ['read'], max_classification: 'internal' } },
    };
    const d = evaluate(
      readOnly,
      'integrations',
      input('tracker_update', 'tracker', { source: 'work-tracking' }),
    );
    expect(d.reason).toBe('connector tracker has no write permission');
    expect(d.constraints.max_classification_shared).toBe('internal');
  });
});
