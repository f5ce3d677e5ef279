/**
 * The vocabulary through `POST /policies` (the gateway kernel with a real OIDC issuer on
 * loopback): the spec users' spellings are accepted (201), `cross_enterprise: true` and a child
 * that widens a new key are the spec's 400 bodies naming the key (and the blocking scope).
 */
import { InMemoryAuditSink, InMemoryOrgDirectory, InMemoryPolicyStore } from '@agentgov/core';
import { createTestGovernance, startTestIssuer, type TestIssuer } from '@agentgov/gateway/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { policyRoutes } from '../src/gateway/index';

let idp: TestIssuer;
beforeAll(async () => {
  idp = await startTestIssuer();
});
afterAll(async () => {
  await idp.close();
});

/** The policy routes over an in-memory store of `acme` (org `eng`), and calls as its enterprise admin. */
async function policiesOfAcme() {
  const store = new InMemoryPolicyStore();
  const plugin = policyRoutes({
    store,
    directory: InMemoryOrgDirectory.fromDefinitions({ tenant: 'acme', orgs: { eng: {} } }),
    audit: new InMemoryAuditSink(),
  });
  const gov = createTestGovernance(idp, { plugins: [plugin] });
  const token = await idp.signIdToken({ sub: 'root', roles: ['enterprise_admin'], tenant_id: 'acme' });
  const call = async (method: string, path: string, body: unknown) => {
    const r = await gov.handle(
      new Request(`http://gw/api/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
    );
    return { status: r.status, body: (await r.json()) as Record<string, unknown> };
  };
  return { store, gov, call };
}

describe('POST /policies with the spec users vocabulary', () => {
  it('accepts the spellings, refuses cross_enterprise: true and widening children with the spec bodies', async () => {
    const { store, gov, call } = await policiesOfAcme();
    const post = (scope: string, scopeId: string, domain: string, content: string) =>
      call('POST', '/policies', {
        scope,
        scopeId,
        domain,
        name: `${domain} ${scopeId}`,
        version: '1.0.0',
        changeReason: 'test',
        content,
      });
    try {
      const a2a = await post(
        'enterprise',
        'acme',
        'agent-to-agent',
        'enabled: true\nmax_rounds: 3\ncross_org: internal\ncross_enterprise: false\n',
      );
      expect(a2a.status).toBe(201);
      expect(
        (
          await post(
            'enterprise',
            'acme',
            'actions',
            'default_autonomy: notify\ntools: {send_mail: approve}\n',
          )
        ).status,
      ).toBe(201);
      expect((await post('enterprise', 'acme', 'audit', 'log_all_actions: true\n')).status).toBe(201);

      const never = await post('org', 'eng', 'agent-to-agent', 'cross_enterprise: true\n');
      expect(never.status).toBe(400);
      expect(never.body).toMatchObject({
        error: 'invalid_type',
        detail: [{ field: 'content.cross_enterprise' }],
      });
      expect(String(never.body.message)).toContain('CROSS_ENTERPRISE_BLOCKED');

      const widened = await post('org', 'eng', 'agent-to-agent', 'cross_org: true\n');
      expect(widened.status).toBe(400);
      expect(widened.body.error).toBe('POLICY_HIERARCHY_VIOLATION');
      expect(widened.body.detail).toEqual([
        expect.objectContaining({ key: 'cross_org.confidential', scope: 'org', parentScope: 'enterprise' }),
        expect.objectContaining({ key: 'cross_org.restricted', scope: 'org', parentScope: 'enterprise' }),
      ]);

      const unlogged = await post('org', 'eng', 'audit', 'log_all_actions: false\n');
      expect(unlogged.status).toBe(400);
      expect(unlogged.body.detail).toEqual([
        expect.objectContaining({ key: 'log_all_actions', parentScope: 'enterprise', parentValue: true }),
      ]);
      expect(await store.count('acme', { status: 'active' })).toBe(3);
    } finally {
      await gov.close();
    }
  });
});

describe('feature-flag names the engine does not know', () => {
  it('POST and PUT /policies store the policy and answer warnings naming the field and the nearest known name', async () => {
    const { store, gov, call } = await policiesOfAcme();
    try {
      const created = await call('POST', '/policies', {
        scope: 'enterprise',
        scopeId: 'acme',
        domain: 'features',
        name: 'flags',
        version: '1.0.0',
        changeReason: 'test',
        content: 'briefing: true\ntask_discovery: true\nzzz_custom: false\n',
      });
      expect(created.status).toBe(201);
      expect(created.body.warnings).toEqual([
        {
          field: 'content.briefing',
          message: expect.stringContaining("did you mean 'briefings'?"),
          suggestion: 'briefings',
        },
        {
          field: 'content.zzz_custom',
          message: expect.stringContaining("unknown feature flag 'zzz_custom'"),
        },
      ]);
      expect(await store.count('acme', { status: 'active' })).toBe(1);

      const fixed = await call('PUT', `/policies/${created.body.id}`, {
        content: 'briefings: true\ntask_discovery: true\n',
        changeReason: 'the flag is briefings',
      });
      expect(fixed.status).toBe(200);
      expect(fixed.body).not.toHaveProperty('warnings');
      const broken = await call('PUT', `/policies/${created.body.id}`, {
        content: 'briefings: true\nstandup-summary: true\n',
        changeReason: 'typo',
      });
      expect(broken.status).toBe(200);
      expect(broken.body.warnings).toEqual([
        expect.objectContaining({ field: 'content.standup-summary', suggestion: 'standup_summary' }),
      ]);

      // The OpenAPI document describes the field.
      const doc = (await (await gov.handle(new Request('http://gw/api/v1/openapi.json'))).json()) as {
        components: { schemas: Record<string, { properties: Record<string, { type?: string }> }> };
      };
      expect(doc.components.schemas.PolicyWritten?.properties.warnings?.type).toBe('array');
    } finally {
      await gov.close();
    }
  });
});
