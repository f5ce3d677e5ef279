/**
 * The MCP proxy's Streamable HTTP endpoint (`/mcp`, mounted by `./routes`): the SDK's
 * web-standard transport, one proxy session per `Mcp-Session-Id`, bounded in number and closed
 * when idle. The endpoint is an OAuth resource server (MCP authorization): a bearer JWT access
 * token (RFC 9068) for this resource's audience, verified with the gateway's OIDC code; without
 * one, 401 with `WWW-Authenticate: Bearer resource_metadata="…"` naming the protected-resource
 * metadata. A session is bound to its user: another user's token on it is answered 404.
 */
import { randomUUID } from 'node:crypto';
import { type Clock, GovernanceError, nowMs, readUpTo } from '@agentgov/core';
import { type OidcClient, principalFromClaims } from '@agentgov/gateway';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { SessionIdentity, ToolGovernor } from '../governor';
import { createProxyServer, type ProxyServer } from '../proxy';

interface HttpSession {
  transport: WebStandardStreamableHTTPServerTransport;
  proxy: ProxyServer;
  identity: SessionIdentity;
  lastUsed: number;
}

/** Where the endpoint's protected-resource metadata (RFC 9728) is served. */
export const METADATA_PATH = '/.well-known/oauth-protected-resource/mcp';

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

/**
 * The Streamable HTTP sessions of one MCP plugin: `serve` answers one request to `/mcp` (POST, GET
 * or DELETE), `size` counts the open sessions, `closeAll` closes every one.
 */
export function streamableEndpoint(settings: {
  governor: ToolGovernor;
  oidc: OidcClient;
  resource: string;
  clock: Clock;
  maxSessions: number;
  /** Most open sessions of one user: a new one closes that user's least recently used. */
  maxSessionsPerUser: number;
  idleMs: number;
  bodyLimit: number;
}) {
  const { governor, oidc, resource, clock, maxSessions, maxSessionsPerUser, idleMs, bodyLimit } = settings;
  const sessions = new Map<string, HttpSession>();

  const closeSession = async (id: string) => {
    const s = sessions.get(id);
    sessions.delete(id);
    await s?.proxy.server.close().catch(() => {});
  };
  const sweep = async () => {
    const now = nowMs(clock);
    for (const [id, s] of sessions) if (now - s.lastUsed > idleMs) await closeSession(id);
  };

  const metadataUrl = (url: URL) => `${url.origin}${url.pathname.replace(/\/mcp$/, '')}${METADATA_PATH}`;

  /** 401 with the MCP authorization challenge. */
  const unauthorized = (url: URL, error?: string, description?: string) =>
    json(
      401,
      {
        error: error ? 'invalid_token' : 'authentication_required',
        message: description ?? 'A bearer access token for this MCP resource is required',
      },
      {
        'www-authenticate': `Bearer resource_metadata="${metadataUrl(url)}"${
          error ? `, error="${error}", error_description="${(description ?? '').replace(/["\\]/g, "'")}"` : ''
        }`,
      },
    );

  async function identify(request: Request, url: URL): Promise<SessionIdentity | Response> {
    const header = request.headers.get('authorization') ?? '';
    const m = /^Bearer\s+([A-Za-z0-9._~+/=-]+)\s*$/i.exec(header);
    if (!m?.[1]) return unauthorized(url);
    let verified: Awaited<ReturnType<OidcClient['verifyBearer']>>;
    try {
      verified = await oidc.verifyBearer(m[1]);
    } catch (error) {
      if (error instanceof GovernanceError && error.code === 'invalid_token')
        return unauthorized(url, 'invalid_token', String(error.detail ?? error.message));
      return json(503, { error: 'service_unavailable', message: 'The identity provider cannot be reached' });
    }
    if (verified.kind !== 'access_token')
      return unauthorized(url, 'invalid_token', `an ID token is not an access token for ${resource}`);
    const principal = principalFromClaims(verified.claims, 'bearer');
    if (!principal.ok) return unauthorized(url, 'invalid_token', principal.reason);
    return { tenantId: principal.principal.tenantId, userId: principal.principal.userId };
  }

  async function readJson(request: Request): Promise<unknown | Response> {
    const declared = Number(request.headers.get('content-length') ?? '0');
    if (declared > bodyLimit)
      return json(413, {
        error: 'payload_too_large',
        message: `The request body exceeds ${bodyLimit} bytes`,
      });
    const bytes = await readUpTo(request.body, bodyLimit);
    if (!bytes)
      return json(413, {
        error: 'payload_too_large',
        message: `The request body exceeds ${bodyLimit} bytes`,
      });
    try {
      return JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
    } catch {
      return json(400, { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null });
    }
  }

  async function serve(request: Request, url: URL): Promise<Response> {
    const who = await identify(request, url);
    if (who instanceof Response) return who;
    await sweep();
    let parsedBody: unknown;
    if (request.method === 'POST') {
      parsedBody = await readJson(request);
      if (parsedBody instanceof Response) return parsedBody;
    }
    const sessionId = request.headers.get('mcp-session-id');
    const notFound = () =>
      json(404, { jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null });
    if (sessionId) {
      const s = sessions.get(sessionId);
      // Another user's token on a session is answered as an unknown session (no oracle).
      if (!s || s.identity.tenantId !== who.tenantId || s.identity.userId !== who.userId) return notFound();
      s.lastUsed = nowMs(clock);
      const response = await s.transport.handleRequest(request, { parsedBody });
      if (request.method === 'DELETE') await closeSession(sessionId);
      return response;
    }
    const initialize =
      request.method === 'POST' &&
      (isInitializeRequest(parsedBody) ||
        (Array.isArray(parsedBody) && parsedBody.some((m) => isInitializeRequest(m))));
    if (!initialize)
      return json(400, {
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Bad Request: no valid session id' },
        id: null,
      });
    // One user's sessions are bounded on their own (a client that never ends its sessions churns
    // its user's oldest, not everybody's share): that user's least recently used one is closed.
    const own = [...sessions].filter(
      ([, s]) => s.identity.tenantId === who.tenantId && s.identity.userId === who.userId,
    );
    if (own.length >= maxSessionsPerUser) {
      own.sort(([, a], [, b]) => a.lastUsed - b.lastUsed);
      for (const [oldest] of own.slice(0, own.length - maxSessionsPerUser + 1)) await closeSession(oldest);
    }
    if (sessions.size >= maxSessions)
      return json(
        503,
        { error: 'service_unavailable', message: 'Too many open MCP sessions' },
        { 'retry-after': '60' },
      );
    const id = randomUUID();
    const proxy = createProxyServer(governor, { identity: who, via: 'http', sessionId: id });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      onsessioninitialized: (sid) => {
        sessions.set(sid, { transport, proxy, identity: who, lastUsed: nowMs(clock) });
      },
    });
    transport.onclose = () => {
      sessions.delete(id);
    };
    await proxy.server.connect(transport);
    const response = await transport.handleRequest(request, { parsedBody });
    // An initialize the transport refused (a wrong Accept, a malformed batch…) opened no session:
    // its server is closed now (it holds a subscription to the governor's tool changes).
    if (!sessions.has(id)) await proxy.server.close().catch(() => {});
    return response;
  }

  return {
    serve,
    size: () => sessions.size,
    closeAll: async () => {
      await Promise.all([...sessions.keys()].map(closeSession));
    },
  };
}
