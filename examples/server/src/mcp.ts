/**
 * Governed MCP tool calls in the reference server (an extension, optional): `AGENTGOV_MCP_CONFIG`
 * names the proxy's configuration (mcp.yaml); its Streamable HTTP endpoint `/api/v1/mcp` accepts
 * access tokens of the server's issuer for the resource `AGENTGOV_MCP_RESOURCE` (default
 * `<origin>/api/v1/mcp`). Pending approvals live in the database when there is one (any process
 * decides them; they survive restarts); per-user call limits use the server's rate limiter.
 */
import type { AuditSink, DecisionEngine, OrgDirectory, RateLimiter, ToolCallInbox } from '@agentgov/core';
import type { OidcConfig } from '@agentgov/gateway';
import type { McpPlugin } from '@agentgov/mcp/gateway';

/** The MCP plugin when `AGENTGOV_MCP_CONFIG` is set, else undefined. */
export async function mcpPluginFromEnv(
  env: Record<string, string | undefined>,
  deps: {
    engine: DecisionEngine;
    audit: AuditSink;
    directory: OrgDirectory;
    rateLimiter: RateLimiter;
    /** Where pending approvals are kept (default: in memory). */
    inbox: ToolCallInbox | undefined;
    /** The server's OIDC client (its `redirectUri` gives the default resource's origin). */
    oidc: OidcConfig;
  },
): Promise<McpPlugin | undefined> {
  if (!env.AGENTGOV_MCP_CONFIG) return undefined;
  // Loaded only when configured: the MCP SDK is a large part of the server's start-up otherwise.
  const [{ createMcpProxy, loadMcpConfig }, { mcpRoutes }] = await Promise.all([
    import('@agentgov/mcp'),
    import('@agentgov/mcp/gateway'),
  ]);
  const mcp = createMcpProxy(await loadMcpConfig(env.AGENTGOV_MCP_CONFIG), {
    engine: deps.engine,
    audit: deps.audit,
    rateLimiter: deps.rateLimiter,
    ...(deps.inbox ? { inbox: deps.inbox } : {}),
  });
  return mcpRoutes({
    governor: mcp.governor,
    oidc: deps.oidc,
    resource: env.AGENTGOV_MCP_RESOURCE || `${new URL(deps.oidc.redirectUri).origin}/api/v1/mcp`,
    audit: deps.audit,
    directory: deps.directory,
    onClose: () => mcp.close(),
  });
}
