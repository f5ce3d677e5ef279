/**
 * Real-time events from `/ws`: hook payloads (with `hook_event_name`) and raw transcript lines
 * (without it), as a typed discriminated union, consumable as an async iterator or via callbacks.
 */
import { AnalyticsApiError, type RedactedRequest, redactRequest } from './errors';
import { toDate } from './wire/primitives';

export const HOOK_EVENT_NAMES = [
  'SessionStart',
  'SessionEnd',
  'Stop',
  'PreToolUse',
  'PostToolUse',
  'SubagentStart',
  'SubagentStop',
  'Notification',
  'TaskStart',
  'TaskComplete',
  'TaskUpdate',
] as const;
export type HookEventName = (typeof HOOK_EVENT_NAMES)[number];

interface HookBase<N extends HookEventName> {
  kind: 'hook';
  hookEventName: N;
  sessionId: string | null;
  cwd: string | null;
  transcriptPath: string | null;
  permissionMode: string | null;
  /** Payload fields not mapped above, under their wire names. */
  extra: Record<string, unknown>;
  /** The whole frame as received. */
  raw: Record<string, unknown>;
}
export interface SessionStartEvent extends HookBase<'SessionStart'> {
  source: string | null;
}
export interface SessionEndEvent extends HookBase<'SessionEnd'> {
  reason: string | null;
}
export interface StopEvent extends HookBase<'Stop'> {
  stopHookActive: boolean | null;
}
export interface PreToolUseEvent extends HookBase<'PreToolUse'> {
  toolName: string | null;
  toolInput: unknown;
  toolUseId: string | null;
}
export interface PostToolUseEvent extends HookBase<'PostToolUse'> {
  toolName: string | null;
  toolInput: unknown;
  toolResponse: unknown;
  toolUseId: string | null;
}
export interface SubagentStartEvent extends HookBase<'SubagentStart'> {
  agentId: string | null;
  agentType: string | null;
}
export interface SubagentStopEvent extends HookBase<'SubagentStop'> {
  agentId: string | null;
  agentType: string | null;
}
export interface NotificationEvent extends HookBase<'Notification'> {
  message: string | null;
}
export interface TaskStartEvent extends HookBase<'TaskStart'> {
  taskId: string | null;
}
export interface TaskCompleteEvent extends HookBase<'TaskComplete'> {
  taskId: string | null;
}
export interface TaskUpdateEvent extends HookBase<'TaskUpdate'> {
  taskId: string | null;
}

export type HookEvent =
  | SessionStartEvent
  | SessionEndEvent
  | StopEvent
  | PreToolUseEvent
  | PostToolUseEvent
  | SubagentStartEvent
  | SubagentStopEvent
  | NotificationEvent
  | TaskStartEvent
  | TaskCompleteEvent
  | TaskUpdateEvent;

/** A hook payload whose `hook_event_name` is not one of the spec's eleven values. */
export interface UnknownHookEvent {
  kind: 'unknown_hook';
  hookEventName: string;
  sessionId: string | null;
  raw: Record<string, unknown>;
}

/** A raw transcript line (the server tails transcript files and forwards appended lines). */
export interface TranscriptEvent {
  kind: 'transcript';
  /** `user`, `assistant`, `system`, ... */
  type: string | null;
  uuid: string | null;
  parentUuid: string | null;
  sessionId: string | null;
  timestamp: Date | null;
  /** The `message` object of the line (role, content, usage, ...), if any. */
  message: unknown;
  raw: Record<string, unknown>;
}

export type AnalyticsEvent = HookEvent | UnknownHookEvent | TranscriptEvent;

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

