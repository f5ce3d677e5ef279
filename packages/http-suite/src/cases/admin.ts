/** biome-ignore-all lint/suspicious/noExplicitAny: JSON bodies of a black-box HTTP suite are read without schemas */
/** Tenants, status and metrics, and the fail-closed answers when a backing service is down. */
import { describe, expect, it } from 'vitest';
import { DownEngine, failingPolicyStore, type Harness, policyBody } from '../harness';

export function adminCases(h: Harness): void {
  describe('tenants, status, metrics', () => {
    it('GET /tenants and /tenants/{id}/status', async () => {
      const list = await h.call('/tenants', { as: 'enterpriseAdmin' });
      expect(list.status).toBe(200);
      expect(list.body.total).toBe(1);
      expect(list.body.tenants[0]).toMatchObject({ id: 'acme', status: 'active' });
      const t = await h.call('/tenants/acme/status', { as: 'enterpriseAdmin' });
      expect(t.status).toBe(200);
      expect(t.body).toMatchObject({ id: 'acme', name: 'acme', status: 'active' });
      expect(t.body.gatewayInstances).toBeGreaterThanOrEqual(1);
      for (const k of ['connectorCount', 'policyCount', 'userCount'])
        expect(Number.isInteger(t.body[k])).toBe(true);
      expect(typeof t.body.createdAt).toBe('string');
      h.expectError(
        await h.call('/tenants/globex/status', { as: 'enterpriseAdmin' }),
        404,
        'tenant_not_found',
      );
      h.expectError(await h.call('/tenants/nope/status', { as: 'enterpriseAdmin' }), 404, 'tenant_not_found');
      h.expectError(await h.call('/tenants', { as: 'orgAdmin' }), 403, 'forbidden');
    });
    it('GET /status is public and healthy', async () => {
      const r = await h.call('/status');
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({
        status: 'healthy',
        components: {
          gateway: { status: 'healthy' },
          policyEngine: { status: 'healthy' },
          database: { status: 'healthy' },
        },
      });
      expect(typeof r.body.components.connectors).toBe('object');
      expect(Number.isNaN(Date.parse(r.body.timestamp))).toBe(false);
    });
    it('GET /status reports what is configured: no OPA (the built-in engine) → no `opa` component', async () => {
      // It used to say `opa: healthy` for an OPA that was not there.
      const r = await h.call('/status');
      expect(r.status).toBe(200);
      expect(Object.keys(r.body.components)).not.toContain('opa');
      expect(r.body.components.policyEngine).toEqual({ status: 'healthy' });
      for (const [name, c] of Object.entries(r.body.components)) {
        if (name !== 'connectors') expect(c, name).toEqual({ status: 'healthy' });
      }
    });
    it('GET /metrics counts real activity', async () => {
      const before = await h.call('/metrics', { as: 'orgAdmin' });
      expect(before.status).toBe(200);
      for (const k of [
        'activeUsers',
        'autoResponsesSent',
        'tasksDiscovered',
        'modelCalls',
        'policyEvaluations',
        'auditEntries',
      ]) {
        expect(Number.isInteger(before.body[k]), k).toBe(true);
      }
      expect(before.body.activeUsers).toBeGreaterThanOrEqual(5);
      await h.call('/decisions', {
        as: 'user',
        method: 'POST',
        body: {
          domain: 'integrations',
          input: {
            action: 'tracker_update',
            context: { targetSystem: 'tracker', additional: { source: 'work-tracking' } },
          },
        },
      });
      const after = await h.call('/metrics', { as: 'enterpriseAdmin' });
      expect(after.body.policyEvaluations).toBe(before.body.policyEvaluations + 1);
      expect(after.body.auditEntries).toBeGreaterThan(before.body.auditEntries);
      h.expectError(await h.call('/metrics', { as: 'teamLead' }), 403, 'forbidden');
    });
    it('decision engine unreachable → decisions 503 POLICY_ENGINE_UNREACHABLE and /status 503 degraded', async () => {
      const { server: s, gov: g } = await h.setup({ engine: new DownEngine() });
      h.extra.push(s);
      try {
        const d = await h.call('/decisions', {
          as: 'user',
          base: s.url,
          method: 'POST',
          body: {
            domain: 'integrations',
            input: { action: 'tracker_update', context: { targetSystem: 'tracker' } },
          },
        });
        h.expectError(d, 503, 'POLICY_ENGINE_UNREACHABLE');
        const st = await h.call('/status', { base: s.url });
        expect(st.status).toBe(503);
        expect(st.body).toMatchObject({
          status: 'degraded',
          components: { opa: { status: 'unhealthy' }, database: { status: 'healthy' } },
        });
      } finally {
        await g.close();
      }
    });
    it('database down → 503 service_unavailable, /status degraded', async () => {
      const { server: s, gov: g } = await h.setup({
        policyStore: failingPolicyStore(),
        kernel: { probes: { database: async () => false } },
      });
      h.extra.push(s);
      try {
        h.expectError(
          await h.call('/policies', { as: 'enterpriseAdmin', base: s.url }),
          503,
          'service_unavailable',
        );
        h.expectError(
          await h.call('/policies', {
            as: 'enterpriseAdmin',
            base: s.url,
            method: 'POST',
            body: policyBody(),
          }),
          503,
          'service_unavailable',
        );
        const st = await h.call('/status', { base: s.url });
        expect(st.status).toBe(503);
        expect(st.body.components.database.status).toBe('unhealthy');
      } finally {
        await g.close();
      }
    });
  });
}
