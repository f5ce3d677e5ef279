/** biome-ignore-all lint/suspicious/noExplicitAny: JSON bodies of a black-box HTTP suite are read without schemas */
/**
 * MCP plugin routes (`@agentgov/mcp/gateway`): the Streamable HTTP endpoint's 401 challenge and
 * protected-resource metadata; tool calls waiting for a human — listed for the user whose call it
 * is, an org_admin of their org and the enterprise_admin (never another tenant), decided once by
 * the user or an admin over them (others get 404, as if absent), audited, then usable by exactly
 * one call; notices scoped the same way; every route in the OpenAPI document.
 */
import type { ToolApproval, ToolCallInbox } from '@agentgov/core';
import type { McpPlugin } from '@agentgov/mcp/gateway';
import { describe, expect, it } from 'vitest';
import type { Harness } from '../harness';

const DIGEST = `sha256:${'ab'.repeat(32)}`;

const request = (inbox: ToolCallInbox, tenantId: string, userId: string, tool = 'notes__send_message') =>
  inbox.request(
    {
      tenantId,
      userId,
      tool,
      policyTool: tool,
      upstream: 'notes',
      argumentsDigest: DIGEST,
      reason: `${tool} needs a human`,
      ttlMs: 3_600_000,
    },
    new Date(),
  );

