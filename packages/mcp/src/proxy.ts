/**
 * The MCP server the assistant talks to: the SDK's low-level `Server`, one per session, whose
 * `tools/list` and `tools/call` go through the `ToolGovernor`. The session's identity is fixed
 * when the server is made (stdio: configuration; Streamable HTTP: the bearer token). Once
 * connected, well-formed `tools/call` requests are served from the transport (`serveToolCalls`);
 * the SDK handler registered here answers the others (and any that arrive before).
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type CallToolRequest,
  type ElicitRequestFormParams,
  ElicitResultSchema,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { SessionIdentity, ToolGovernor, ToolSession } from './governor';
import { serveToolCalls } from './serve';

/**
 * The schema `tools/call` is registered with: the method only. The SDK's `Server` validates every
 * `tools/call` request against the full `CallToolRequestSchema` itself (and the result against
 * `CallToolResultSchema`) before the handler runs; registering the full schema too made the
 * protocol layer parse each request a second time.
 */
const ToolsCallMethod = z.looseObject({ method: z.literal('tools/call') });

export interface ProxyServerOptions {
  identity: SessionIdentity;
  via: ToolSession['via'];
  sessionId?: string;
  /** How long an elicitation waits for the user (default: the governor's `elicitationTimeoutMs`). */
  elicitationTimeoutMs?: number;
  name?: string;
  version?: string;
}

export interface ProxyServer {
  server: Server;
  session: ToolSession;
}

/** The SDK's Server, serving `tools/call` from its transport once connected. */
class GovernedServer extends Server {
  #serve: ((transport: Transport) => void) | undefined;

  serveCallsWith(serve: (transport: Transport) => void): void {
    this.#serve = serve;
  }

  override async connect(transport: Transport): Promise<void> {
    await super.connect(transport);
    this.#serve?.(transport);
  }
}

/** A governed MCP server for one session (connect it to any server transport). */
export function createProxyServer(governor: ToolGovernor, options: ProxyServerOptions): ProxyServer {
  const session: ToolSession = {
    identity: Object.freeze({ ...options.identity }),
    via: options.via,
    ...(options.sessionId ? { sessionId: options.sessionId } : {}),
  };
  const server = new GovernedServer(
    { name: options.name ?? 'agentgov-mcp-proxy', version: options.version ?? '0.1.0' },
    {
      capabilities: { tools: { listChanged: true }, logging: {} },
      instructions:
        'Tools are governed by agentgov: each tool description starts with its autonomy; a call that needs approval answers with an approval id — call again with the same arguments once a human approved it.',
    },
  );
  const elicitationTimeoutMs = options.elicitationTimeoutMs ?? governor.limits.elicitationTimeoutMs;
  server.serveCallsWith((transport) =>
    serveToolCalls(
      server,
      transport,
      (params, call) => governor.callTool(session, params.name, params.arguments, call),
      elicitationTimeoutMs,
    ),
  );
  const unsubscribe = governor.onToolsChanged((tenantId) => {
    if (tenantId === undefined || tenantId === session.identity.tenantId)
      void server.sendToolListChanged().catch(() => {});
  });
  server.onclose = unsubscribe;
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: await governor.listTools(session),
  }));
  server.setRequestHandler(ToolsCallMethod, async (raw, extra) => {
    // Validated by the SDK's Server against CallToolRequestSchema before this handler is called.
    const request = raw as unknown as CallToolRequest;
    const elicitation = server.getClientCapabilities()?.elicitation;
    const formSupported =
      elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined);
    const progressToken = request.params._meta?.progressToken;
    return governor.callTool(session, request.params.name, request.params.arguments, {
      signal: extra.signal,
      requestId: extra.requestId,
      sendNotification: (n) => extra.sendNotification(n),
      ...(progressToken === undefined ? {} : { progressToken }),
      ...(formSupported
        ? {
            elicit: (params: ElicitRequestFormParams) =>
              extra.sendRequest({ method: 'elicitation/create', params }, ElicitResultSchema, {
                timeout: elicitationTimeoutMs,
              }),
          }
        : {}),
    });
  });
  return { server, session };
}
