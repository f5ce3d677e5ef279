/**
 * The Streamable HTTP endpoint on a real server (port 0) behind the gateway kernel, against a real
 * OIDC provider (oidc-provider on loopback) and the SDK's own StreamableHTTPClientTransport.
 */

import { type Governance, OidcClient } from '@agentgov/gateway';
import {
  createTestGovernance,
  listen,
  type StartedServer,
  startTestIssuer,
  type TestIssuer,
  testOidcConfig,
} from '@agentgov/gateway/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type McpPlugin, mcpRoutes } from '../src/gateway/index';
import { refusalOf } from '../src/index';
import { makeProxyWorld, type ProxyWorld } from './harness';

let idp: TestIssuer;
beforeAll(async () => {
  idp = await startTestIssuer();
});
afterAll(async () => {
  await idp.close();
});

let world: ProxyWorld;
let gov: Governance;
let plugin: McpPlugin;
let server: StartedServer;
let resource: string;
const clients: Client[] = [];

beforeEach(async () => {
  world = await makeProxyWorld();
  let handler: Governance | undefined;
  server = await listen((req, res) => {
    handler?.handleNode(req, res).catch((error: unknown) => res.destroy(error as Error));
  });
  resource = `${server.url}/api/v1/mcp`;
  plugin = mcpRoutes({
    governor: world.proxy.governor,
    oidc: testOidcConfig(idp),
    resource,
    audit: world.audit,
    directory: world.directory,
    clock: world.clock,
    maxSessions: 6,
    maxSessionsPerUser: 3,
  });
  gov = createTestGovernance(idp, { plugins: [plugin], directory: world.directory });
  await gov.start();
  handler = gov;
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => {})));
  await gov.close();
  await server.close();
  await world.close();
});

const accessToken = (sub: string, options: { audience?: string; roles?: string[]; tenant?: string } = {}) =>
  idp.signIdToken(
    { sub, tenant_id: options.tenant ?? 'acme', roles: options.roles ?? ['user'], client_id: 'assistant' },
    { typ: 'at+jwt', audience: options.audience ?? resource },
  );
const ORG: Record<string, string> = { alice: 'eng', bob: 'eng', olga: 'eng', sam: 'sales' };
const idToken = (sub: string, roles: string[] = ['user']) =>
  idp.signIdToken({ sub, tenant_id: 'acme', roles, ...(ORG[sub] ? { org_unit: ORG[sub] } : {}) });

async function connect(token: string, options: { elicit?: boolean } = {}) {
  const client = new Client(
    { name: 'http-assistant', version: '1' },
    { capabilities: options.elicit ? { elicitation: { form: {} } } : {} },
  );
  if (options.elicit)
    client.setRequestHandler(ElicitRequestSchema, async () => ({
      action: 'accept',
      content: { approve: true },
    }));
  const transport = new StreamableHTTPClientTransport(new URL(resource), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  clients.push(client);
  return { client, transport };
}

/** A raw `initialize` POST to the endpoint (`accept`: what the client says it takes). */
const initializeRequest = (token?: string, accept = 'application/json, text/event-stream') =>
  new Request(resource, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept,
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
    }),
  });
const initialize = (token?: string) => fetch(initializeRequest(token));

