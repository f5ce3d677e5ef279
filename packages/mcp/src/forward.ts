/**
 * Forwarding `tools/call` to an upstream at the SDK's Transport level. The SDK's `Client.request`
 * costs more than the proxy's own work for a small call: it classifies each incoming message by
 * trying zod schemas in turn, sets up a promise, a timer, an abort listener and progress handlers,
 * and parses the result again. A `CallForwarder` sits on the connected Client's transport: it sends
 * the proxy's requests itself (string ids, `agentgov-<n>`, which the Client's numeric ids never
 * are), takes their responses and progress notifications before the Client sees them, and leaves
 * every other message to the Client. The result is validated once, against the SDK's
 * `CallToolResultSchema` (a plain text result by its fast path in `wire-check.ts`); the timeout and the client's cancellation send the SDK's
 * `notifications/cancelled` upstream, as `Client.request` does.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type CallToolRequest,
  type CallToolResult,
  CallToolResultSchema,
  ErrorCode,
  type JSONRPCMessage,
  McpError,
  type Progress,
} from '@modelcontextprotocol/sdk/types.js';
import { UpstreamError } from './errors';
import type { CallContext, CallSignal } from './session';
import { fastCallResult } from './wire-check';

export interface ForwardOptions {
  timeoutMs: number;
  signal?: CallSignal | undefined;
  onprogress?: ((progress: Progress) => void) | undefined;
}

interface Pending {
  resolve(result: CallToolResult): void;
  reject(error: unknown): void;
  /** `performance.now()` at which the call is cut. */
  deadline: number;
  timeoutMs: number;
  onprogress: ((progress: Progress) => void) | undefined;
  signal: CallSignal | undefined;
  onabort: (() => void) | undefined;
}

const PREFIX = 'agentgov-';

/** The forwarding options of a call: the call timeout, its cancellation, progress relayed. */
export function forwardOptionsOf(ctx: CallContext, timeoutMs: number): ForwardOptions {
  const { progressToken } = ctx;
  const onprogress =
    progressToken !== undefined && ctx.sendNotification
      ? (p: Progress) => {
          void ctx
            .sendNotification?.({ method: 'notifications/progress', params: { ...p, progressToken } })
            .catch(() => {});
        }
      : undefined;
  return { timeoutMs, signal: ctx.signal, onprogress };
}

/**
 * One per connected Client: forwards `tools/call` on its transport. One timer for all its calls
 * (armed for the earliest deadline, holding the process open only while a call is pending), not
 * one per call.
 */
export class CallForwarder {
  readonly #transport: Transport;
  readonly #pending = new Map<string, Pending>();
  #next = 0;
  #closed = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timerAt = Number.POSITIVE_INFINITY;
  #timerRef = false;

