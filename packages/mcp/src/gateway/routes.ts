/**
 * `mcpRoutes(...)`: the MCP proxy's gateway plugin.
 *
 * - `POST|GET|DELETE /mcp`: the governed proxy over Streamable HTTP (the SDK's web-standard
 *   transport, one session per `Mcp-Session-Id`). The proxy is an OAuth resource server (MCP
 *   authorization): a bearer JWT access token (RFC 9068) for this resource's audience, verified
 *   with the gateway's OIDC code (issuer, audience, expiry, keys); without one, 401 with
 *   `WWW-Authenticate: Bearer resource_metadata="…"`. The session's user is the token's `sub`,
 *   bound to the session: another user's token on it is answered 404.
 * - `GET /.well-known/oauth-protected-resource/mcp`: the protected-resource metadata (RFC 9728).
 * - `GET /mcp/approvals`, `POST /mcp/approvals/{id}/approve|reject`, `GET /mcp/notices`: the
 *   inbox of tool calls waiting for a human. The approver is the user whose call it is, the
 *   tenant's enterprise_admin, or an org_admin of the user's org.
 */
import { randomUUID } from 'node:crypto';
import {
  type AuditSink,
  type AuthenticatedContext,
  type Clock,
  defineRoute,
  errorSpec as err,
  ForbiddenError,
  type GatewayPlugin,
  GovernanceError,
  guardPort,
  hasRole,
  IdParams,
  NotFoundError,
  nowMs,
  type OrgDirectory,
  systemClock,
  type ToolApproval,
  ToolApprovalSchema,
  ToolApprovalStatusSchema,
  type ToolCallInbox,
  ToolNoticeSchema,
} from '@agentgov/core';
import { OidcClient, type OidcConfig, principalFromClaims } from '@agentgov/gateway';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { SessionIdentity, ToolGovernor } from '../governor';
import { createProxyServer, type ProxyServer } from '../proxy';

export interface McpRoutesOptions {
  /** The governor serving the sessions (e.g. `createMcpProxy(config, deps).governor`). */
  governor: ToolGovernor;
  /**
   * The OIDC issuer whose access tokens the endpoint accepts; `accessTokenAudience` is set to
   * `resource`. An `OidcClient` is used as it is (its `accessTokenAudience` must be `resource`).
   */
  oidc: OidcConfig | OidcClient;
  /** This endpoint's resource identifier (its public URL, e.g. `https://gov.example/api/v1/mcp`). */
  resource: string;
  /** Where the humans' approval decisions are audited. */
  audit: AuditSink;
  /** The org tree: an org_admin decides for the users of their org. */
  directory?: OrgDirectory;
  clock?: Clock;
  /** Most open sessions (default 1000): an initialize beyond it is answered 503. */
  maxSessions?: number;
  /** A session unused this long is closed (default 30 min). */
  sessionIdleMs?: number;
  /** Largest request body, bytes (default 1 MiB). */
  bodyLimit?: number;
  /** Called when the plugin closes (e.g. the proxy's `close`, ending the upstreams). */
  onClose?: () => Promise<void>;
}

export interface McpPlugin extends GatewayPlugin {
  readonly inbox: ToolCallInbox;
  /** Open Streamable HTTP sessions. */
  readonly sessions: () => number;
}

interface HttpSession {
  transport: WebStandardStreamableHTTPServerTransport;
  proxy: ProxyServer;
  identity: SessionIdentity;
  lastUsed: number;
}

const ApprovalOut = ToolApprovalSchema.meta({ id: 'ToolApproval' });
const NoticeOut = ToolNoticeSchema.meta({ id: 'ToolNotice' });

export const ApprovalListQuery = z.object({
  status: ToolApprovalStatusSchema.optional(),
  userId: z.string().min(1).max(255).optional(),
});

export const ApprovalDecisionBody = z.strictObject({ note: z.string().max(4096).optional() });

/** Most approvals or notices one list answers (the newest). */
const LIST_LIMIT = 500;

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

