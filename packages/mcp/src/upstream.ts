/**
 * One upstream MCP server, reached with the SDK's `Client` over stdio (a child process, restarted
 * when it dies, up to `maxRestarts` times) or Streamable HTTP (reported unhealthy after
 * `unhealthyAfter` consecutive failed requests, up again as soon as it answers; a transport failure
 * drops the session, so the next request connects afresh), or over any transport a caller hands
 * in (in-process servers, tests).
 */
import type { ClassificationLevel } from '@agentgov/core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type CallToolRequest,
  type CallToolResult,
  ErrorCode,
  McpError,
  type Tool,
  ToolListChangedNotificationSchema,
  ToolSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { DEFAULT_CALL_TIMEOUT_MS, type UpstreamConfig } from './config';
import { UpstreamError } from './errors';
import { CallForwarder, type ForwardOptions } from './forward';
import type { CallSignal } from './session';

export interface UpstreamSpec {
  namespace: string;
  /** Default classification of the tools' results. */
  classification: ClassificationLevel;
  /** Per-tool classification, by the upstream's tool name. */
  tools?: Record<string, { classification: ClassificationLevel }>;
  /**
   * Upper bound of connecting, of one call and of one whole tools/list, ms (default: the caller's,
   * i.e. the proxy's `limits.callTimeoutMs`).
   */
  timeoutMs?: number;
  /** Reconnections after the transport closed, before the upstream is unhealthy (default 0). */
  maxRestarts?: number;
  /**
   * Consecutive failed requests after which the upstream is unhealthy until it answers again; a
   * request that failed below MCP (the transport) also drops the connection. None: failed requests
   * leave the health as it is (stdio: the restarts decide).
   */
  unhealthyAfter?: number;
  /** A new transport for each (re)connection; or `client`, an SDK Client already connected. */
  connect?: () => Transport;
  client?: Client;
}

export type UpstreamHealth = 'up' | 'down' | 'unhealthy';

const PROXY_INFO = { name: 'agentgov-mcp-proxy', version: '0.1.0' };

/** A tools/list page taken leniently: each entry is checked on its own against `ToolSchema`. */
const ToolsPageSchema = z.looseObject({ tools: z.array(z.unknown()), nextCursor: z.string().optional() });

/** An upstream's tools, as `Upstream.listTools` gives them. */
export interface ListedTools {
  tools: Tool[];
  /** It listed more than `max`: the rest are dropped. */
  truncated: boolean;
  /** Entries that are no valid tool, withheld: the entry's name when it has one, and what is wrong. */
  malformed: { tool?: string; problem: string }[];
}

/** The spec of a configured upstream (stdio child or Streamable HTTP URL). */
export function upstreamSpecOf(config: UpstreamConfig): UpstreamSpec {
  const common = {
    namespace: config.namespace,
    classification: config.classification,
    tools: config.tools,
    ...(config.timeoutMs === undefined ? {} : { timeoutMs: config.timeoutMs }),
  };
  if (config.transport === 'stdio') {
    return {
      ...common,
      maxRestarts: config.maxRestarts,
      connect: () =>
        new StdioClientTransport({
          command: config.command,
          args: config.args,
          env: { ...getDefaultEnvironment(), ...config.env },
          ...(config.cwd ? { cwd: config.cwd } : {}),
          stderr: 'inherit',
        }),
    };
  }
  return {
    ...common,
    maxRestarts: Number.MAX_SAFE_INTEGER,
    unhealthyAfter: config.unhealthyAfter,
    connect: () =>
      new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: config.headers } }),
  };
}

export class Upstream {
  readonly spec: UpstreamSpec;
  #client: Client | undefined;
  #connecting: Promise<Client> | undefined;
  #restarts = 0;
  #everConnected = false;
  #health: UpstreamHealth = 'down';
  #closed = false;
  #failures = 0;
  readonly #forwarders = new WeakMap<Client, CallForwarder>();
  /** Called when the upstream says its tool list changed. */
  onToolsChanged: (() => void) | undefined;

  constructor(spec: UpstreamSpec) {
    this.spec = spec;
  }

  get namespace(): string {
    return this.spec.namespace;
  }

  get health(): UpstreamHealth {
    return this.#health;
  }

  /** The classification of one of its tools' results. */
  classificationOf(tool: string): ClassificationLevel {
    const tools = this.spec.tools ?? {};
    return (Object.hasOwn(tools, tool) ? tools[tool]?.classification : undefined) ?? this.spec.classification;
  }

