/** biome-ignore-all lint/suspicious/noExplicitAny: JSON bodies of a black-box HTTP suite are read without schemas */
/** Connectors: create, list, disable, PATCH (extension); one active tracker/codehost; /status degraded by an unhealthy connector. */
import { describe, expect, it } from 'vitest';
import type { Harness } from '../harness';

export function connectorCases(h: Harness): void {
  describe('connectors', () => {
    it('create, list, disable; the secret reference only', async () => {
      const r = await h.call('/connectors', {
        as: 'orgAdmin',
        method: 'POST',
        body: { type: 'codehost', credentials_secret_ref: 'codehost-token', config: { org: 'acme' } },
      });
      expect(r.status, r.text).toBe(201);
      expect(r.body).toMatchObject({
        type: 'codehost',
        tenantId: 'acme',
        credentialsSecretRef: 'codehost-token',
        config: { org: 'acme' },
        status: 'active',
        defaultClassification: 'public',
      });
      expect(r.body.credentials_secret_ref).toBeUndefined();
      const mail = await h.call('/connectors', {
        as: 'enterpriseAdmin',
        method: 'POST',
        body: { type: 'mail', credentials_secret_ref: 'm' },
      });
      expect(mail.body.defaultClassification).toBe('internal');
      const list = await h.call('/connectors', { as: 'enterpriseAdmin' });
      expect(list.body.total).toBe(list.body.connectors.length);
      expect(list.body.connectors.map((c: any) => c.id)).toContain(r.body.id);
      const del = await h.call(`/connectors/${r.body.id}`, { as: 'orgAdmin', method: 'DELETE' });
      expect(del.status).toBe(200);
      expect(del.body).toEqual({ id: r.body.id, status: 'disabled' });
      const after = await h.call('/connectors', { as: 'orgAdmin' });
      expect(after.body.connectors.find((c: any) => c.id === r.body.id).status).toBe('disabled');
      h.expectError(
        await h.call(`/connectors/${r.body.id}`, { as: 'otherTenantAdmin', method: 'DELETE' }),
        404,
        'NOT_FOUND',
      );
      expect((await h.call('/connectors', { as: 'otherTenantAdmin' })).body.total).toBe(0);
    });
    it('validation and roles', async () => {
      const m = await h.call('/connectors', {
        as: 'orgAdmin',
        method: 'POST',
        body: { credentials_secret_ref: 'x' },
      });
      h.expectError(m, 400, 'missing_type');
      expect(m.body.message).toContain('type');
      h.expectError(
        await h.call('/connectors', {
          as: 'orgAdmin',
          method: 'POST',
          body: { type: 'fax', credentials_secret_ref: 'x' },
        }),
        400,
        'invalid_type',
      );
      h.expectError(await h.call('/connectors', { as: 'teamLead' }), 403, 'forbidden');
      h.expectError(
        await h.call('/connectors', {
          as: 'user',
          method: 'POST',
          body: { type: 'mail', credentials_secret_ref: 'x' },
        }),
        403,
        'forbidden',
      );
    });

    it('PATCH /connectors/{id}: config as a merge patch, credentials, webhook secret rotation, status', async () => {
      const { server: s } = await h.setup();
      h.extra.push(s);
      const base = s.url;
      const created = await h.call('/connectors', {
        as: 'orgAdmin',
        base,
        method: 'POST',
        body: {
          type: 'tracker',
          credentials_secret_ref: 'tracker-token',
          config: {
            baseUrl: 'https://jira.example.com',
            users: { 'acc-a': 'u-a' },
            webhookSecretRef: 'wh-1',
          },
        },
      });
      expect(created.status, created.text).toBe(201);
      const id = created.body.id;
      const patched = await h.call(`/connectors/${id}`, {
        as: 'orgAdmin',
        base,
        method: 'PATCH',
        body: { config: { users: { 'acc-b': 'u-b' }, baseUrl: null, syncIntervalSeconds: 60 } },
      });
      expect(patched.status, patched.text).toBe(200);
      expect(patched.body).toMatchObject({
        id,
        type: 'tracker',
        status: 'active',
        credentialsSecretRef: 'tracker-token',
        config: {
          users: { 'acc-a': 'u-a', 'acc-b': 'u-b' },
          webhookSecretRef: 'wh-1',
          syncIntervalSeconds: 60,
        },
        lastSyncAt: null,
        errorDetails: null,
      });
      expect(patched.body.config).not.toHaveProperty('baseUrl');
      const rotated = await h.call(`/connectors/${id}`, {
        as: 'enterpriseAdmin',
        base,
        method: 'PATCH',
        body: {
          webhook_secret_ref: 'wh-2',
          rotation_window_seconds: 3600,
          credentials_secret_ref: 'tracker-token-2',
        },
      });
      expect(rotated.status, rotated.text).toBe(200);
      expect(rotated.body.credentialsSecretRef).toBe('tracker-token-2');
      expect(rotated.body.config).toMatchObject({
        webhookSecretRef: 'wh-2',
        previousWebhookSecretRef: 'wh-1',
      });
      const ends = Date.parse(rotated.body.config.webhookRotationEndsAt) - Date.now();
      expect(ends).toBeGreaterThan(0);
      expect(ends).toBeLessThanOrEqual(3_600_000);
      const listed = await h.call('/connectors', { as: 'orgAdmin', base });
      expect(listed.body.connectors.find((c: any) => c.id === id)).toEqual(rotated.body);
      const off = await h.call(`/connectors/${id}`, {
        as: 'orgAdmin',
        base,
        method: 'PATCH',
        body: { status: 'disabled' },
      });
      expect(off.body.status).toBe('disabled');
      const on = await h.call(`/connectors/${id}`, {
        as: 'orgAdmin',
        base,
        method: 'PATCH',
        body: { status: 'active' },
      });
      expect(on.body.status).toBe('active');
    });
    it('PATCH /connectors/{id}: bad input 400, unknown id 404, roles 403', async () => {
      const { server: s } = await h.setup();
      h.extra.push(s);
      const base = s.url;
      const c = await h.call('/connectors', {
        as: 'orgAdmin',
        base,
        method: 'POST',
        body: { type: 'mail', credentials_secret_ref: 'm', config: {} },
      });
      const path = `/connectors/${c.body.id}`;
      const patch = (body: unknown, as: 'orgAdmin' | 'teamLead' | 'user' | 'otherTenantAdmin' = 'orgAdmin') =>
        h.call(path, { as, base, method: 'PATCH', body });
      h.expectError(await patch({}), 400, 'invalid_type');
      h.expectError(await patch({ type: 'drive' }), 400, 'invalid_type');
      h.expectError(await patch({ status: 'error' }), 400, 'invalid_type');
      h.expectError(await patch({ config: [] }), 400, 'invalid_type');
      h.expectError(await patch({ credentials_secret_ref: '' }), 400, 'invalid_type');
      h.expectError(await patch({ rotation_window_seconds: 60 }), 400, 'invalid_type');
      const plain = await patch({ config: { apiToken: 'hunter2' } });
      h.expectError(plain, 400, 'invalid_type');
      expect(plain.text).toContain('config.apiToken');
      expect(plain.text).not.toContain('hunter2');
      h.expectError(
        await h.call(path, {
          as: 'orgAdmin',
          base,
          method: 'PATCH',
          raw: '{"config":',
          headers: { 'content-type': 'application/json' },
        }),
        400,
      );
      h.expectError(await patch({ status: 'disabled' }, 'teamLead'), 403, 'forbidden');
      h.expectError(await patch({ status: 'disabled' }, 'user'), 403, 'forbidden');
      h.expectError(await patch({ status: 'disabled' }, 'otherTenantAdmin'), 404, 'NOT_FOUND');
      h.expectError(
        await h.call('/connectors/00000000-0000-4000-8000-000000000000', {
          as: 'orgAdmin',
          base,
          method: 'PATCH',
          body: { status: 'active' },
        }),
        404,
        'NOT_FOUND',
      );
      const unchanged = await h.call('/connectors', { as: 'orgAdmin', base });
      expect(unchanged.body.connectors[0]).toMatchObject({
        id: c.body.id,
        config: {},
        credentialsSecretRef: 'm',
      });
    });
    // Found by a black-box probe: a config work tracking cannot use was stored (201/200) and
    // silently broke the integration (every signed code-host delivery then got 401).
    it('a tracker or codehost config work tracking cannot use is 400 naming the field, nothing stored; other types take any config', async () => {
      const { server: s } = await h.setup();
      h.extra.push(s);
      const base = s.url;
      const post = (type: string, config: unknown) =>
        h.call('/connectors', {
          as: 'orgAdmin',
          base,
          method: 'POST',
          body: { type, credentials_secret_ref: 'r', config },
        });
      for (const [type, config, field] of [
        ['tracker', { baseUrl: 'not a url' }, 'config.baseUrl'],
        ['tracker', { baseUrl: 'ftp://x' }, 'config.baseUrl'],
        ['tracker', { projectKeys: 'GLX' }, 'config.projectKeys'],
        ['tracker', { syncIntervalSeconds: 1 }, 'config.syncIntervalSeconds'],
        ['codehost', { users: 'octocat' }, 'config.users'],
        ['codehost', { webhookSecretRef: 'wh', apiBaseUrl: 'file:///etc' }, 'config.apiBaseUrl'],
      ] as const) {
        const r = await post(type, config);
        h.expectError(r, 400, 'invalid_type');
        expect(r.body.detail?.map((d: any) => d.field)).toEqual([field]);
        expect(r.body.message).toContain(field);
      }
      expect((await h.call('/connectors', { as: 'orgAdmin', base })).body.total).toBe(0);
      // Other types, and keys work tracking does not read, are left alone.
      expect((await post('mail', { users: 'octocat', baseUrl: 'ftp://x' })).status).toBe(201);
      const tracker = await post('tracker', {
        baseUrl: 'https://jira.example.com',
        projectKeys: ['GLX'],
        team: 'x',
      });
      expect(tracker.status, tracker.text).toBe(201);
      const patch = (body: unknown) =>
        h.call(`/connectors/${tracker.body.id}`, { as: 'orgAdmin', base, method: 'PATCH', body });
      const bad = await patch({ config: { projectKeys: 'GLX', syncIntervalSeconds: 86_401 } });
      h.expectError(bad, 400, 'invalid_type');
      expect(bad.body.detail.map((d: any) => d.field).sort()).toEqual([
        'config.projectKeys',
        'config.syncIntervalSeconds',
      ]);
      const listed = await h.call('/connectors', { as: 'orgAdmin', base });
      expect(listed.body.connectors.find((c: any) => c.id === tracker.body.id).config).toEqual({
        baseUrl: 'https://jira.example.com',
        projectKeys: ['GLX'],
        team: 'x',
      });
      expect((await patch({ config: { syncIntervalSeconds: 600 } })).status).toBe(200);
    });
    it('one active tracker and one active codehost per tenant: a second is 409 CONNECTOR_ALREADY_ACTIVE', async () => {
      const { server: s } = await h.setup();
      h.extra.push(s);
      const base = s.url;
      const post = (type: string, as: 'orgAdmin' | 'otherTenantAdmin' = 'orgAdmin') =>
        h.call('/connectors', {
          as,
          base,
          method: 'POST',
          body: { type, credentials_secret_ref: 'r', config: {} },
        });
      const first = await post('tracker');
      expect(first.status).toBe(201);
      const second = await post('tracker');
      h.expectError(second, 409, 'CONNECTOR_ALREADY_ACTIVE');
      expect(second.body.message).toContain(first.body.id);
      expect((await post('codehost')).status).toBe(201);
      h.expectError(await post('codehost'), 409, 'CONNECTOR_ALREADY_ACTIVE');
      expect((await post('mail')).status).toBe(201);
      expect((await post('mail')).status).toBe(201);
      expect((await post('tracker', 'otherTenantAdmin')).status).toBe(201);
      // Disabled, the first no longer counts; re-activating it while another is active is refused.
      await h.call(`/connectors/${first.body.id}`, { as: 'orgAdmin', base, method: 'DELETE' });
      const replacement = await post('tracker');
      expect(replacement.status).toBe(201);
      h.expectError(
        await h.call(`/connectors/${first.body.id}`, {
          as: 'orgAdmin',
          base,
          method: 'PATCH',
          body: { status: 'active' },
        }),
        409,
        'CONNECTOR_ALREADY_ACTIVE',
      );
      const list = await h.call('/connectors', { as: 'orgAdmin', base });
      expect(
        list.body.connectors
          .filter((c: any) => c.type === 'tracker')
          .map((c: any) => c.status)
          .sort(),
      ).toEqual(['active', 'disabled']);
    });
    it('/status is degraded (503) while a configured connector is unhealthy, healthy again once it is fixed', async () => {
      const { server: s } = await h.setup();
      h.extra.push(s);
      const base = s.url;
      const c = await h.call('/connectors', {
        as: 'orgAdmin',
        base,
        method: 'POST',
        body: {
          type: 'codehost',
          credentials_secret_ref: 'not-in-the-secret-store',
          config: { name: 'github' },
        },
      });
      expect(c.status).toBe(201);
      const bad = await h.call('/status', { as: 'orgAdmin', base });
      expect(bad.status).toBe(503);
      expect(bad.body).toMatchObject({
        status: 'degraded',
        components: {
          gateway: { status: 'healthy' },
          database: { status: 'healthy' },
          connectors: { github: { status: 'unhealthy' } },
        },
      });
      expect(Number.isNaN(Date.parse(bad.body.timestamp))).toBe(false);
      // An anonymous caller sees no connectors, so none of them degrades its answer.
      expect((await h.call('/status', { base })).status).toBe(200);
      // The service's secret store holds `codehost-webhook`: pointing the connector at it fixes it.
      const fixed = await h.call(`/connectors/${c.body.id}`, {
        as: 'orgAdmin',
        base,
        method: 'PATCH',
        body: { credentials_secret_ref: 'codehost-webhook' },
      });
      expect(fixed.status).toBe(200);
      const good = await h.call('/status', { as: 'orgAdmin', base });
      expect(good.status).toBe(200);
      expect(good.body.status).toBe('healthy');
      expect(good.body.components.connectors.github.status).toBe('healthy');
      // A disabled connector is not configured any more: it neither shows nor degrades.
      await h
        .call('/connectors', {
          as: 'orgAdmin',
          base,
          method: 'POST',
          body: { type: 'mail', credentials_secret_ref: 'missing', config: { name: 'mail' } },
        })
        .then(async (m) => h.call(`/connectors/${m.body.id}`, { as: 'orgAdmin', base, method: 'DELETE' }));
      const after = await h.call('/status', { as: 'orgAdmin', base });
      expect(after.status).toBe(200);
      expect(Object.keys(after.body.components.connectors)).toEqual(['github']);
    });
  });
}
