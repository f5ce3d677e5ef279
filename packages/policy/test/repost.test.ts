/**
 * Re-POSTing the same policy (issue 14): the second POST creates nothing and answers 409
 * POLICY_ALREADY_ACTIVE with the id of the active identical policy; a changed policy is created.
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

describe('POST /policies twice with the same body', () => {
  it('answers 409 with the active policy instead of a second active copy', async () => {
    const store = new InMemoryPolicyStore();
    const plugin = policyRoutes({
      store,
      directory: new InMemoryOrgDirectory(),
      audit: new InMemoryAuditSink(),
    });
    const gov = createTestGovernance(idp, { plugins: [plugin] });
    const token = await idp.signIdToken({ sub: 'alice', roles: ['enterprise_admin'], tenant_id: 'acme' });
    const post = (body: object) =>
      gov.handle(
        new Request('http://gw/api/v1/policies', {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }),
      );
    const body = {
      scope: 'enterprise',
      scopeId: 'acme',
      domain: 'features',
      name: 'baseline',
      version: '1.0.0',
      changeReason: 'first',
      content: '{}',
    };
    const first = await post(body);
    expect(first.status).toBe(201);
    const { id } = (await first.json()) as { id: string };
    const again = await post({ ...body, changeReason: 'retry' });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ error: 'POLICY_ALREADY_ACTIVE', detail: [{ id }] });
    expect(await store.count('acme', { status: 'active' })).toBe(1);
    expect((await post({ ...body, version: '1.0.1' })).status).toBe(201);
    // six identical POSTs at once: one is created, five are told of it
    const race = { ...body, name: 'raced' };
    const statuses = (await Promise.all(Array.from({ length: 6 }, () => post(race)))).map((r) => r.status);
    expect(statuses.sort()).toEqual([201, 409, 409, 409, 409, 409]);
    expect((await store.list('acme', { status: 'active' })).filter((p) => p.name === 'raced')).toHaveLength(
      1,
    );
    await gov.close();
  });
});
