/**
 * The reference server serving governed MCP tool calls (AGENTGOV_MCP_CONFIG) on embedded PGlite:
 * a pending approval is kept in the database — acknowledged before a restart, decided through the
 * approvals route after it, used once — and the per-user call limit is the server's rate limiter.
 * The upstream is the real notes server of `examples/mcp` (stdio); the client speaks MCP Streamable
 * HTTP with fetch and a dev-issuer access token for the endpoint's resource.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ToolGovernor } from '@agentgov/mcp';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../src/config';
import { type RunningServer, startServer } from '../src/server';
import { startProcess } from './server-process';

const notesDir = fileURLToPath(new URL('../../mcp', import.meta.url));

interface RpcAnswer {
  status: number;
  sessionId: string | null;
  body: {
    result?: Record<string, unknown>;
    error?: { code: number; data?: { agentgov?: Record<string, string> } };
  };
}

/** One JSON-RPC request over Streamable HTTP (the answer read from JSON or from the SSE stream). */
async function rpc(
  endpoint: string,
  token: string,
  sessionId: string | null,
  id: number,
  method: string,
  params: Record<string, unknown>,
): Promise<RpcAnswer> {
  const res = await fetch(endpoint, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(sessionId ? { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
  });
  const text = await res.text();
  const messages = (res.headers.get('content-type') ?? '').includes('text/event-stream')
    ? text
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .map((l) => JSON.parse(l.slice(6)))
    : [JSON.parse(text)];
  return {
    status: res.status,
    sessionId: res.headers.get('mcp-session-id'),
    body: messages.find((m) => m.id === id),
  };
}

/** A session of `token`'s user on the server's MCP endpoint. */
async function session(endpoint: string, token: string) {
  const init = await rpc(endpoint, token, null, 0, 'initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'server-test', version: '1.0.0' },
  });
  expect(init.status).toBe(200);
  const sid = init.sessionId as string;
  await fetch(endpoint, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': sid,
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  let next = 1;
  return (name: string, args: Record<string, unknown>) =>
    rpc(endpoint, token, sid, next++, 'tools/call', { name, arguments: args });
}

describe('reference server: governed MCP tool calls on PGlite', () => {
  let dir: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentgov-server-mcp-'));
    const config = join(dir, 'mcp.yaml');
    await writeFile(
      config,
      [
        'identity: {tenantId: acme, userId: alice}',
        'upstreams:',
        '  - namespace: notes',
        '    transport: stdio',
        '    command: node',
        '    args: [--import, tsx, src/upstream.ts]',
        `    cwd: ${JSON.stringify(notesDir)}`,
        'limits: {callTimeoutMs: 60000, callsPerWindow: 4, windowSeconds: 3600}',
        '',
      ].join('\n'),
    );
    env = { AGENTGOV_MCP_CONFIG: config };
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('an actions policy written through the API tells the tenant’s open MCP sessions to list again', async () => {
    // The governor tells its sessions (packages/mcp's test shows each session of the tenant told).
    const notified = vi.spyOn(ToolGovernor.prototype, 'toolsChanged');
    const server = await startServer(loadConfig({ DATABASE_URL: 'memory:', PORT: '0' }), { env });
    try {
      const endpoint = `${server.url}/api/v1/mcp`;
      await session(endpoint, await server.devIssuer!.mintAccessToken('alice', endpoint));
      const before = notified.mock.calls.length;
      const idToken = await server.devIssuer!.mintIdToken('alice');
      const write = (domain: string, name: string, content: string) =>
        fetch(`${server.url}/api/v1/policies`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${idToken}`,
            'content-type': 'application/json',
          },
          body: JSON.stringify({
            scope: 'enterprise',
            scopeId: 'acme',
            domain,
            name,
            version: '1.0.0',
            changeReason: 'test',
            content,
          }),
        });
      expect((await write('features', 'briefings', 'briefings: true\n')).status).toBe(201);
      expect(notified.mock.calls.length).toBe(before); // another domain: nothing to tell
      expect((await write('actions', 'notes tools', 'default_autonomy: autonomous\n')).status).toBe(201);
      expect(notified.mock.calls.slice(before)).toEqual([['acme']]);
    } finally {
      notified.mockRestore();
      await server.close();
    }
  });

  it('`pnpm start` prints an MCP access token per development account, which the endpoint takes', async () => {
    const server = await startProcess({
      ...env,
      DATABASE_URL: 'memory:',
      PORT: '0',
      AGENTGOV_DATA_DIR: join(dir, 'banner-data'),
    });
    try {
      const out = server.stdout();
      const heading = /MCP access tokens for (\S+) \(12 hours\)/.exec(out);
      expect(heading?.[1]).toBe(`${server.url}/api/v1/mcp`);
      const tokens = Object.fromEntries(
        [...out.slice(heading?.index).matchAll(/^ {2}(\w+) +(ey[\w.-]+)$/gm)].map((m) => [m[1], m[2]]),
      );
      expect(Object.keys(tokens).sort()).toEqual(['alice', 'bob', 'carol', 'dave']);
      // The resource's metadata, also where RFC 9728 puts it (outside the API), the same answer.
      for (const path of [
        '/.well-known/oauth-protected-resource/api/v1/mcp',
        '/api/v1/.well-known/oauth-protected-resource/mcp',
      ]) {
        const metadata = await fetch(`${server.url}${path}`);
        expect([path, metadata.status]).toEqual([path, 200]);
        expect(await metadata.json()).toMatchObject({ resource: `${server.url}/api/v1/mcp` });
      }
      // An MCP session opens with dave's token (an access token for this resource)…
      await session(`${server.url}/api/v1/mcp`, tokens.dave as string);
      // …and not with an ID token of the same banner.
      const idToken = /^ {2}dave +\S+ +(ey[\w.-]+)$/m.exec(out)?.[1] as string;
      const refused = await rpc(`${server.url}/api/v1/mcp`, idToken, null, 0, 'initialize', {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'server-test', version: '1.0.0' },
      });
      expect(refused.status).toBe(401);
    } finally {
      await server.stop();
    }
  }, 60_000);

  it('a pending approval survives a restart, is decided through the route and used once; the server’s rate limiter limits each user', async () => {
    const config = loadConfig({ AGENTGOV_DATA_DIR: join(dir, 'data'), PORT: '0' });
    const message = { to: 'bob', text: 'the plan is ready' };
    let approvalId: string;
    const first: RunningServer = await startServer(config, { env });
    try {
      const idToken = await first.devIssuer!.mintIdToken('alice');
      const policy = await fetch(`${first.url}/api/v1/policies`, {
        method: 'POST',
        headers: { authorization: `Bearer ${idToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          scope: 'enterprise',
          scopeId: 'acme',
          domain: 'actions',
          name: 'notes tools',
          version: '1.0.0',
          changeReason: 'mcp server test',
          content: 'default_autonomy: autonomous\nactions: {notes__send_message: approve}\n',
        }),
      });
      expect(policy.status).toBe(201);
      const endpoint = `${first.url}/api/v1/mcp`;
      const call = await session(endpoint, await first.devIssuer!.mintAccessToken('alice', endpoint));
      const pending = await call('notes__send_message', message);
      expect(pending.body.error?.data?.agentgov).toMatchObject({ refusal: 'approval_required' });
      approvalId = pending.body.error?.data?.agentgov?.approvalId as string;
    } finally {
      await first.close();
    }

    const second = await startServer(config, { env });
    try {
      const endpoint = `${second.url}/api/v1/mcp`;
      const headers = { authorization: `Bearer ${await second.devIssuer!.mintIdToken('alice')}` };
      const listed = await fetch(`${second.url}/api/v1/mcp/approvals?status=pending`, { headers });
      expect(listed.status).toBe(200);
      expect(((await listed.json()) as { approvals: { id: string }[] }).approvals.map((a) => a.id)).toEqual([
        approvalId,
      ]);
      const approved = await fetch(`${second.url}/api/v1/mcp/approvals/${approvalId}/approve`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: '{}',
      });
      expect(approved.status).toBe(200);
      const call = await session(endpoint, await second.devIssuer!.mintAccessToken('alice', endpoint));
      const sent = await call('notes__send_message', message);
      expect(sent.body.result?.content).toEqual([{ type: 'text', text: 'message sent to bob' }]);
      const replay = await call('notes__send_message', message);
      expect(replay.body.error?.data?.agentgov).toMatchObject({ refusal: 'approval_required' });
      // callsPerWindow 4: two calls so far in this process, two more pass, the fifth is refused.
      for (let i = 0; i < 2; i++)
        expect((await call('notes__search_notes', { query: 'plan' })).body.result).toBeDefined();
      const limited = await call('notes__search_notes', { query: 'plan' });
      expect(limited.body.error?.data?.agentgov).toMatchObject({ refusal: 'rate_limit_exceeded' });
    } finally {
      await second.close();
    }
  }, 120_000);
});
