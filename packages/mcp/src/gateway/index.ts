/** `@agentgov/mcp/gateway`: the MCP proxy over Streamable HTTP and the inbox of tool calls for humans. */
export {
  ApprovalDecisionBody,
  ApprovalListQuery,
  type McpPlugin,
  type McpRoutesOptions,
  mcpRoutes,
} from './routes';
