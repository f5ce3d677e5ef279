/**
 * DecisionEngine conformance, part two: the models, actions, data and features domains, unknown
 * users, and malformed requests (merged into the suite's cases in `suite.ts`).
 */
import { expect } from 'vitest';
import type { Policy } from '../policy/schema';
import { makePolicy } from '../testing/fixtures';
import type { Decision, DecisionRequest } from './port';
import type { DecisionEngineHarness } from './suite';

const ACME = 'acme';

const policy = (domain: Policy['domain'], content: string, overrides: Partial<Policy> = {}): Policy =>
  makePolicy({
    tenantId: ACME,
    scope: 'enterprise',
    scopeId: ACME,
    domain,
    name: `${ACME} ${domain}`,
    content,
    status: 'active',
    ...overrides,
  });

async function decide(h: DecisionEngineHarness, request: DecisionRequest): Promise<Decision> {
  const result = await h.engine.decide(request);
  if (result.isErr()) throw new Error(`decide failed: ${result.error.message}`);
  const d = result.value;
  expect(d.deny).toBe(!d.allow);
  expect(d.reason.length).toBeGreaterThan(0);
  return d;
}

const models = (
  model: string,
  provider: string,
  level: 'public' | 'internal' | 'confidential' | 'restricted',
) =>
  ({
    domain: 'models',
    tenantId: ACME,
    userId: 'alice',
    input: { model, provider, classification_level: level },
  }) as const;
const tool = (name: string, userId = 'alice'): DecisionRequest => ({
  domain: 'actions',
  tenantId: ACME,
  userId,
  input: { tool: name },
});

