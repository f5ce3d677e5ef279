/**
 * The shapes the governor comes in: `createMcpProxy(config, deps)` (the configured upstreams,
 * served over stdio or any transport), and `governTools(server | client, options)` for runtimes
 * that embed the SDK in-process.
 */
import {
  type AuditSink,
  type ClassificationLevel,
  type Clock,
  type DecisionEngine,
  InMemoryToolCallInbox,
  type RateLimiter,
  type ToolCallInbox,
} from '@agentgov/core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { type McpConfig, type McpConfigInput, McpConfigSchema, type McpLimits } from './config';
import {
  type CallContext,
  type GovernorWarning,
  type SessionIdentity,
  ToolGovernor,
  type ToolSession,
} from './governor';
import { createProxyServer, type ProxyServer } from './proxy';
import { answerMalformedLines } from './stdio';
import { Upstream, type UpstreamSpec, upstreamSpecOf } from './upstream';

export interface McpProxyDeps {
  engine: DecisionEngine;
  audit: AuditSink;
  /** Pending approvals and notices (default: in memory). */
  inbox?: ToolCallInbox;
  rateLimiter?: RateLimiter;
  clock?: Clock;
  onWarning?: (warning: GovernorWarning) => void;
  /**
   * Transports replacing configured upstreams, by namespace (in-process servers, tests); the
   * configuration still gives their namespace and classification.
   */
  connect?: Record<string, () => Transport>;
}

export interface McpProxy {
  readonly config: McpConfig;
  readonly governor: ToolGovernor;
  /** A governed server for one session of `identity`, connected to `transport`. */
  connect(
    transport: Transport,
    identity: SessionIdentity,
    via?: ToolSession['via'],
    sessionId?: string,
  ): Promise<ProxyServer>;
  /** Serves one session on this process's stdin/stdout as the configured `identity`. */
  serveStdio(): Promise<ProxyServer>;
  close(): Promise<void>;
}

/** The proxy of a configuration: its upstreams (connected lazily), the governor, the sessions. */
export function createMcpProxy(config: McpConfig | McpConfigInput, deps: McpProxyDeps): McpProxy {
  const parsed = McpConfigSchema.parse(config);
  const upstreams = parsed.upstreams.map((u) => {
    const spec = upstreamSpecOf(u);
    const replaced = deps.connect?.[u.namespace];
    return new Upstream(replaced ? { ...spec, connect: replaced } : spec);
  });
  const governor = new ToolGovernor({
    upstreams,
    engine: deps.engine,
    audit: deps.audit,
    inbox: deps.inbox ?? new InMemoryToolCallInbox(),
    limits: parsed.limits,
    auditArguments: parsed.auditArguments,
    elicitApprovals: parsed.elicitApprovals,
    ...(parsed.model ? { model: parsed.model } : {}),
    ...(deps.rateLimiter ? { rateLimiter: deps.rateLimiter } : {}),
    ...(deps.clock ? { clock: deps.clock } : {}),
    ...(deps.onWarning ? { onWarning: deps.onWarning } : {}),
  });
  const servers = new Set<ProxyServer>();
  const connect = async (
    transport: Transport,
    identity: SessionIdentity,
    via: ToolSession['via'] = 'in-process',
    sessionId?: string,
  ) => {
    const proxy = createProxyServer(governor, { identity, via, ...(sessionId ? { sessionId } : {}) });
    servers.add(proxy);
    const onclose = proxy.server.onclose;
    proxy.server.onclose = () => {
      servers.delete(proxy);
      onclose?.();
    };
    await proxy.server.connect(transport);
    if (transport instanceof StdioServerTransport) answerMalformedLines(transport);
    return proxy;
  };
  return {
    config: parsed,
    governor,
    connect,
    async serveStdio() {
      if (!parsed.identity)
        throw new Error(
          'a stdio proxy needs `identity: {tenantId, userId}` in its configuration (the user it acts for)',
        );
      return connect(new StdioServerTransport(), parsed.identity, 'stdio');
    },
    async close() {
      await Promise.all([...servers].map((s) => s.server.close().catch(() => {})));
      await governor.close();
    },
  };
}

export interface GovernToolsOptions {
  /** The namespace the tools are exposed under (`<namespace>__<tool>`). */
  namespace: string;
  /** Who the calls are for. */
  identity: SessionIdentity;
  engine: DecisionEngine;
  audit: AuditSink;
  inbox?: ToolCallInbox;
  /** Default classification of the results (default `internal`), and per tool. */
  classification?: ClassificationLevel;
  tools?: Record<string, { classification: ClassificationLevel }>;
  limits?: Partial<McpLimits>;
  model?: { provider: string; model: string };
  rateLimiter?: RateLimiter;
  clock?: Clock;
  onWarning?: (warning: GovernorWarning) => void;
}

export interface GovernedTools {
  readonly governor: ToolGovernor;
  readonly session: ToolSession;
  /** The tools the user may call (the session's list). */
  listTools(): Promise<Tool[]>;
  /** One governed call (refusals throw `ToolCallRefused`). */
  callTool(name: string, args?: Record<string, unknown>, ctx?: CallContext): Promise<CallToolResult>;
  /** A governed MCP server in front of the tools, for the same identity (connect it to a transport). */
  server(): ProxyServer;
  close(): Promise<void>;
}

/**
 * In-process governance for runtimes that embed the SDK: `target` is the MCP server whose tools
 * the assistant uses (an `McpServer` or low-level `Server`, linked in memory) or an SDK `Client`
 * already connected to one. Every call goes through the actions policy and the audit log.
 */
export function governTools(target: Server | McpServer | Client, options: GovernToolsOptions): GovernedTools {
  const common = {
    namespace: options.namespace,
    classification: options.classification ?? 'internal',
    ...(options.tools ? { tools: options.tools } : {}),
  };
  let spec: UpstreamSpec;
  if (target instanceof Client) {
    spec = { ...common, client: target };
  } else {
    const server = target instanceof Server ? target : (target as McpServer).server;
    spec = {
      ...common,
      connect: () => {
        const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
        void server.connect(serverSide);
        return clientSide;
      },
    };
  }
  const governor = new ToolGovernor({
    upstreams: [new Upstream(spec)],
    engine: options.engine,
    audit: options.audit,
    inbox: options.inbox ?? new InMemoryToolCallInbox(),
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.model ? { model: options.model } : {}),
    ...(options.rateLimiter ? { rateLimiter: options.rateLimiter } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.onWarning ? { onWarning: options.onWarning } : {}),
  });
  const session: ToolSession = { identity: Object.freeze({ ...options.identity }), via: 'in-process' };
  return {
    governor,
    session,
    listTools: () => governor.listTools(session),
    callTool: (name, args, ctx) => governor.callTool(session, name, args, ctx),
    server: () => createProxyServer(governor, { identity: options.identity, via: 'in-process' }),
    close: () => governor.close(),
  };
}