const BASE_KEYS = ['hook_event_name', 'session_id', 'cwd', 'transcript_path', 'permission_mode'];
const HOOK_KEYS: Record<HookEventName, readonly string[]> = {
  SessionStart: ['source'],
  SessionEnd: ['reason'],
  Stop: ['stop_hook_active'],
  PreToolUse: ['tool_name', 'tool_input', 'tool_use_id'],
  PostToolUse: ['tool_name', 'tool_input', 'tool_response', 'tool_use_id'],
  SubagentStart: ['agent_id', 'agent_type'],
  SubagentStop: ['agent_id', 'agent_type'],
  Notification: ['message'],
  TaskStart: ['task_id'],
  TaskComplete: ['task_id'],
  TaskUpdate: ['task_id'],
};

function isHookName(name: string): name is HookEventName {
  return (HOOK_EVENT_NAMES as readonly string[]).includes(name);
}

/**
 * Maps one decoded frame. Returns `undefined` for values that are not JSON objects.
 * A frame is a hook event iff it has a string `hook_event_name`.
 */
export function parseEventFrame(frame: unknown): AnalyticsEvent | undefined {
  if (frame === null || typeof frame !== 'object' || Array.isArray(frame)) return undefined;
  const raw = frame as Record<string, unknown>;
  const name = raw.hook_event_name;
  if (typeof name !== 'string') {
    return {
      kind: 'transcript',
      type: str(raw.type),
      uuid: str(raw.uuid),
      parentUuid: str(raw.parentUuid),
      sessionId: str(raw.sessionId) ?? str(raw.session_id),
      timestamp: typeof raw.timestamp === 'string' ? toDate(raw.timestamp) : null,
      message: raw.message,
      raw,
    };
  }
  if (!isHookName(name))
    return { kind: 'unknown_hook', hookEventName: name, sessionId: str(raw.session_id), raw };
  const known = new Set([...BASE_KEYS, ...HOOK_KEYS[name]]);
  const extra: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw)) if (!known.has(k)) extra[k] = v;
  const base = {
    kind: 'hook' as const,
    sessionId: str(raw.session_id),
    cwd: str(raw.cwd),
    transcriptPath: str(raw.transcript_path),
    permissionMode: str(raw.permission_mode),
    extra,
    raw,
  };
  switch (name) {
    case 'SessionStart':
      return { ...base, hookEventName: name, source: str(raw.source) };
    case 'SessionEnd':
      return { ...base, hookEventName: name, reason: str(raw.reason) };
    case 'Stop':
      return {
        ...base,
        hookEventName: name,
        stopHookActive: typeof raw.stop_hook_active === 'boolean' ? raw.stop_hook_active : null,
      };
    case 'PreToolUse':
      return {
        ...base,
        hookEventName: name,
        toolName: str(raw.tool_name),
        toolInput: raw.tool_input,
        toolUseId: str(raw.tool_use_id),
      };
    case 'PostToolUse':
      return {
        ...base,
        hookEventName: name,
        toolName: str(raw.tool_name),
        toolInput: raw.tool_input,
        toolResponse: raw.tool_response,
        toolUseId: str(raw.tool_use_id),
      };
    case 'SubagentStart':
    case 'SubagentStop':
      return { ...base, hookEventName: name, agentId: str(raw.agent_id), agentType: str(raw.agent_type) };
    case 'Notification':
      return { ...base, hookEventName: name, message: str(raw.message) };
    case 'TaskStart':
    case 'TaskComplete':
    case 'TaskUpdate':
      return { ...base, hookEventName: name, taskId: str(raw.task_id) };
  }
}

// ------------------------------------------------------------------ WebSocket plumbing

/** The subset of the WHATWG WebSocket (and of the `ws` package) this client uses. */
export interface WebSocketLike {
  readonly readyState: number;
  binaryType?: string;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  // biome-ignore lint/suspicious/noExplicitAny: event objects differ between implementations
  addEventListener(type: 'open' | 'message' | 'close' | 'error', listener: (event: any) => void): void;
  /** `ws` only: protocol-level ping, used for keep-alive. */
  ping?: () => void;
  /** `ws` only: drop the connection without a closing handshake. */
  terminate?: () => void;
  /** `ws` only (EventEmitter): used to observe pongs. */
  on?: (event: 'pong', listener: () => void) => unknown;
}
export type WebSocketConstructor = new (url: string) => WebSocketLike;

