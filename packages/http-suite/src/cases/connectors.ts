/** biome-ignore-all lint/suspicious/noExplicitAny: JSON bodies of a black-box HTTP suite are read without schemas */
/** Connectors: create, list, disable; validation and roles. */
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
  });
}