  /**
   * The connected client, connecting (or reconnecting, within `maxRestarts`) when needed; a
   * connection not made within `timeoutMs` (default: the upstream's `timeoutMs`, else 60 s) fails.
   */
  async client(timeoutMs = this.spec.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS): Promise<Client> {
    if (this.#closed) throw new Error(`upstream ${this.namespace} is closed`);
    if (this.#client) return this.#client;
    if (this.spec.client && !this.#everConnected) {
      this.#everConnected = true;
      this.#health = 'up';
      this.#client = this.spec.client;
      const previous = this.spec.client.onclose;
      this.spec.client.onclose = () => {
        previous?.();
        this.#client = undefined;
        this.#health = 'unhealthy';
      };
      return this.#client;
    }
    if (!this.spec.connect) {
      this.#health = 'unhealthy';
      throw new Error(`upstream ${this.namespace} is closed`);
    }
    const connect = this.spec.connect;
    if (this.#connecting) return this.#connecting;
    if (this.#everConnected && this.#restarts >= (this.spec.maxRestarts ?? 0)) {
      this.#health = 'unhealthy';
      throw new Error(`upstream ${this.namespace} is unhealthy (it closed and its restarts are used up)`);
    }
    const connecting = (async () => {
      if (this.#everConnected) this.#restarts++;
      const client = new Client(PROXY_INFO, { capabilities: {} });
      client.setNotificationHandler(ToolListChangedNotificationSchema, async () => this.onToolsChanged?.());
      client.onclose = () => {
        if (this.#client === client) this.#client = undefined;
        if (this.#health === 'up') this.#health = 'down';
      };
      try {
        await client.connect(connect(), { timeout: timeoutMs });
      } catch (error) {
        this.#everConnected = true;
        this.#health = 'down';
        await client.close().catch(() => {});
        throw error;
      }
      this.#everConnected = true;
      this.#client = client;
      this.#health = 'up';
      return client;
    })();
    this.#connecting = connecting;
    try {
      return await connecting;
    } finally {
      this.#connecting = undefined;
    }
  }

  /** Consecutive failed requests so far (0 once it answers). */
  get failures(): number {
    return this.#failures;
  }

  /** The upstream answered (a result, or a JSON-RPC error it sent): it is up. */
  #answered(): void {
    if (this.spec.unhealthyAfter === undefined) return;
    this.#failures = 0;
    this.#health = 'up';
  }

  /** A request on `client` failed with `error`: counted towards `unhealthyAfter` unless it is an answer. */
  async #failed(error: unknown, client: Client | undefined, signal: CallSignal | undefined): Promise<void> {
    const threshold = this.spec.unhealthyAfter;
    if (threshold === undefined) return;
    // The upstream's own error answer (whatever its code) is an answer.
    if (error instanceof UpstreamError) return this.#answered();
    const code = error instanceof McpError ? error.code : undefined;
    // -32000 (connection closed) and -32001 (timeout) are the SDK's own, not the upstream's.
    if (code !== undefined && code !== -32000 && code !== -32001) return this.#answered();
    // A call the client cancelled says nothing about the upstream.
    if (signal?.aborted) return;
    this.#failures++;
    if (code === undefined && client && this.#client === client) {
      // A failure below MCP (unreachable, an HTTP error such as an unknown session): the next
      // request connects afresh.
      this.#client = undefined;
      await client.close().catch(() => {});
    }
    if (this.#failures >= threshold && !this.#closed) this.#health = 'unhealthy';
  }

  /**
   * Every tool of the upstream (paginated), at most `max`; `truncated` when it listed more. The
   * connection and every page within one deadline: the upstream's `timeoutMs`, else `timeoutMs`
   * (the proxy's `limits.callTimeoutMs`). Entries that are no valid tool are withheld
   * (`malformed`); the valid ones are kept.
   */
  async listTools(max: number, timeoutMs: number): Promise<ListedTools> {
    const ms = this.spec.timeoutMs ?? timeoutMs;
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(listTimeout(this.namespace, ms)), ms);
    let client: Client | undefined;
    try {
      client = await within(this.client(ms), deadline.signal);
      const listed = await this.#listTools(client, max, ms, deadline.signal);
      this.#answered();
      return listed;
    } catch (error) {
      await this.#failed(error, client, undefined);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  async #listTools(client: Client, max: number, ms: number, signal: AbortSignal): Promise<ListedTools> {
    const tools: Tool[] = [];
    const malformed: ListedTools['malformed'] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 100; page++) {
      let r: z.infer<typeof ToolsPageSchema>;
      try {
        const params = cursor === undefined ? {} : { cursor };
        r = await client.request({ method: 'tools/list', params }, ToolsPageSchema, { signal, timeout: ms });
      } catch (error) {
        if (signal.aborted) throw signal.reason; // the listing's own deadline
        // An error the upstream answered (the connection is still there): as it sent it.
        throw error instanceof McpError && client.transport ? UpstreamError.of(error) : error;
      }
      for (const entry of r.tools) {
        const tool = ToolSchema.safeParse(entry);
        if (!tool.success) {
          malformed.push(malformedEntry(entry, tool.error));
          continue;
        }
        if (tools.length >= max) return { tools, truncated: true, malformed };
        tools.push(tool.data);
      }
      cursor = r.nextCursor;
      if (!cursor) return { tools, truncated: false, malformed };
    }
    return { tools, truncated: true, malformed };
  }

  /**
   * One call, cut at `timeoutMs`, cancelled with `signal`, progress relayed to `onprogress`:
   * forwarded on the client's transport (`CallForwarder`), not through `Client.request`. On a
   * connected client the forwarder's promise is returned as it is (no async frame around it),
   * with the health bookkeeping chained on only when `unhealthyAfter` counts failures.
   */
  callTool(params: CallToolRequest['params'], options: ForwardOptions): Promise<CallToolResult> {
    const client = this.#closed ? undefined : this.#client;
    const forwarder = client && this.#forwarders.get(client);
    if (!forwarder) return this.#connectAndCall(params, options);
    const call = forwarder.call(params, this.#forwardOptions(options));
    if (this.spec.unhealthyAfter === undefined) return call; // #answered and #failed do nothing then
    return call.then(
      (result) => {
        this.#answered();
        return result;
      },
      async (error: unknown) => {
        await this.#failed(error, client, options.signal);
        throw error;
      },
    );
  }

  async #connectAndCall(params: CallToolRequest['params'], options: ForwardOptions): Promise<CallToolResult> {
    let client: Client | undefined;
    try {
      client =
        (!this.#closed && this.#client) || (await this.client(this.spec.timeoutMs ?? options.timeoutMs));
      let forwarder = this.#forwarders.get(client);
      if (!forwarder) {
        forwarder = new CallForwarder(client);
        this.#forwarders.set(client, forwarder);
      }
      const result = await forwarder.call(params, this.#forwardOptions(options));
      this.#answered();
      return result;
    } catch (error) {
      await this.#failed(error, client, options.signal);
      throw error;
    }
  }

  /** The call's options with this upstream's own timeout, when it has one. */
  #forwardOptions(options: ForwardOptions): ForwardOptions {
    const timeoutMs = this.spec.timeoutMs;
    return timeoutMs === undefined || timeoutMs === options.timeoutMs ? options : { ...options, timeoutMs };
  }

  async close(): Promise<void> {
    this.#closed = true;
    const client = this.#client;
    this.#client = undefined;
    this.#health = 'down';
    await client?.close().catch(() => {});
  }
}

/** The listing's own deadline passed (an McpError -32001 of the proxy's, never the upstream's). */
function listTimeout(namespace: string, ms: number): McpError {
  const error = new McpError(ErrorCode.RequestTimeout, '', { timeout: ms });
  error.message = `${namespace} did not answer tools/list within ${ms} ms`;
  return error;
}

/** `promise`, or `signal`'s reason once it aborts first. */
function within<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onabort = () => reject(signal.reason);
    signal.addEventListener('abort', onabort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onabort));
  });
}

/** What is wrong with a tools/list entry that is no valid tool. */
function malformedEntry(entry: unknown, error: z.ZodError): ListedTools['malformed'][number] {
  const name = (entry as { name?: unknown } | null)?.name;
  const issue = error.issues[0];
  const where = issue?.path.length ? issue.path.map(String).join('.') : '(entry)';
  return {
    ...(typeof name === 'string' ? { tool: name.slice(0, 200) } : {}),
    problem: `not a valid tool: ${where}: ${issue?.message ?? 'invalid'}`,
  };
}
