/** The `authenticate` option: exactly one of it and `oidc` (issue 28); HTTP behaviour: http-suite `application-auth`. */
import { InMemoryAuditSink, InMemoryOrgDirectory, InMemorySecretStore, type Principal } from '@agentgov/core';
import { describe, expect, it } from 'vitest';
import { createGovernance, createMemoryStores, type GovernanceConfig } from '../src/index';
import { OFFLINE_ISSUER, testOidcConfig } from '../src/testing/index';

const base = (): GovernanceConfig => ({
  stores: createMemoryStores(),
  directory: new InMemoryOrgDirectory(),
  secrets: new InMemorySecretStore(),
  audit: new InMemoryAuditSink(),
});
const alice: Principal = {
  userId: 'alice',
  email: 'alice@app.test',
  roles: ['user'],
  tenantId: 't',
  orgUnit: null,
  team: null,
  via: 'bearer',
};

describe('createGovernance: oidc or authenticate', () => {
  it('refuses neither and both, naming the two settings', () => {
    expect(() => createGovernance(base())).toThrow(/exactly one of `oidc`.*`authenticate`/);
    expect(() =>
      createGovernance({ ...base(), oidc: testOidcConfig(OFFLINE_ISSUER), authenticate: async () => alice }),
    ).toThrow(/exactly one of `oidc`/);
  });

  it("with authenticate: the function's principal is the caller (Fetch path), none is a 401", async () => {
    const gov = createGovernance({
      ...base(),
      authenticate: async (request) => (request.headers.get('x-app-user') === 'alice' ? alice : undefined),
    });
    try {
      const me = await gov.handle(
        new Request('http://gw/api/v1/auth/userinfo', { headers: { 'x-app-user': 'alice' } }),
      );
      expect(me.status).toBe(200);
      expect(await me.json()).toMatchObject({ userId: 'alice', tenantId: 't', roles: ['user'] });
      const anonymous = await gov.handle(new Request('http://gw/api/v1/connectors'));
      expect(anonymous.status).toBe(401);
      expect(await anonymous.json()).toMatchObject({ error: 'authentication_required' });
      expect(Object.keys(gov.openapi.paths)).not.toContain('/api/v1/auth/login');
      expect(Object.keys(gov.openapi.paths)).toContain('/api/v1/auth/userinfo');
    } finally {
      await gov.close();
    }
  });
});
