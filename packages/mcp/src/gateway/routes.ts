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
 *
 * The Streamable HTTP endpoint and its sessions are in `./streamable-http`, the inbox routes in
 * `./approval-routes`; this file assembles the plugin.
 */
import {
  type AuditSink,
  type Clock,
  defineRoute,
  errorSpec as err,
  type GatewayPlugin,
  guardPort,
  type OrgDirectory,
  systemClock,
  type ToolCallInbox,
} from '@agentgov/core';
import { OidcClient, type OidcConfig } from '@agentgov/gateway';
import type { ToolGovernor } from '../governor';
import { approvalRoutes } from './approval-routes';
import { METADATA_PATH, streamableEndpoint } from './streamable-http';

export { ApprovalDecisionBody, ApprovalListQuery } from './approval-routes';

export interface McpRoutesOptions {
  /** The governor serving the sessions (e.g. `createMcpProxy(config, deps).governor`). */
  governor: ToolGovernor;
  /**
   * The OIDC issuer whose access tokens the endpoint accepts; `accessTokenAudience` is set to
   * `resource`. An `OidcClient` is used as it is when its `accessTokenAudience` is `resource`;
   * for another audience, a client of its configuration with this audience is made.
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
  /**
   * Most open sessions of one user (default 16): their initialize beyond it closes their least
   * recently used session, so one user's client cannot take everybody's sessions.
   */
  maxSessionsPerUser?: number;
  /** A session unused this long is closed (default 30 min). */
  sessionIdleMs?: number;
  /** Largest request body, bytes (default 1 MiB). */
  bodyLimit?: number;
  /** Called when the plugin closes (e.g. the proxy's `close`, ending the upstreams). */
  onClose?: () => Promise<void>;
}

export interface McpPlugin extends GatewayPlugin {
  readonly inbox: ToolCallInbox;
  /** The protected resource: the audience of the access tokens the endpoint accepts. */
  readonly resource: string;
  /** Where the plugin serves the resource's metadata (RFC 9728), below the API's base path. */
  readonly metadataPath: string;
  /** A tenant's actions policy changed: its open sessions are told to list the tools again. */
  toolsChanged(tenantId: string): void;
  /** Open Streamable HTTP sessions. */
  readonly sessions: () => number;
}

export function mcpRoutes(options: McpRoutesOptions): McpPlugin {
  const { governor } = options;
  const inbox = guardPort(governor.inbox, 'tool-call inbox');
  const clock = options.clock ?? systemClock;
  const directory = options.directory && guardPort(options.directory, 'org directory');
  // Access tokens for this resource only: an OidcClient for another audience (the gateway's own,
  // say) is not used as it is — a client of the same issuer for this audience is made from its
  // configuration.
  const oidc =
    options.oidc instanceof OidcClient && options.oidc.config.accessTokenAudience === options.resource
      ? options.oidc
      : new OidcClient({
          ...(options.oidc instanceof OidcClient ? options.oidc.config : options.oidc),
          accessTokenAudience: options.resource,
        });
  const endpointSessions = streamableEndpoint({
    governor,
    oidc,
    resource: options.resource,
    clock,
    maxSessions: options.maxSessions ?? 1000,
    maxSessionsPerUser: options.maxSessionsPerUser ?? 16,
    idleMs: options.sessionIdleMs ?? 30 * 60_000,
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
  });

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
        return endpointSessions.serve(request, url);
      },
    });

  return {
    name: 'mcp',
    inbox,
    resource: options.resource,
    metadataPath: METADATA_PATH,
    toolsChanged: (tenantId: string) => governor.toolsChanged(tenantId),
    sessions: () => endpointSessions.size(),
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
      await endpointSessions.closeAll();
      await options.onClose?.();
    },
    routes: [
      endpoint('POST'),
      endpoint('GET'),
      endpoint('DELETE'),
      defineRoute({
        method: 'GET',
        path: METADATA_PATH,
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
      ...approvalRoutes({ inbox, audit: options.audit, directory, clock }),
    ],
  };
}
