/**
 * Issue 14: `/status` shows the caller's tenant's connectors by name with the reason of the last
 * failed probe and when it was seen; connector config accepts secrets only as references.
 */
import { InMemorySecretStore, ManualClock } from '@agentgov/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Governance } from '../src/index';
import { createTestGovernance, startTestIssuer, type TestIssuer } from '../src/testing/index';

let idp: TestIssuer;
let admin: string;
beforeAll(async () => {
  idp = await startTestIssuer();
  admin = await idp.signIdToken({ sub: 'ea', roles: ['enterprise_admin'], tenant_id: 'acme' });
});
afterAll(async () => {
  await idp.close();
});

const call = (gov: Governance, path: string, init: RequestInit = {}) =>
  gov.handle(
    new Request(`http://gw/api/v1${path}`, {
      ...init,
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
    }),
  );
const create = (gov: Governance, config: Record<string, unknown>, ref = 'tracker-token', type = 'tracker') =>
  call(gov, '/connectors', {
    method: 'POST',
    body: JSON.stringify({ type, credentials_secret_ref: ref, config }),
  });

describe('/status connectors', () => {
  it('names each connector and says why and when its probe last failed', async () => {
    const secrets = new InMemorySecretStore({ 'tracker-token': 'x' });
    const clock = new ManualClock('2026-11-23T10:00:00.000Z');
    const gov = createTestGovernance(idp, { secrets, clock });
    try {
      expect((await create(gov, { name: 'jira-prod' })).status).toBe(201);
      expect((await create(gov, { name: 'jira-sandbox' }, 'missing-ref', 'mail')).status).toBe(201);
      const body = (await (await call(gov, '/status')).json()) as {
        components: {
          connectors: Record<string, { status: string; lastFailure?: { reason: string; at: string } }>;
        };
      };
      expect(body.components.connectors['jira-sandbox']).toEqual({
        status: 'unhealthy',
        lastFailure: {
          reason:
            "its credentials secret reference 'missing-ref' does not resolve for this tenant (not in the secret store, or another tenant's)",
          at: '2026-11-23T10:00:00.000Z',
        },
      });
      expect(body.components.connectors['jira-prod']).toEqual({ status: 'healthy' });
    } finally {
      await gov.close();
    }
  });
});

describe('connector config holds references, never secrets', () => {
  it.each([
    [{ apiToken: 'abc123' }, 'apiToken'],
    [{ auth: { password: 'hunter2' } }, 'auth.password'],
    [{ note: 'ghp_0123456789abcdefghijABCDEFGHIJ' }, 'note'],
    [{ key: '-----BEGIN RSA PRIVATE KEY-----\nMIIE' }, 'key'],
    [{ bearer: 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhIn0.c2lnbmF0dXJl' }, 'bearer'],
  ])('refuses %j with 400 naming the field', async (config, field) => {
    const gov = createTestGovernance(idp);
    try {
      const res = await create(gov, config);
      expect(res.status).toBe(400);
      const body = (await res.json()) as { detail: { field: string; message: string }[] };
      expect(body.detail.map((d) => d.field).join(' ')).toContain(field);
      expect(JSON.stringify(body)).toContain('secret store');
    } finally {
      await gov.close();
    }
  });

  it('accepts references and ordinary settings', async () => {
    const gov = createTestGovernance(idp);
    try {
      const res = await create(gov, {
        site: 'acme.atlassian.net',
        webhookSecretRef: 'jira-hook',
        project: 'GOV',
      });
      expect(res.status).toBe(201);
    } finally {
      await gov.close();
    }
  });
});
