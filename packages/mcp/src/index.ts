/**
 * `@agentgov/mcp`: governed tool calls for any Model Context Protocol server. A proxy that is an
 * MCP server to the assistant and an MCP client to the upstream servers; the actions policy
 * decides each tool per user, approvals bind the call's arguments, every call is audited.
 */
/** The inbox port lives in `@agentgov/core` (SQL implementation: `@agentgov/store-kysely`). */
export {
  InMemoryToolCallInbox,
  type ToolApproval,
  type ToolApprovalKey,
  type ToolApprovalStatus,
  type ToolCallInbox,
  type ToolNotice,
} from '@agentgov/core';
export {
  HttpUpstreamSchema,
  LimitsSchema,
  loadMcpConfig,
  MCP_PROXY_KIND,
  type McpConfig,
  McpConfigError,
  type McpConfigInput,
  McpConfigSchema,
  type McpLimits,
  NAMESPACE_PATTERN,
  parseMcpConfig,
  parseMcpConfigYaml,
  StdioUpstreamSchema,
  type UpstreamConfig,
  type UpstreamConfigInput,
  UpstreamConfigSchema,
} from './config';
export { argumentsDigest, canonicalArguments } from './digest';
export { REFUSAL_CODES, type RefusalData, type RefusalKind, refusalOf, ToolCallRefused } from './errors';
export {
  type CallContext,
  type CallSignal,
  type GovernorWarning,
  META_AUTONOMY,
  META_CLASSIFICATION,
  META_UPSTREAM,
  type SessionIdentity,
  type ToolEntry,
  ToolGovernor,
  type ToolGovernorOptions,
  type ToolSession,
} from './governor';
export { exposedName, policyName, SEPARATOR, splitExposedName } from './names';
export { createProxyServer, type ProxyServer, type ProxyServerOptions } from './proxy';
export {
  createMcpProxy,
  type GovernedTools,
  type GovernToolsOptions,
  governTools,
  type McpProxy,
  type McpProxyDeps,
} from './runtime';
export { Upstream, type UpstreamHealth, type UpstreamSpec, upstreamSpecOf } from './upstream';