export interface ReconnectOptions {
  /** Delay before the first reconnect. Default 500 ms. */
  minDelayMs?: number;
  /** Cap. Default 30 s. */
  maxDelayMs?: number;
  /** Default 2. */
  factor?: number;
  /** Scale each delay by a random factor in [0.5, 1). Default true. */
  jitter?: boolean;
  /** Give up after this many consecutive failed attempts. Default: never. */
  maxAttempts?: number;
}

/** `min(maxDelayMs, minDelayMs * factor^(attempt-1))`, optionally jittered into [half, full). */
export function reconnectDelay(
  attempt: number,
  options: ReconnectOptions = {},
  random: () => number = Math.random,
) {
  const min = options.minDelayMs ?? 500;
  const max = options.maxDelayMs ?? 30_000;
  const factor = options.factor ?? 2;
  const exp = min * factor ** Math.max(0, attempt - 1);
  const capped = Math.min(max, Number.isFinite(exp) ? exp : max);
  return options.jitter === false ? capped : Math.floor(capped * (0.5 + random() / 2));
}

export interface EventStreamOptions {
  url: string;
  /** Injected implementation. Default: `globalThis.WebSocket`, else the `ws` package (loaded lazily). */
  WebSocket?: WebSocketConstructor;
  /** `false` disables reconnecting. */
  reconnect?: ReconnectOptions | false;
  /**
   * Keep-alive interval (default 30 s, 0 disables). With a `ws`-style socket (Node), a protocol ping
   * is sent every interval and the connection is dropped and re-established when neither a pong nor a
   * frame arrived since the previous ping. Browser sockets have no ping API; the browser keeps them alive.
   */
  keepAliveMs?: number;
  /** Closes the stream when aborted. */
  signal?: AbortSignal;
  /** Frames buffered per iterator before the oldest is dropped. Default 10 000. */
  maxBuffer?: number;
  random?: () => number;
}

export type EventStreamState = 'idle' | 'connecting' | 'open' | 'reconnecting' | 'closed';

export interface EventStreamListeners {
  event: (event: AnalyticsEvent) => void;
  open: () => void;
  close: (info: { code: number; reason: string }) => void;
  reconnecting: (info: { attempt: number; delayMs: number }) => void;
  /** Connection errors and unparsable frames; the stream keeps going unless it gave up (then `closed`). */
  error: (error: AnalyticsApiError) => void;
}

async function resolveWebSocket(injected: WebSocketConstructor | undefined): Promise<WebSocketConstructor> {
  if (injected) return injected;
  const global = (globalThis as { WebSocket?: unknown }).WebSocket;
  if (typeof global === 'function') return global as WebSocketConstructor;
  const mod = await import('ws');
  return (mod.default ?? mod.WebSocket) as unknown as WebSocketConstructor;
}

function decode(data: unknown): string | undefined {
  if (typeof data === 'string') return data;
  if (data instanceof ArrayBuffer) return new TextDecoder().decode(data);
  if (ArrayBuffer.isView(data)) return new TextDecoder().decode(data);
  if (Array.isArray(data)) {
    // `ws` fragments (Buffer[])
    return data.map((d) => decode(d) ?? '').join('');
  }
  return undefined;
}

interface Consumer {
  buffer: AnalyticsEvent[];
  wake: (() => void) | undefined;
}

/**
 * A self-reconnecting subscription to `/ws`. At most one connection attempt is pending at any time.
 * Iterate it with `for await`, or register callbacks with {@link EventStream.on}; ending the
 * iteration (break/return) closes the stream.
 */
