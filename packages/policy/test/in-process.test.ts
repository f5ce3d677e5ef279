/**
 * The in-process entry points: `loadPolicyEngine(dir)` over the example policy directory, the
 * resolver's query object and its refusal of unknown nodes, and `decisionAuditFields` /
 * `decisionAuditEntry` (a decision → its audit entry).
 */
import { fileURLToPath } from 'node:url';
import {
  AuditEntryInputSchema,
  type Decision,
  InMemoryOrgDirectory,
  InMemoryPolicyStore,
} from '@agentgov/core';
import { makePolicy } from '@agentgov/core/testing';
import { describe, expect, it } from 'vitest';
import {
  BuiltinDecisionEngine,
  decisionAuditEntry,
  decisionAuditFields,
  EffectivePolicyResolver,
  loadPolicyEngine,
} from '../src/index';

const EXAMPLE = fileURLToPath(new URL('../../../examples/policies', import.meta.url));

describe('loadPolicyEngine', () => {
  it('builds the built-in engine over a valid policy directory', async () => {
    const loaded = await loadPolicyEngine(EXAMPLE);
    if (loaded.isErr()) throw loaded.error;
    const { engine, bundle } = loaded.value;
    expect(bundle.tenantId).toBe('acme');
    const d = await engine.decide({
      domain: 'actions',
      tenantId: 'acme',
      userId: 'carol',
      input: { tool: 'send_mail' },
    });
    expect(d._unsafeUnwrap()).toMatchObject({ allow: true, constraints: { autonomy: 'approve' } });
    // The platform team blocks send_mail for its members (alice).
    const alice = await engine.decide({
      domain: 'actions',
      tenantId: 'acme',
      userId: 'alice',
      input: { tool: 'send_mail' },
    });
    expect(alice._unsafeUnwrap()).toMatchObject({ allow: false, constraints: { autonomy: 'block' } });
    const unknown = await engine.decide({
      domain: 'features',
      tenantId: 'acme',
      userId: 'nobody',
      input: { feature: 'briefings' },
    });
    expect(unknown._unsafeUnwrap()).toMatchObject({ allow: false });
    expect(unknown._unsafeUnwrap().reason).toMatch(/user nobody is not in the org directory/);
  });

  it('is an error result for a directory that does not exist', async () => {
    const loaded = await loadPolicyEngine('/nonexistent/agentgov-policies');
    expect(loaded.isErr()).toBe(true);
  });
});

describe('EffectivePolicyResolver', () => {
  const directory = InMemoryOrgDirectory.fromDefinitions({
    tenant: 'acme',
    orgs: { eng: { teams: { platform: ['alice'] } } },
  });
  const store = new InMemoryPolicyStore();
  const resolver = new EffectivePolicyResolver({ store, directory });

  it('takes a query object (and still the positional form)', async () => {
    await store.insert(
      makePolicy({
        tenantId: 'acme',
        scope: 'enterprise',
        scopeId: 'acme',
        domain: 'features',
        content: 'briefings: true\n',
        status: 'active',
      }),
    );
    const byQuery = await resolver.resolve({
      tenantId: 'acme',
      domain: 'features',
      node: { scope: 'user', scopeId: 'alice' },
    });
    expect(byQuery._unsafeUnwrap().chain.map((r) => r.scope)).toEqual(['enterprise', 'org', 'team', 'user']);
    const positional = await resolver.resolve('acme', 'features', { scope: 'team', scopeId: 'platform' });
    expect(positional._unsafeUnwrap().content).toEqual({ briefings: true });
  });

  it('refuses users, teams and orgs the directory does not know (never a partial chain)', async () => {
    for (const node of [
      { scope: 'user', scopeId: 'mallory' },
      { scope: 'team', scopeId: 'ghost' },
      { scope: 'org', scopeId: 'ghost' },
      { scope: 'enterprise', scopeId: 'globex' },
    ] as const) {
      const r = await resolver.resolve({ tenantId: 'acme', domain: 'features', node });
      expect(r.isErr() && r.error.code).toBe('NOT_FOUND');
    }
    const engine = new BuiltinDecisionEngine(resolver);
    const d = await engine.decide({
      domain: 'features',
      tenantId: 'acme',
      userId: 'mallory',
      input: { feature: 'briefings' },
    });
    expect(d._unsafeUnwrap()).toMatchObject({ allow: false, deny: true });
  });
});

describe('decisionAuditFields / decisionAuditEntry', () => {
  const decision = (over: Partial<Decision> = {}): Decision => ({
    allow: true,
    deny: false,
    reason: 'ok',
    constraints: {},
    ...over,
  });
  const ctx = { engine: 'builtin', domain: 'actions' } as const;

  it('maps allow, deny, approval and failure', () => {
    expect(decisionAuditFields(decision({ policyIds: ['p1', 'p2'] }), ctx)).toEqual({
      policyApplied: 'p1,p2',
      policyResult: 'allow',
      policyReason: 'ok',
      outcome: 'success',
    });
    expect(decisionAuditFields(decision({ allow: false, deny: true, reason: 'no' }), ctx)).toMatchObject({
      policyApplied: 'builtin:actions',
      policyResult: 'deny',
      outcome: 'denied',
    });
    expect(decisionAuditFields(decision({ constraints: { autonomy: 'approve' } }), ctx)).toMatchObject({
      policyResult: 'require_approval',
      outcome: 'pending_approval',
    });
    expect(decisionAuditFields(undefined, ctx)).toMatchObject({ policyResult: 'deny', outcome: 'error' });
  });

  it('keeps policyApplied within 255 characters, saying how many ids were left out', () => {
    const ids = Array.from(
      { length: 20 },
      (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    );
    const f = decisionAuditFields(decision({ policyIds: ids }), ctx);
    expect(f.policyApplied.length).toBeLessThanOrEqual(255);
    expect(f.policyApplied).toMatch(/,\+\d+ more$/);
  });

  it('builds a valid policy_decision entry', () => {
    const entry = decisionAuditEntry(
      { domain: 'actions', tenantId: 'acme', userId: 'alice', input: { tool: 'send_mail' } },
      decision({ policyIds: ['p1'] }),
      { engine: 'builtin', requestId: 'req-1' },
    );
    expect(AuditEntryInputSchema.safeParse(entry).success).toBe(true);
    expect(entry).toMatchObject({ actionType: 'policy_decision', userId: 'alice', policyApplied: 'p1' });
  });
});
