/**
 * Serving `tools/call` at the SDK's Transport level. The SDK's `Server` costs more per call than
 * the proxy's own work: it classifies each incoming message by trying zod schemas in turn (two
 * failed parses for every request), makes an AbortController and a dozen closures per request,
 * and validates the request and the result again around the handler. Once the proxy's server is
 * connected, `serveToolCalls` takes each well-formed `tools/call` request from its transport —
 * its params validated against the SDK's `CallToolRequestParamsSchema` (plain `{ name, arguments }`
 * params by its fast path in `wire-check.ts`) — answers it itself and
 * leaves every other message (initialize, tools/list, task-augmented or malformed calls, the
 * answers to elicitation) to the SDK's Server. Notifications and elicitation of a call go through
 * the Server (`notification`, `request` with the call as `relatedRequestId`), so Streamable HTTP
 * routes them to the call's stream as before.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type CallToolRequest,
  CallToolRequestParamsSchema,
  type CallToolResult,
  type ElicitRequestFormParams,
  type ElicitResult,
  ElicitResultSchema,
  ErrorCode,
  type JSONRPCMessage,
  RELATED_TASK_META_KEY,
  type ServerNotification,
} from '@modelcontextprotocol/sdk/types.js';
import type { CallContext, CallSignal } from './session';
import { fastCallParams } from './wire-check';

type ServeCall = (params: CallToolRequest['params'], call: WireCall) => Promise<CallToolResult>;

/**
 * One `tools/call` served from the wire: its context for the governor and its cancellation (one
 * object per call, no AbortController or closure per call).
 */
class WireCall implements CallContext, CallSignal {
  readonly requestId: string | number;
  readonly progressToken: string | number | undefined;
  readonly argumentsOwned: boolean;
  readonly elicit: CallContext['elicit'];
  aborted = false;
  reason: unknown;
  #server: Server;
  #elicitationTimeoutMs: number;
  #onabort: (() => void) | undefined;

  constructor(
    server: Server,
    requestId: string | number,
    progressToken: string | number | undefined,
    formSupported: boolean,
    elicitationTimeoutMs: number,
    argumentsOwned: boolean,
  ) {
    this.#server = server;
    this.requestId = requestId;
    this.argumentsOwned = argumentsOwned;
    this.progressToken = progressToken;
    this.#elicitationTimeoutMs = elicitationTimeoutMs;
    this.elicit = formSupported ? WireCall.prototype.elicitForm : undefined;
  }

  get signal(): CallSignal {
    return this;
  }

  sendNotification(notification: ServerNotification): Promise<void> {
    if (this.aborted) return Promise.resolve();
    return this.#server.notification(notification, { relatedRequestId: this.requestId });
  }

  elicitForm(params: ElicitRequestFormParams): Promise<ElicitResult> {
    return this.#server.request({ method: 'elicitation/create', params }, ElicitResultSchema, {
      timeout: this.#elicitationTimeoutMs,
      relatedRequestId: this.requestId,
    });
  }

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listener = this.#onabort;
    this.#onabort = undefined;
    listener?.();
  }

  /** One listener at a time (the forwarder's): all a call needs. */
  addEventListener(_type: 'abort', listener: () => void): void {
    this.#onabort = listener;
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    if (this.#onabort === listener) this.#onabort = undefined;
  }
}

/** The params as `CallToolRequestParamsSchema` gives them; undefined when it refuses them. */
function parsedParams(params: unknown): CallToolRequest['params'] | undefined {
  const parsed = CallToolRequestParamsSchema.safeParse(params);
  return parsed.success ? (parsed.data as CallToolRequest['params']) : undefined;
}

/**
 * Answers `call` with what `pending` gives: its result, or its failure as a JSON-RPC error; a
 * failed send is reported to the server's `onerror`. One async frame per call: no closures and
 * no derived promises (`.then`, `.catch`) made per call.
 */
async function respond(
  pending: Promise<CallToolResult>,
  call: WireCall,
  answer: (call: WireCall, message: JSONRPCMessage) => Promise<void> | undefined,
  server: Server,
): Promise<void> {
  let message: JSONRPCMessage;
  try {
    message = { jsonrpc: '2.0', id: call.requestId, result: await pending };
  } catch (failure) {
    const error = failure as { code?: unknown; message?: string; data?: unknown } | undefined;
    message = {
      jsonrpc: '2.0',
      id: call.requestId,
      error: {
        code: Number.isSafeInteger(error?.code) ? (error?.code as number) : ErrorCode.InternalError,
        message: error?.message ?? 'Internal error',
        ...(error?.data !== undefined && { data: error.data }),
      },
    };
  }
  const sent = answer(call, message);
  if (sent === undefined) return;
  try {
    await sent;
  } catch (error) {
    server.onerror?.(new Error(`Failed to send response: ${String(error)}`));
  }
}

/**
 * Takes the well-formed `tools/call` requests of the server's (connected) transport and answers
 * them with `serve`; the server's own handler still answers whatever arrives otherwise.
 */
export function serveToolCalls(
  server: Server,
  transport: Transport,
  serve: ServeCall,
  elicitationTimeoutMs: number,
): void {
  const inflight = new Map<string | number, WireCall>();
  // The transports the proxy is served on (stdio, Streamable HTTP) parse each message from bytes:
  // its arguments are the proxy's own. Any other may hand over the client's own object — the SDK's
  // InMemoryTransport does, its nested values still the caller's, who may change them while the
  // call is decided — so its calls forward the canonical arguments (`CallContext.argumentsOwned`).
  const argumentsOwned =
    transport instanceof StdioServerTransport ||
    transport instanceof WebStandardStreamableHTTPServerTransport;
  const sdkMessage = transport.onmessage;
  const sdkClose = transport.onclose;
  transport.onclose = () => {
    sdkClose?.();
    for (const call of inflight.values()) call.abort('the connection closed');
    inflight.clear();
  };
  /** Sends the answer (undefined: a cancelled call, answered with nothing, as the SDK does). */
  const answer = (call: WireCall, message: JSONRPCMessage): Promise<void> | undefined => {
    if (inflight.get(call.requestId) === call) inflight.delete(call.requestId);
    return call.aborted ? undefined : transport.send(message);
  };
  transport.onmessage = (message, extra) => {
    const m = message as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };
    if (m.method === 'tools/call' && (typeof m.id === 'string' || typeof m.id === 'number')) {
      const params = fastCallParams(m.params) ?? parsedParams(m.params);
      if (
        params &&
        m.jsonrpc === '2.0' &&
        params.task === undefined &&
        params._meta?.[RELATED_TASK_META_KEY] === undefined
      ) {
        const elicitation = server.getClientCapabilities()?.elicitation;
        const call = new WireCall(
          server,
          m.id,
          params._meta?.progressToken,
          elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined),
          elicitationTimeoutMs,
          argumentsOwned,
        );
        inflight.set(m.id, call);
        void respond(serve(params, call), call, answer, server);
        return;
      }
    } else if (m.method === 'notifications/cancelled') {
      const p = m.params as { requestId?: string | number; reason?: unknown } | undefined;
      if (p?.requestId !== undefined) inflight.get(p.requestId)?.abort(p.reason);
    }
    sdkMessage?.(message, extra);
  };
}
