/** biome-ignore-all lint/suspicious/noExplicitAny: JSON bodies of a black-box HTTP suite are read without schemas */
/**
 * Connectors and the secret store, which every tenant shares: a connector never names the
 * server's own secrets, and a reference another tenant holds never resolves for it.
 */
import { describe, expect, it } from 'vitest';
import type { Harness } from '../harness';

export function connectorSecretCases(h: Harness): void {
  describe('connectors and the shared secret store', () => {
    it('a connector never names one of the server’s own secrets (the store is every tenant’s): 400, nothing stored', async () => {
      for (const ref of [
        'audit-commitment-key',
        'audit-signing-key',
        'AGENTGOV-session-key',
        ' audit-x',
        'audit_commitment_key',
        'Audit.Signing.Key',
      ]) {
        const r = await h.call('/connectors', {
          as: 'orgAdmin',
          method: 'POST',
          body: {
            type: 'tracker',
            credentials_secret_ref: ref,
            config: { baseUrl: 'https://tracker.example' },
          },
        });
        h.expectError(r, 400, 'invalid_type');
        expect(r.body.message).toContain('credentials_secret_ref');
        expect(JSON.stringify(r.body)).toMatch(/server's own secrets/);
      }
      const listed = await h.call('/connectors', { as: 'orgAdmin' });
      const refs = (listed.body as { connectors?: { credentialsSecretRef: string }[] }).connectors ?? [];
      expect(refs.filter((c) => /^\s*(audit|agentgov)-/i.test(c.credentialsSecretRef))).toEqual([]);
      const created = await h.call('/connectors', {
        as: 'orgAdmin',
        method: 'POST',
        body: { type: 'mail', credentials_secret_ref: 'mail-token' },
      });
      expect(created.status).toBe(201);
      const id = (created.body as { id: string }).id;
      h.expectError(
        await h.call(`/connectors/${id}`, {
          as: 'orgAdmin',
          method: 'PATCH',
          body: { credentials_secret_ref: 'audit-signing-key' },
        }),
        400,
        'invalid_type',
      );
      h.expectError(
        await h.call(`/connectors/${id}`, {
          as: 'orgAdmin',
          method: 'PATCH',
          body: { webhook_secret_ref: 'audit-commitment-key' },
        }),
        400,
        'invalid_type',
      );
    });

    // Found by a black-box probe: a token pasted where its reference belongs was stored and echoed
    // back as `credentialsSecretRef`; config values already had this check.
    it('a secret reference that looks like a secret itself (a pasted token) is refused: 400 naming the field, nothing stored, not echoed', async () => {
      const token = 'ghp_ABCDEF0123456789abcdef0123456789ABCD';
      const before = await h.call('/connectors', { as: 'orgAdmin' });
      const r = await h.call('/connectors', {
        as: 'orgAdmin',
        method: 'POST',
        body: { type: 'codehost', credentials_secret_ref: token, config: {} },
      });
      h.expectError(r, 400, 'invalid_type');
      expect(r.body.message).toContain('credentials_secret_ref');
      expect(r.text).not.toContain(token);
      const after = await h.call('/connectors', { as: 'orgAdmin' });
      expect(after.body.total).toBe(before.body.total);
      expect(after.text).not.toContain(token);
      const created = await h.call('/connectors', {
        as: 'orgAdmin',
        method: 'POST',
        body: { type: 'mail', credentials_secret_ref: 'mail-token-2' },
      });
      for (const body of [
        { credentials_secret_ref: token },
        { webhook_secret_ref: 'xoxb-1234567890-abcdefghij' },
      ]) {
        const p = await h.call(`/connectors/${created.body.id}`, { as: 'orgAdmin', method: 'PATCH', body });
        h.expectError(p, 400, 'invalid_type');
        expect(p.text).not.toContain(Object.values(body)[0]);
      }
    });

    // Found in the session-15 review: the secret store is one namespace for every tenant, so one
    // tenant's admin could name another tenant's reference and have a connector send that secret
    // to a URL of their choosing. A reference now belongs to the first tenant that names it, and
    // resolves for no other (the spec's POST still takes any reference: 201, never resolving).
    it('a secret reference another tenant holds never resolves for a tenant, under any spelling, even once the holder’s connector is disabled', async () => {
      const { server: s } = await h.setup();
      h.extra.push(s);
      const base = s.url;
      // The service's secret store holds `codehost-webhook`; acme names it first.
      const own = await h.call('/connectors', {
        as: 'orgAdmin',
        base,
        method: 'POST',
        body: { type: 'mail', credentials_secret_ref: 'codehost-webhook', config: { name: 'acme-mail' } },
      });
      expect(own.status, own.text).toBe(201);
      const status = async (as: 'orgAdmin' | 'otherTenantAdmin') => {
        const r = await h.call('/status', { as, base });
        return r.body.components.connectors as Record<
          string,
          { status: string; lastFailure?: { reason: string } }
        >;
      };
      expect((await status('orgAdmin'))['acme-mail']?.status).toBe('healthy');
      for (const [i, ref] of ['codehost-webhook', 'CODEHOST_WEBHOOK', 'Codehost.Webhook'].entries()) {
        const theirs = await h.call('/connectors', {
          as: 'otherTenantAdmin',
          base,
          method: 'POST',
          body: { type: 'mail', credentials_secret_ref: ref, config: { name: `stolen-${i}` } },
        });
        expect(theirs.status, theirs.text).toBe(201);
        const seen = (await status('otherTenantAdmin'))[`stolen-${i}`];
        expect(seen?.status).toBe('unhealthy');
        expect(seen?.lastFailure?.reason).toContain("or another tenant's");
      }
      // A PATCH to it does not resolve either, nor once the holder's connector is disabled.
      const other = await h.call('/connectors', {
        as: 'otherTenantAdmin',
        base,
        method: 'POST',
        body: { type: 'drive', credentials_secret_ref: 'globex-drive', config: { name: 'drive' } },
      });
      expect(other.status).toBe(201);
      expect(
        (await h.call(`/connectors/${own.body.id}`, { as: 'orgAdmin', base, method: 'DELETE' })).status,
      ).toBe(200);
      const patched = await h.call(`/connectors/${other.body.id}`, {
        as: 'otherTenantAdmin',
        base,
        method: 'PATCH',
        body: { credentials_secret_ref: 'codehost-webhook' },
      });
      expect(patched.status, patched.text).toBe(200);
      expect((await status('otherTenantAdmin')).drive?.status).toBe('unhealthy');
      // The holder's next connector naming it resolves as before.
      const again = await h.call('/connectors', {
        as: 'orgAdmin',
        base,
        method: 'POST',
        body: { type: 'mail', credentials_secret_ref: 'codehost-webhook', config: { name: 'acme-mail-2' } },
      });
      expect(again.status).toBe(201);
      expect((await status('orgAdmin'))['acme-mail-2']?.status).toBe('healthy');
    });
  });
}