export function mcpRoutes(options: McpRoutesOptions): McpPlugin {
  const { governor } = options;
  const inbox = guardPort(governor.inbox, 'tool-call inbox');
  const clock = options.clock ?? systemClock;
  const directory = options.directory && guardPort(options.directory, 'org directory');
  const oidc =
    options.oidc instanceof OidcClient
      ? options.oidc
      : new OidcClient({ ...options.oidc, accessTokenAudience: options.resource });
  const maxSessions = options.maxSessions ?? 1000;
  const idleMs = options.sessionIdleMs ?? 30 * 60_000;
  const bodyLimit = options.bodyLimit ?? 1024 * 1024;
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

  /** The user the users' list of `viewer` covers: undefined = the whole tenant. */
  const scopeOf = async (rc: AuthenticatedContext): Promise<readonly string[] | undefined> => {
    const p = rc.principal;
    if (hasRole(p, 'enterprise_admin')) return undefined;
    if (directory && p.orgUnit && hasRole(p, 'org_admin')) {
      const users = await directory.users(rc.tenantId, { scope: 'org', scopeId: p.orgUnit });
      return [...new Set([...users, p.userId])];
    }
    return [p.userId];
  };

  const metadataPath = '/.well-known/oauth-protected-resource/mcp';
  const metadataUrl = (url: URL) => `${url.origin}${url.pathname.replace(/\/mcp$/, '')}${metadataPath}`;

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
      return unauthorized(url, 'invalid_token', `an ID token is not an access token for ${options.resource}`);
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
    const reader = request.body?.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    if (reader) {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.byteLength;
        if (size > bodyLimit) {
          await reader.cancel().catch(() => {});
          return json(413, {
            error: 'payload_too_large',
            message: `The request body exceeds ${bodyLimit} bytes`,
          });
        }
        chunks.push(value);
      }
    }
    try {
      return JSON.parse(Buffer.concat(chunks).toString('utf8'));
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
    return transport.handleRequest(request, { parsedBody });
  }

  const endpoint = (method: 'POST' | 'GET' | 'DELETE') =>
    defineRoute({
      method,
      path: '/mcp',
      operationId: `mcp${method[0]}${method.slice(1).toLowerCase()}`,
      summary:
        method === 'POST'
          ? 'MCP Streamable HTTP: JSON-RPC messages to the governed tool proxy (bearer access token for this resource)'
          : method === 'GET'
            ? 'MCP Streamable HTTP: the session’s server-to-client event stream'
            : 'MCP Streamable HTTP: end the session',
      auth: 'none',
      rateLimit: 'mcp_messages',
      responses: {
        200: { description: 'JSON-RPC answer (application/json or text/event-stream)' },
        202: { description: 'Notification or response accepted' },
        400: err('no valid session id, or malformed JSON-RPC'),
        401: err('authentication_required or invalid_token (WWW-Authenticate names the resource metadata)'),
        404: err('unknown session (or another user’s)'),
      },
      async handler({ request, url }) {
        return serve(request, url);
      },
    });

  const decide = (approved: boolean) =>
    defineRoute({
      method: 'POST',
      path: `/mcp/approvals/{id}/${approved ? 'approve' : 'reject'}`,
      operationId: approved ? 'approveToolCall' : 'rejectToolCall',
      summary: approved
        ? 'Approve one pending tool call (this tool, these arguments, once); the assistant calls again to run it'
        : 'Reject one pending tool call',
      auth: 'required',
      rateLimit: 'mcp_decisions',
      params: IdParams,
      body: ApprovalDecisionBody,
      responses: {
        200: { description: 'The approval with the decision recorded', schema: ApprovalOut },
        403: err('forbidden (neither the user nor an admin over them)'),
        404: err('NOT_FOUND (no such approval, or it is no longer pending)'),
      },
      async handler({ params, body }, rc) {
        const a = await inbox.get(rc.tenantId, params.id, clock.now());
        const scope = await scopeOf(rc);
        if (!a || (scope && !scope.includes(a.userId)))
          throw new NotFoundError(`No tool-call approval ${params.id}`);
        if (a.userId !== rc.principal.userId && !hasRole(rc.principal, 'enterprise_admin', 'org_admin'))
          throw new ForbiddenError('Only the user or an admin over them decides this call');
        const decided = await inbox.decide(
          rc.tenantId,
          params.id,
          { approved, by: rc.principal.userId, ...(body.note ? { note: body.note } : {}) },
          clock.now(),
        );
        if (!decided) throw new NotFoundError(`Tool-call approval ${params.id} is ${a.status}, not pending`);
        const audited = await options.audit.append(decisionAudit(decided, rc.requestId));
        if (audited.isErr()) throw audited.error;
        return { status: 200, body: decided };
      },
    });

  return {
    name: 'mcp',
    inbox,
    sessions: () => sessions.size,
    rateLimits: {
      mcp_messages: { points: 600, durationSeconds: 60 },
      mcp_reads: { points: 120, durationSeconds: 60 },
      mcp_decisions: { points: 60, durationSeconds: 60 },
    },
    async health() {
      const h = governor.health();
      return Object.fromEntries(
        Object.entries(h).map(([ns, state]) => [`mcp upstream ${ns}`, state !== 'unhealthy']),
      );
    },
    async close() {
      await Promise.all([...sessions.keys()].map(closeSession));
      await options.onClose?.();
    },
    routes: [
      endpoint('POST'),
      endpoint('GET'),
      endpoint('DELETE'),
      defineRoute({
        method: 'GET',
        path: metadataPath,
        operationId: 'mcpProtectedResourceMetadata',
        summary: 'OAuth protected-resource metadata (RFC 9728) of the MCP endpoint',
        auth: 'none',
        rateLimit: 'mcp_reads',
        responses: { 200: { description: 'The metadata' } },
        async handler() {
          return {
            status: 200,
            body: {
              resource: options.resource,
              authorization_servers: [oidc.config.issuer],
              bearer_methods_supported: ['header'],
              resource_name: 'agentgov governed MCP tools',
            },
          };
        },
      }),
      defineRoute({
        method: 'GET',
        path: '/mcp/approvals',
        operationId: 'listToolCallApprovals',
        summary:
          'Tool calls waiting for (or decided by) a human: the caller’s own; an org_admin’s org; the enterprise_admin’s tenant',
        auth: 'required',
        rateLimit: 'mcp_reads',
        query: ApprovalListQuery,
        responses: {
          200: {
            description: 'Approvals, newest first',
            schema: z.object({ approvals: z.array(ApprovalOut) }),
          },
        },
        async handler({ query }, rc) {
          const scope = await scopeOf(rc);
          const userIds = query.userId
            ? scope && !scope.includes(query.userId)
              ? []
              : [query.userId]
            : scope;
          const approvals = await inbox.list(rc.tenantId, clock.now(), {
            ...(userIds ? { userIds } : {}),
            ...(query.status ? { status: query.status } : {}),
            limit: LIST_LIMIT,
          });
          return { status: 200, body: { approvals } };
        },
      }),
      decide(true),
      decide(false),
      defineRoute({
        method: 'GET',
        path: '/mcp/notices',
        operationId: 'listToolCallNotices',
        summary: 'Calls of `notify` tools the users were told about (scoped as the approvals)',
        auth: 'required',
        rateLimit: 'mcp_reads',
        responses: {
          200: { description: 'Notices, newest first', schema: z.object({ notices: z.array(NoticeOut) }) },
        },
        async handler(_input, rc) {
          const scope = await scopeOf(rc);
          return {
            status: 200,
            body: {
              notices: await inbox.notices(rc.tenantId, {
                ...(scope ? { userIds: scope } : {}),
                limit: LIST_LIMIT,
              }),
            },
          };
        },
      }),
    ],
  };
}

/** The audit entry of a human's decision on a tool call. */
function decisionAudit(a: ToolApproval, requestId: string) {
  return {
    tenantId: a.tenantId,
    userId: a.userId,
    actionType: 'tool_invocation' as const,
    actionDetail: {
      event: a.status === 'approved' ? 'approval_granted' : 'approval_rejected',
      approvalId: a.id,
      tool: a.tool,
      upstream: a.upstream,
      argumentsDigest: a.argumentsDigest,
      approver: a.decidedBy,
    },
    policyApplied: 'actions',
    policyResult: 'require_approval' as const,
    policyReason: a.reason.slice(0, 2000),
    outcome: a.status === 'approved' ? ('success' as const) : ('denied' as const),
    requestId,
  };
}