  constructor(client: Client) {
    const transport = client.transport;
    if (!transport) throw new Error('the upstream client is not connected');
    this.#transport = transport;
    const sdkMessage = transport.onmessage;
    transport.onmessage = (message, extra) => {
      if (!this.#take(message)) sdkMessage?.(message, extra);
    };
    const sdkClose = transport.onclose;
    transport.onclose = () => {
      sdkClose?.();
      this.#closeAll();
    };
  }

  /** One call, cut at `timeoutMs`, cancelled with `signal`, progress relayed to `onprogress`. */
  call(params: CallToolRequest['params'], options: ForwardOptions): Promise<CallToolResult> {
    if (this.#closed) return Promise.reject(new McpError(ErrorCode.ConnectionClosed, 'Connection closed'));
    const { signal, onprogress, timeoutMs } = options;
    if (signal?.aborted) return Promise.reject(cancelled(signal.reason));
    const id = `${PREFIX}${++this.#next}`;
    const message: JSONRPCMessage = {
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: onprogress ? { ...params, _meta: { ...params._meta, progressToken: id } } : params,
    };
    return new Promise<CallToolResult>((resolve, reject) => {
      const deadline = performance.now() + timeoutMs;
      const pending: Pending = {
        resolve,
        reject,
        deadline,
        timeoutMs,
        onprogress,
        signal,
        onabort: undefined,
      };
      if (signal) {
        pending.onabort = () => this.#cancel(id, cancelled(signal.reason), signal.reason);
        signal.addEventListener('abort', pending.onabort, { once: true });
      }
      this.#pending.set(id, pending);
      this.#arm(deadline);
      void this.#send(message, id);
    });
  }

  /** Sends a call; a failed send rejects it (one async frame: no closure or derived promise). */
  async #send(message: JSONRPCMessage, id: string): Promise<void> {
    try {
      await this.#transport.send(message);
    } catch (error) {
      this.#settle(id)?.reject(error);
    }
  }

  /** Cuts every call past its deadline (the shared timer fired); arms the timer for the next. */
  sweep(): void {
    this.#timer = undefined;
    this.#timerAt = Number.POSITIVE_INFINITY;
    // A timer may fire a little before `performance.now()` reaches its deadline: 1 ms of slack.
    const now = performance.now() + 1;
    let next = Number.POSITIVE_INFINITY;
    for (const [id, p] of [...this.#pending]) {
      if (p.deadline <= now)
        this.#cancel(
          id,
          new McpError(ErrorCode.RequestTimeout, 'Request timed out', { timeout: p.timeoutMs }),
          'timeout',
        );
      else if (p.deadline < next) next = p.deadline;
    }
    if (next !== Number.POSITIVE_INFINITY) this.#arm(next);
  }

  /** The shared timer fires by `deadline`, and holds the process open while calls are pending. */
  #arm(deadline: number): void {
    if (this.#timer !== undefined && this.#timerAt <= deadline) {
      if (!this.#timerRef) {
        this.#timer.ref();
        this.#timerRef = true;
      }
      return;
    }
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timerAt = deadline;
    this.#timer = setTimeout(onTimer, Math.max(0, deadline - performance.now()), this);
    this.#timerRef = true;
  }

  /** Removes a pending call (and its abort listener); undefined when it is settled already. */
  #settle(id: string): Pending | undefined {
    const p = this.#pending.get(id);
    if (!p) return undefined;
    this.#pending.delete(id);
    if (this.#pending.size === 0 && this.#timerRef) {
      this.#timer?.unref();
      this.#timerRef = false;
    }
    if (p.onabort) p.signal?.removeEventListener('abort', p.onabort);
    return p;
  }

  #cancel(id: string, error: Error, reason: unknown): void {
    const p = this.#settle(id);
    if (!p) return;
    this.#transport
      .send({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: id, reason: String(reason) },
      })
      .catch(() => {});
    p.reject(error);
  }

  /** True when `message` answers (or reports progress on) one of this forwarder's calls. */
  #take(message: JSONRPCMessage): boolean {
    const m = message as {
      id?: unknown;
      method?: unknown;
      params?: { progressToken?: unknown };
      result?: unknown;
      error?: { code: number; message: string; data?: unknown };
    };
    if (typeof m.id === 'string' && m.method === undefined) {
      if (!m.id.startsWith(PREFIX)) return false;
      const p = this.#settle(m.id);
      if (!p) return true; // a late answer to a call already cut or cancelled
      if (m.error !== undefined) {
        p.reject(new UpstreamError(m.error.code, m.error.message, m.error.data));
        return true;
      }
      const fast = fastCallResult(m.result);
      if (fast) {
        p.resolve(fast);
        return true;
      }
      const parsed = CallToolResultSchema.safeParse(m.result);
      if (parsed.success) p.resolve(parsed.data);
      else p.reject(new Error(`the upstream's tools/call result is malformed: ${parsed.error.message}`));
      return true;
    }
    if (m.method === 'notifications/progress') {
      const token = m.params?.progressToken;
      if (typeof token !== 'string' || !token.startsWith(PREFIX)) return false;
      const p = this.#pending.get(token);
      if (p?.onprogress) {
        const { progressToken: _, ...progress } = m.params as Progress & { progressToken: unknown };
        p.onprogress(progress);
      }
      return true;
    }
    return false;
  }

  #closeAll(): void {
    this.#closed = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    for (const id of [...this.#pending.keys()])
      this.#settle(id)?.reject(new McpError(ErrorCode.ConnectionClosed, 'Connection closed'));
  }
}

function onTimer(forwarder: CallForwarder): void {
  forwarder.sweep();
}

function cancelled(reason: unknown): Error {
  return new Error(`cancelled by the client: ${String(reason)}`);
}