export const domainCases = {
  'default deny: with no policy, models, actions, data and features deny': async (
    h: DecisionEngineHarness,
  ) => {
    const requests: DecisionRequest[] = [
      models('gpt-4o', 'openai', 'public'),
      tool('calendar_write'),
      { domain: 'data', tenantId: ACME, userId: 'alice', input: { classification_level: 'public' } },
      { domain: 'features', tenantId: ACME, userId: 'alice', input: { feature: 'briefings' } },
      { domain: 'features', tenantId: ACME, scope: 'enterprise', input: { feature: 'web_ui' } },
    ];
    for (const r of requests) expect((await decide(h, r)).allow).toBe(false);
  },
  'user-bound: without userId a decision is an error, unless scope: enterprise asks for that level explicitly':
    async (h: DecisionEngineHarness) => {
      // Issue 23, item 11: an omitted user must not get the enterprise answer, looser than any user's.
      await h.seed([
        policy('actions', 'default_autonomy: autonomous\n'),
        policy('actions', 'default_autonomy: approve\n', {
          scope: 'team',
          scopeId: 'platform',
          name: 'platform',
        }),
        policy('features', 'briefings: true\n'),
        policy('features', 'briefings: false\n', { scope: 'user', scopeId: 'alice', name: 'alice features' }),
      ]);
      const input = { tool: 'calendar_write' };
      const omitted: unknown[] = [
        { domain: 'actions', tenantId: ACME, input },
        { domain: 'actions', tenantId: ACME, userId: undefined, input },
        { domain: 'features', tenantId: ACME, input: { feature: 'briefings' } },
        {
          domain: 'models',
          tenantId: ACME,
          input: { provider: 'p', model: 'm', classification_level: 'public' },
        },
        { domain: 'data', tenantId: ACME, input: { classification_level: 'public' } },
      ];
      for (const request of omitted) {
        const result = await h.engine.decide(request as DecisionRequest);
        expect(result.isErr(), JSON.stringify(request)).toBe(true);
        if (result.isErr()) {
          expect(result.error.code).toBe('missing_type');
          expect(result.error.message).toContain('userId');
        }
      }
      // Both a user and the enterprise level is a contradiction, refused as well.
      const both = await h.engine.decide({
        domain: 'actions',
        tenantId: ACME,
        userId: 'alice',
        scope: 'enterprise',
        input,
      });
      expect(both.isErr() && both.error.code).toBe('invalid_type');
      // Asked explicitly, the enterprise-level answer (the enterprise policies only).
      const enterprise = await decide(h, { domain: 'actions', tenantId: ACME, scope: 'enterprise', input });
      expect(enterprise).toMatchObject({ allow: true, constraints: { autonomy: 'autonomous' } });
      // For a user, their own answer: stricter through their team (and their own policy).
      expect((await decide(h, tool('calendar_write', 'alice'))).constraints.autonomy).toBe('approve');
      const features = (request: Partial<DecisionRequest>) =>
        decide(h, {
          domain: 'features',
          tenantId: ACME,
          input: { feature: 'briefings' },
          ...request,
        } as DecisionRequest);
      expect((await features({ scope: 'enterprise' })).allow).toBe(true);
      expect((await features({ userId: 'alice' })).allow).toBe(false);
      expect((await features({ userId: 'bob' })).allow).toBe(true);
    },
  'models: providers, models, denied models, levels and sensitive_data_models': async (
    h: DecisionEngineHarness,
  ) => {
    await h.seed([
      policy(
        'models',
        'allowed_providers: [azure, anthropic]\ndenied_models: [old-model]\nmax_classification: confidential\n' +
          'sensitive_data_models: [private-model]\n',
      ),
    ]);
    const ok = await decide(h, models('gpt-4o', 'azure', 'internal'));
    expect(ok.allow).toBe(true);
    expect(ok.constraints.max_classification_shared).toBe('confidential');
    expect(ok.constraints.sensitive_data_models).toEqual(['private-model']);
    expect((await decide(h, models('private-model', 'azure', 'confidential'))).allow).toBe(true);
    const sensitive = await decide(h, models('gpt-4o', 'azure', 'confidential'));
    expect(sensitive.allow).toBe(false);
    expect(sensitive.reason).toContain('private-model');
    expect((await decide(h, models('gpt-4o', 'openai', 'public'))).allow).toBe(false);
    expect((await decide(h, models('old-model', 'azure', 'public'))).allow).toBe(false);
    expect((await decide(h, models('private-model', 'azure', 'restricted'))).allow).toBe(false);
  },
  'actions: the stricter of tools.<tool> and default_autonomy; blocked always blocks': async (
    h: DecisionEngineHarness,
  ) => {
    await h.seed([
      policy(
        'actions',
        'tools:\n  calendar_write: notify\n  send_mail: block\n  search_docs: autonomous\ndefault_autonomy: notify\nblocked: [wire_money]\n',
      ),
      policy('actions', 'tools:\n  calendar_write: approve\n', {
        scope: 'user',
        scopeId: 'alice',
        name: 'alice actions',
      }),
    ]);
    const a = await decide(h, tool('calendar_write', 'bob'));
    expect(a).toMatchObject({ allow: true, constraints: { autonomy: 'notify' } });
    expect((await decide(h, tool('calendar_write', 'alice'))).constraints.autonomy).toBe('approve');
    // A tool entry looser than default_autonomy does not loosen it; tools without an entry get it.
    expect(await decide(h, tool('search_docs'))).toMatchObject({
      allow: true,
      constraints: { autonomy: 'notify' },
    });
    expect((await decide(h, tool('file_upload'))).constraints.autonomy).toBe('notify');
    expect((await decide(h, tool('send_mail'))).allow).toBe(false);
    expect((await decide(h, tool('wire_money'))).allow).toBe(false);
  },
  'data: external sharing up to external_sharing_max, never to a denied destination': async (
    h: DecisionEngineHarness,
  ) => {
    await h.seed([policy('data', 'external_sharing_max: internal\ndenied_destinations: [pastebin]\n')]);
    const share = (level: 'public' | 'internal' | 'confidential', destination?: string): DecisionRequest => ({
      domain: 'data',
      tenantId: ACME,
      userId: 'alice',
      input: destination ? { classification_level: level, destination } : { classification_level: level },
    });
    const d = await decide(h, share('internal'));
    expect(d).toMatchObject({ allow: true, constraints: { max_classification_shared: 'internal' } });
    expect((await decide(h, share('public', 'partner.example'))).allow).toBe(true);
    expect((await decide(h, share('confidential'))).allow).toBe(false);
    expect((await decide(h, share('public', 'pastebin'))).allow).toBe(false);
  },
  'features: on only where the effective policy sets it true': async (h: DecisionEngineHarness) => {
    await h.seed([
      policy('features', 'briefings: true\nweb_ui: true\nauto_response: false\n'),
      policy('features', 'web_ui: false\n', { scope: 'user', scopeId: 'alice', name: 'alice features' }),
    ]);
    const feature = (feature: 'briefings' | 'web_ui' | 'auto_response' | 'task_discovery', userId: string) =>
      decide(h, { domain: 'features', tenantId: ACME, userId, input: { feature } });
    expect((await feature('briefings', 'alice')).allow).toBe(true);
    expect((await feature('web_ui', 'bob')).allow).toBe(true);
    expect((await feature('web_ui', 'alice')).allow).toBe(false);
    expect((await feature('auto_response', 'bob')).allow).toBe(false);
    expect((await feature('task_discovery', 'bob')).allow).toBe(false);
  },
  'unknown user: a user the org directory does not know is denied with a reason, whatever the policy': async (
    h: DecisionEngineHarness,
  ) => {
    await h.seed([policy('features', 'briefings: true\n'), policy('agent-to-agent', 'enabled: true\n')]);
    expect(
      (
        await decide(h, {
          domain: 'features',
          tenantId: ACME,
          userId: 'alice',
          input: { feature: 'briefings' },
        })
      ).allow,
    ).toBe(true);
    const unknown = await decide(h, {
      domain: 'features',
      tenantId: ACME,
      userId: 'mallory',
      input: { feature: 'briefings' },
    });
    expect(unknown.allow).toBe(false);
    expect(unknown.reason).toContain('mallory');
  },
  'malformed: an unknown domain or malformed input is an error result, never a throw': async (
    h: DecisionEngineHarness,
  ) => {
    const bad: unknown[] = [
      { domain: 'weather', tenantId: ACME, input: {} },
      { domain: 'models', tenantId: ACME, input: { model: 'm' } },
      { domain: 'features', tenantId: ACME, input: { feature: 'teleport' } },
      { domain: 'agent-to-agent', tenantId: ACME, input: null },
      { domain: 'actions', input: { tool: 'x' } },
      null,
    ];
    for (const request of bad) {
      const result = await h.engine.decide(request as DecisionRequest);
      expect(result.isErr()).toBe(true);
      if (result.isErr()) expect(['missing_type', 'invalid_type']).toContain(result.error.code);
    }
  },
  'policies: a decision names the policies it was computed from (when the engine reports them)': async (
    h: DecisionEngineHarness,
  ) => {
    const enterprise = policy('features', 'briefings: true\n');
    const own = policy('features', 'web_ui: true\n', {
      scope: 'user',
      scopeId: 'alice',
      name: 'alice features',
    });
    await h.seed([enterprise, own]);
    const d = await decide(h, {
      domain: 'features',
      tenantId: ACME,
      userId: 'alice',
      input: { feature: 'briefings' },
    });
    expect(d.policyIds).toEqual([enterprise.id, own.id]);
  },
} satisfies Record<string, (h: DecisionEngineHarness) => Promise<void>>;