export class EventStream implements AsyncIterable<AnalyticsEvent> {
  private socket: WebSocketLike | undefined;
  private generation = 0;
  private attempt = 0;
  private reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  private keepAliveTimer: ReturnType<typeof setInterval> | undefined;
  private awaitingPong = false;
  private _state: EventStreamState = 'idle';
  private fatal: AnalyticsApiError | undefined;
  private readonly listeners: { [K in keyof EventStreamListeners]: Set<EventStreamListeners[K]> } = {
    event: new Set(),
    open: new Set(),
    close: new Set(),
    reconnecting: new Set(),
    error: new Set(),
  };
  private readonly consumers = new Set<Consumer>();
  private readonly request: RedactedRequest;
  private readonly onAbort = () => this.close();

  constructor(private readonly options: EventStreamOptions) {
    this.request = redactRequest('GET', new URL(options.url));
    options.signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  get state(): EventStreamState {
    return this._state;
  }

  /** Number of connections opened so far (first one included). */
  connections = 0;

  on<K extends keyof EventStreamListeners>(type: K, listener: EventStreamListeners[K]): () => void {
    this.listeners[type].add(listener);
    return () => this.listeners[type].delete(listener);
  }

  /** Starts connecting (called by `client.events()`); idempotent. */
  connect(): void {
    if (this._state !== 'idle') return;
    if (this.options.signal?.aborted) {
      this.close();
      return;
    }
    void this.open();
  }

  /** Closes the connection for good; iterators finish after draining their buffers. */
  close(): void {
    if (this._state === 'closed') return;
    this._state = 'closed';
    this.options.signal?.removeEventListener('abort', this.onAbort);
    if (this.reconnectTimer !== undefined) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    this.stopKeepAlive();
    const socket = this.socket;
    this.socket = undefined;
    this.generation++;
    try {
      socket?.close(1000, 'client closed');
    } catch {
      // already closing
    }
    for (const c of this.consumers) c.wake?.();
  }

  [Symbol.asyncIterator](): AsyncIterator<AnalyticsEvent> {
    const consumer: Consumer = { buffer: [], wake: undefined };
    this.consumers.add(consumer);
    const finish = (): IteratorResult<AnalyticsEvent> => {
      this.consumers.delete(consumer);
      return { done: true, value: undefined };
    };
    return {
      next: async () => {
        for (;;) {
          const item = consumer.buffer.shift();
          if (item !== undefined) return { done: false, value: item };
          if (this._state === 'closed') {
            if (this.fatal) {
              const error = this.fatal;
              finish();
              throw error;
            }
            return finish();
          }
          await new Promise<void>((resolve) => {
            consumer.wake = resolve;
          });
          consumer.wake = undefined;
        }
      },
      return: async () => {
        this.close();
        return finish();
      },
    };
  }

  private emit<K extends keyof EventStreamListeners>(
    type: K,
    ...args: Parameters<EventStreamListeners[K]>
  ): void {
    for (const listener of [...this.listeners[type]]) {
      try {
        (listener as (...a: Parameters<EventStreamListeners[K]>) => void)(...args);
      } catch {
        // a throwing listener must not break the stream
      }
    }
  }

  private async open(): Promise<void> {
    this._state = this.attempt === 0 ? 'connecting' : 'reconnecting';
    const generation = ++this.generation;
    let Ctor: WebSocketConstructor;
    let socket: WebSocketLike;
    try {
      Ctor = await resolveWebSocket(this.options.WebSocket);
      if (generation !== this.generation) return;
      socket = new Ctor(this.options.url);
    } catch (cause) {
      if (generation !== this.generation) return;
      this.emit('error', new AnalyticsApiError({ kind: 'network', request: this.request, cause }));
      this.scheduleReconnect(generation);
      return;
    }
    this.socket = socket;
    this.connections++;
    if ('binaryType' in socket) socket.binaryType = 'arraybuffer';
    const current = () => generation === this.generation;
    socket.addEventListener('open', () => {
      if (!current()) return;
      this.attempt = 0;
      this._state = 'open';
      this.startKeepAlive(socket, generation);
      this.emit('open');
    });
    socket.addEventListener('message', (event: { data: unknown }) => {
      if (!current()) return;
      this.awaitingPong = false;
      this.handleFrame(event.data);
    });
    socket.addEventListener('error', (event: { error?: unknown; message?: string }) => {
      if (!current()) return;
      const cause = event.error ?? new Error(event.message ?? 'WebSocket error');
      this.emit('error', new AnalyticsApiError({ kind: 'network', request: this.request, cause }));
    });
    socket.addEventListener('close', (event: { code?: number; reason?: string }) => {
      if (!current()) return;
      this.stopKeepAlive();
      this.socket = undefined;
      this.emit('close', { code: event.code ?? 1006, reason: event.reason ?? '' });
      this.scheduleReconnect(generation);
    });
    socket.on?.('pong', () => {
      if (current()) this.awaitingPong = false;
    });
  }

  private handleFrame(data: unknown): void {
    const text = decode(data);
    let parsed: unknown;
    try {
      if (text === undefined) throw new TypeError('unsupported frame type');
      parsed = JSON.parse(text);
    } catch (cause) {
      this.emit(
        'error',
        new AnalyticsApiError({ kind: 'invalid_response', request: this.request, body: text, cause }),
      );
      return;
    }
    const event = parseEventFrame(parsed);
    if (!event) {
      this.emit(
        'error',
        new AnalyticsApiError({
          kind: 'invalid_response',
          request: this.request,
          body: text,
          cause: new TypeError('frame is not a JSON object'),
        }),
      );
      return;
    }
    this.emit('event', event);
    const max = this.options.maxBuffer ?? 10_000;
    for (const c of this.consumers) {
      c.buffer.push(event);
      if (c.buffer.length > max) c.buffer.shift();
      c.wake?.();
    }
  }

  /** Schedules the next attempt, unless one is already pending (one reconnect at a time). */
  private scheduleReconnect(generation: number): void {
    if (this._state === 'closed' || generation !== this.generation || this.reconnectTimer !== undefined)
      return;
    const policy = this.options.reconnect;
    if (policy === false) {
      this.close();
      return;
    }
    this.attempt++;
    if (policy?.maxAttempts !== undefined && this.attempt > policy.maxAttempts) {
      this.fatal = new AnalyticsApiError({
        kind: 'network',
        request: this.request,
        attempts: this.attempt,
        cause: new Error(`gave up after ${policy.maxAttempts} reconnect attempts`),
      });
      this.emit('error', this.fatal);
      this.close();
      return;
    }
    const delayMs = reconnectDelay(this.attempt, policy ?? {}, this.options.random);
    this._state = 'reconnecting';
    this.emit('reconnecting', { attempt: this.attempt, delayMs });
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      if (this._state !== 'closed') void this.open();
    }, delayMs);
  }

  private startKeepAlive(socket: WebSocketLike, generation: number): void {
    const interval = this.options.keepAliveMs ?? 30_000;
    if (interval <= 0 || typeof socket.ping !== 'function') return;
    this.awaitingPong = false;
    this.keepAliveTimer = setInterval(() => {
      if (generation !== this.generation) return;
      if (this.awaitingPong) {
        // Dead peer: drop it; the close event triggers the reconnect.
        this.stopKeepAlive();
        if (socket.terminate) socket.terminate();
        else socket.close(4000, 'keep-alive timeout');
        return;
      }
      this.awaitingPong = true;
      try {
        socket.ping?.();
      } catch {
        // a failing ping surfaces as close/error
      }
    }, interval);
  }

  private stopKeepAlive(): void {
    if (this.keepAliveTimer !== undefined) clearInterval(this.keepAliveTimer);
    this.keepAliveTimer = undefined;
  }
}