export function mcpCases(h: Harness): void {
  describe('mcp', () => {
    const plugin = () => h.gov.plugins.find((p) => p.name === 'mcp') as McpPlugin;
    const seeded = {} as Record<'alice' | 'alice2' | 'bob' | 'lead' | 'globex', ToolApproval>;
    const ids = (r: any): string[] => r.body.approvals.map((a: any) => a.id).sort();

    it('seeds pending tool calls through the plugin’s inbox', async () => {
      // everyone once, so the org directory knows where they sit
      for (const who of ['user', 'userSales', 'teamLead', 'orgAdmin'] as const)
        expect((await h.call('/auth/userinfo', { as: who })).status).toBe(200);
      const inbox = plugin().inbox;
      seeded.alice = await request(inbox, 'acme', 'u-alice');
      seeded.alice2 = await request(inbox, 'acme', 'u-alice', 'notes__delete_file');
      seeded.bob = await request(inbox, 'acme', 'u-bob');
      seeded.lead = await request(inbox, 'acme', 'tl-platform');
      seeded.globex = await request(inbox, 'globex', 'u-alice');
    });

    it('401 without a token: the approvals, decisions and notices; the MCP endpoint challenges with its resource metadata', async () => {
      h.expectError(await h.call('/mcp/approvals'), 401);
      h.expectError(
        await h.call(`/mcp/approvals/${seeded.alice.id}/approve`, { method: 'POST', body: {} }),
        401,
      );
      h.expectError(await h.call('/mcp/notices'), 401);
      const bogus = await h.call('/mcp/approvals', { token: 'not-a-jwt' });
      expect(bogus.status).toBe(401);
      const mcp = await h.call('/mcp', {
        method: 'POST',
        headers: { accept: 'application/json, text/event-stream' },
        body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      });
      expect(mcp.status).toBe(401);
      const challenge = mcp.headers.get('www-authenticate') ?? '';
      expect(challenge).toMatch(
        /^Bearer resource_metadata="[^"]+\/api\/v1\/\.well-known\/oauth-protected-resource\/mcp"/,
      );
      // An ID token is not an access token for the MCP resource.
      const idToken = await h.call('/mcp', {
        as: 'user',
        method: 'POST',
        headers: { accept: 'application/json, text/event-stream' },
        body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      });
      expect(idToken.status).toBe(401);
      expect(idToken.headers.get('www-authenticate')).toContain('error="invalid_token"');
      const metadata = await h.call('/.well-known/oauth-protected-resource/mcp');
      expect(metadata.status).toBe(200);
      expect(metadata.body).toMatchObject({
        authorization_servers: [h.idp.issuer],
        bearer_methods_supported: ['header'],
      });
      expect(typeof metadata.body.resource).toBe('string');
    });

    it('GET /mcp/approvals: the caller’s own; an org_admin’s org; the enterprise_admin’s tenant; never another tenant’s', async () => {
      expect(ids(await h.call('/mcp/approvals', { as: 'user' }))).toEqual(
        [seeded.alice.id, seeded.alice2.id].sort(),
      );
      expect(ids(await h.call('/mcp/approvals', { as: 'userSales' }))).toEqual([seeded.bob.id]);
      expect(ids(await h.call('/mcp/approvals', { as: 'teamLead' }))).toEqual([seeded.lead.id]);
      expect(ids(await h.call('/mcp/approvals', { as: 'orgAdmin' }))).toEqual(
        [seeded.alice.id, seeded.alice2.id, seeded.lead.id].sort(),
      );
      expect(ids(await h.call('/mcp/approvals', { as: 'orgAdminSales' }))).toEqual([seeded.bob.id]);
      expect(ids(await h.call('/mcp/approvals', { as: 'enterpriseAdmin' }))).toEqual(
        [seeded.alice.id, seeded.alice2.id, seeded.bob.id, seeded.lead.id].sort(),
      );
      expect(ids(await h.call('/mcp/approvals', { as: 'otherTenantAdmin' }))).toEqual([seeded.globex.id]);
      // A userId outside the caller's scope reads nothing; inside it, that user's.
      expect(ids(await h.call('/mcp/approvals?userId=u-bob', { as: 'user' }))).toEqual([]);
      expect(ids(await h.call('/mcp/approvals?userId=u-bob', { as: 'orgAdmin' }))).toEqual([]);
      expect(ids(await h.call('/mcp/approvals?userId=u-bob', { as: 'enterpriseAdmin' }))).toEqual([
        seeded.bob.id,
      ]);
      const one = (await h.call('/mcp/approvals?userId=u-bob', { as: 'enterpriseAdmin' })).body.approvals[0];
      expect(one).toMatchObject({
        tenantId: 'acme',
        userId: 'u-bob',
        tool: 'notes__send_message',
        upstream: 'notes',
        argumentsDigest: DIGEST,
        status: 'pending',
      });
      h.expectError(await h.call('/mcp/approvals?status=nonsense', { as: 'user' }), 400);
    });

    it('approver rules: neither the user nor an admin over them → 404; another tenant → 404', async () => {
      for (const as of ['userSales', 'teamLead', 'orgAdminSales', 'otherTenantAdmin'] as const) {
        h.expectError(
          await h.call(`/mcp/approvals/${seeded.alice.id}/approve`, { as, method: 'POST', body: {} }),
          404,
          'NOT_FOUND',
        );
      }
      h.expectError(
        await h.call('/mcp/approvals/unknown-approval/approve', {
          as: 'enterpriseAdmin',
          method: 'POST',
          body: {},
        }),
        404,
        'NOT_FOUND',
      );
      h.expectError(
        await h.call(`/mcp/approvals/${seeded.alice.id}/approve`, {
          as: 'user',
          method: 'POST',
          body: { note: 'ok', extra: true },
        }),
        400,
      );
      expect((await plugin().inbox.get('acme', seeded.alice.id, new Date()))?.status).toBe('pending');
    });

    it('POST …/approve by the user: decided once, audited, usable by exactly one call', async () => {
      const r = await h.call(`/mcp/approvals/${seeded.alice.id}/approve`, {
        as: 'user',
        method: 'POST',
        body: { note: 'go ahead' },
      });
      expect(r.status, r.text).toBe(200);
      expect(r.body).toMatchObject({
        id: seeded.alice.id,
        status: 'approved',
        decidedBy: 'u-alice',
        note: 'go ahead',
      });
      // Decided once: a second decision, either way, is a 404.
      h.expectError(
        await h.call(`/mcp/approvals/${seeded.alice.id}/reject`, {
          as: 'enterpriseAdmin',
          method: 'POST',
          body: {},
        }),
        404,
        'NOT_FOUND',
      );
      const audit = await h.call('/audit?actionType=tool_invocation&page_size=100', {
        as: 'enterpriseAdmin',
      });
      expect(audit.status).toBe(200);
      expect(audit.body.entries.map((e: any) => e.actionDetail)).toContainEqual(
        expect.objectContaining({
          event: 'approval_granted',
          approvalId: seeded.alice.id,
          approverUserId: 'u-alice',
        }),
      );
      const key = {
        tenantId: 'acme',
        userId: 'u-alice',
        policyTool: 'notes__send_message',
        argumentsDigest: DIGEST,
      };
      expect((await plugin().inbox.consume(key, new Date()))?.id).toBe(seeded.alice.id);
      expect(await plugin().inbox.consume(key, new Date())).toBeUndefined();
    });

    it('POST …/approve and …/reject by an admin over the user: the org_admin of their org, the enterprise_admin', async () => {
      const byOrgAdmin = await h.call(`/mcp/approvals/${seeded.alice2.id}/reject`, {
        as: 'orgAdmin',
        method: 'POST',
        body: {},
      });
      expect(byOrgAdmin.status, byOrgAdmin.text).toBe(200);
      expect(byOrgAdmin.body).toMatchObject({ status: 'rejected', decidedBy: 'oa-eng' });
      const byAdmin = await h.call(`/mcp/approvals/${seeded.bob.id}/approve`, {
        as: 'enterpriseAdmin',
        method: 'POST',
        body: {},
      });
      expect(byAdmin.status, byAdmin.text).toBe(200);
      expect(byAdmin.body).toMatchObject({ status: 'approved', decidedBy: 'ea-1' });
      expect(ids(await h.call('/mcp/approvals?status=pending', { as: 'enterpriseAdmin' }))).toEqual([
        seeded.lead.id,
      ]);
      expect(ids(await h.call('/mcp/approvals?status=rejected', { as: 'user' }))).toEqual([seeded.alice2.id]);
    });

    it('GET /mcp/notices: scoped as the approvals; the routes are in the OpenAPI document', async () => {
      const inbox = plugin().inbox;
      const base = {
        tool: 'notes__read_file',
        upstream: 'notes',
        argumentsDigest: DIGEST,
        outcome: 'success' as const,
      };
      await inbox.notice({ ...base, tenantId: 'acme', userId: 'u-alice' }, new Date());
      await inbox.notice({ ...base, tenantId: 'acme', userId: 'u-bob' }, new Date());
      const users = async (as: 'user' | 'orgAdmin' | 'enterpriseAdmin' | 'otherTenantAdmin') =>
        (await h.call('/mcp/notices', { as })).body.notices.map((n: any) => n.userId).sort();
      expect(await users('user')).toEqual(['u-alice']);
      expect(await users('orgAdmin')).toEqual(['u-alice']);
      expect(await users('enterpriseAdmin')).toEqual(['u-alice', 'u-bob']);
      expect(await users('otherTenantAdmin')).toEqual([]);
      const doc = await h.call('/openapi.json');
      expect(Object.keys(doc.body.paths)).toEqual(
        expect.arrayContaining([
          '/api/v1/mcp',
          '/api/v1/mcp/approvals',
          '/api/v1/mcp/approvals/{id}/approve',
          '/api/v1/mcp/approvals/{id}/reject',
          '/api/v1/mcp/notices',
        ]),
      );
    });
  });
}