describe('the MCP endpoint is an OAuth resource server', () => {
  it('401 without a token, with WWW-Authenticate naming the protected-resource metadata', async () => {
    const r = await initialize();
    expect(r.status).toBe(401);
    const challenge = r.headers.get('www-authenticate') ?? '';
    expect(challenge).toMatch(/^Bearer resource_metadata="/);
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1] as string;
    const metadata = await (await fetch(metadataUrl)).json();
    expect(metadata).toMatchObject({
      resource,
      authorization_servers: [idp.issuer],
      bearer_methods_supported: ['header'],
    });
  });

  it('refuses a token for another audience, an ID token, and a forged token (401 invalid_token)', async () => {
    for (const token of [
      await accessToken('alice', { audience: 'https://other.example/mcp' }),
      await idToken('alice'),
      `${(await accessToken('alice')).slice(0, -4)}AAAA`,
    ]) {
      const r = await initialize(token);
      expect(r.status).toBe(401);
      expect(r.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    }
    expect(plugin.sessions()).toBe(0);
    expect(world.state.calls).toEqual([]);
  });

  it('given an OidcClient for another audience (the gateway’s own), it still takes only tokens for this resource', async () => {
    const own = new OidcClient(testOidcConfig(idp));
    const other = mcpRoutes({ governor: world.proxy.governor, oidc: own, resource, audit: world.audit });
    const governance = createTestGovernance(idp, { plugins: [other], directory: world.directory });
    await governance.start();
    try {
      const init = (token: string) => governance.handle(initializeRequest(token));
      const gatewayAudience = own.config.accessTokenAudience ?? own.config.clientId;
      expect((await init(await accessToken('alice', { audience: gatewayAudience }))).status).toBe(401);
      const ok = await init(await accessToken('alice'));
      expect(ok.status).toBe(200);
      await ok.body?.cancel();
    } finally {
      await governance.close();
    }
  });

  it('the SDK client works through it; the user is the token’s subject', async () => {
    const { client } = await connect(await accessToken('alice'));
    const names = (await client.listTools()).tools.map((t) => t.name).sort();
    expect(names).toEqual([
      'notes__delete_file',
      'notes__read_file',
      'notes__search_notes',
      'notes__send_message',
    ]);
    const r = await client.callTool({
      name: 'notes__read_file',
      arguments: { path: '/notes/a.md', userId: 'bob' },
    });
    expect(r.content).toEqual([{ type: 'text', text: 'alpha plan' }]);
    expect(world.audit.entries.at(-1)).toMatchObject({
      userId: 'alice',
      actionDetail: { via: 'http', decision: 'autonomous' },
    });
  });

  it('another user’s token on a session is answered as an unknown session', async () => {
    const { transport } = await connect(await accessToken('alice'));
    const sessionId = transport.sessionId as string;
    expect(sessionId).toBeTruthy();
    const r = await fetch(resource, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${await accessToken('bob')}`,
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 9,
        method: 'tools/call',
        params: { name: 'notes__read_file', arguments: { path: '/notes/a.md' } },
      }),
    });
    expect(r.status).toBe(404);
    expect(world.state.calls).toEqual([]);
  });

  it('elicitation reaches the assistant’s user over the call’s event stream', async () => {
    const { client } = await connect(await accessToken('alice'), { elicit: true });
    const r = await client.callTool({ name: 'notes__delete_file', arguments: { path: '/notes/b.md' } });
    expect(r.content).toEqual([{ type: 'text', text: 'deleted /notes/b.md' }]);
    expect(world.audit.entries.at(-1)).toMatchObject({
      actionDetail: { approverUserId: 'alice', approvalVia: 'elicitation' },
    });
  });
});

describe('sessions are bounded', () => {
  const sessionOf = async (token: string) => {
    const res = await initialize(token);
    expect(res.status).toBe(200);
    await res.body?.cancel();
    return res.headers.get('mcp-session-id') as string;
  };
  const listWith = (token: string, sessionId: string) =>
    fetch(resource, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${token}`,
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });

  it('one user’s sessions beyond their bound close their least recently used; others still get theirs', async () => {
    const mallory = await accessToken('mallory');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push(await sessionOf(mallory));
      world.clock.advance(1000);
    }
    expect(plugin.sessions()).toBe(3);
    // The two oldest were closed; the three newest serve.
    for (const id of ids.slice(0, 2)) expect((await listWith(mallory, id)).status).toBe(404);
    for (const id of ids.slice(2)) expect((await listWith(mallory, id)).status).toBe(200);
    // Everybody else still gets sessions, up to the overall bound.
    await sessionOf(await accessToken('alice'));
    await sessionOf(await accessToken('bob'));
    await sessionOf(await accessToken('olga'));
    expect(plugin.sessions()).toBe(6);
    expect((await initialize(await accessToken('sam'))).status).toBe(503);
  });

  it('an initialize the transport refuses leaves no session and no server behind', async () => {
    const token = await accessToken('mallory');
    const notified = vi.spyOn(Server.prototype, 'sendToolListChanged');
    try {
      for (let i = 0; i < 20; i++) {
        // The Streamable HTTP transport needs both media types: 406 Not Acceptable.
        const res = await fetch(initializeRequest(token, 'application/json'));
        expect(res.status).toBe(406);
      }
      expect(plugin.sessions()).toBe(0);
      // A change of the tools reaches the servers still subscribed: none.
      world.proxy.governor.upstreams[0]?.onToolsChanged?.();
      expect(notified).not.toHaveBeenCalled();
    } finally {
      notified.mockRestore();
    }
  });
});

describe('pending approvals over the gateway', () => {
  const api = (path: string, token: string, init: RequestInit = {}) =>
    fetch(`${server.url}/api/v1${path}`, {
      ...init,
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        ...(init.headers ?? {}),
      },
    });

  it('the user or an admin over them decides; the assistant’s retry runs once', async () => {
    const { client } = await connect(await accessToken('alice'));
    const call = { name: 'notes__delete_file', arguments: { path: '/notes/a.md' } };
    const first = await client.callTool(call).catch((e: unknown) => e);
    const approvalId = refusalOf(first)?.approvalId as string;
    expect(approvalId).toBeTruthy();

    const mine = await (await api('/mcp/approvals?status=pending', await idToken('alice'))).json();
    expect(mine.approvals.map((a: { id: string }) => a.id)).toEqual([approvalId]);
    // bob (same org, no admin role) and sam (another org) see nothing and cannot decide.
    expect((await (await api('/mcp/approvals', await idToken('bob'))).json()).approvals).toEqual([]);
    expect(
      (
        await api(`/mcp/approvals/${approvalId}/approve`, await idToken('bob'), {
          method: 'POST',
          body: '{}',
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await api(`/mcp/approvals/${approvalId}/approve`, await idToken('sam', ['org_admin']), {
          method: 'POST',
          body: '{}',
        })
      ).status,
    ).toBe(404);

    // olga is the org_admin of eng: she may decide alice's call.
    const decided = await api(`/mcp/approvals/${approvalId}/approve`, await idToken('olga', ['org_admin']), {
      method: 'POST',
      body: JSON.stringify({ note: 'ok once' }),
    });
    expect(decided.status).toBe(200);
    expect(await decided.json()).toMatchObject({ status: 'approved', decidedBy: 'olga' });
    expect(world.audit.entries.at(-1)).toMatchObject({
      userId: 'alice',
      actionDetail: { event: 'approval_granted', approverUserId: 'olga' },
    });
    // Deciding twice: no longer pending.
    expect(
      (
        await api(`/mcp/approvals/${approvalId}/reject`, await idToken('alice'), {
          method: 'POST',
          body: '{}',
        })
      ).status,
    ).toBe(404);

    const ok = await client.callTool(call);
    expect(ok.content).toEqual([{ type: 'text', text: 'deleted /notes/a.md' }]);
    expect(world.audit.entries.at(-1)).toMatchObject({
      outcome: 'success',
      actionDetail: { approverUserId: 'olga', approvalId },
    });
    const replay = await client.callTool(call).catch((e: unknown) => e);
    expect(refusalOf(replay)?.refusal).toBe('approval_required');
    expect(world.state.deleted).toEqual(['/notes/a.md']);
  });

  it('notices of notify tools are listed for the user', async () => {
    const { client } = await connect(await accessToken('alice'));
    await client.callTool({ name: 'notes__send_message', arguments: { to: 'bob', text: 'hi' } });
    const r = await (await api('/mcp/notices', await idToken('alice'))).json();
    expect(r.notices).toMatchObject([{ userId: 'alice', tool: 'notes__send_message', outcome: 'success' }]);
    expect((await (await api('/mcp/notices', await idToken('bob'))).json()).notices).toEqual([]);
  });
});
