// The `/ws` connection: opening (one attempt pending at a time), frames to events, reconnecting with
// backoff, keep-alive pings, and closing for good.
import { AnalyticsApiError, type RedactedRequest, redactRequest } from '../errors';
import { EventFanout, type EventStreamListeners } from './fanout';
import { readFrame } from './parse';
import { type ReconnectOptions, reconnectDelay } from './reconnect';
import { resolveWebSocket, type WebSocketConstructor, type WebSocketLike } from './socket';
import type { AnalyticsEvent } from './types';

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
  private readonly fanout = new EventFanout();
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
    return this.fanout.on(type, listener);
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
    this.shutdown(undefined);
  }

  [Symbol.asyncIterator](): AsyncIterator<AnalyticsEvent> {
    return this.fanout.iterator(() => this.close());
  }

  /** Closes for good; with `fatal` (the stream gave up), iterators reject with it once drained. */
  private shutdown(fatal: AnalyticsApiError | undefined): void {
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
    this.fanout.end(fatal);
  }

  private networkError(cause: unknown, attempts?: number): AnalyticsApiError {
    return new AnalyticsApiError({ kind: 'network', request: this.request, attempts, cause });
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
      this.fanout.emit('error', this.networkError(cause));
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
      this.fanout.emit('open');
    });
    socket.addEventListener('message', (event: { data: unknown }) => {
      if (!current()) return;
      this.awaitingPong = false;
      this.handleFrame(event.data);
    });
    socket.addEventListener('error', (event: { error?: unknown; message?: string }) => {
      if (!current()) return;
      this.fanout.emit(
        'error',
        this.networkError(event.error ?? new Error(event.message ?? 'WebSocket error')),
      );
    });
    socket.addEventListener('close', (event: { code?: number; reason?: string }) => {
      if (!current()) return;
      this.stopKeepAlive();
      this.socket = undefined;
      this.fanout.emit('close', { code: event.code ?? 1006, reason: event.reason ?? '' });
      this.scheduleReconnect(generation);
    });
    socket.on?.('pong', () => {
      if (current()) this.awaitingPong = false;
    });
  }

  private handleFrame(data: unknown): void {
    const frame = readFrame(data);
    if ('error' in frame) {
      this.fanout.emit(
        'error',
        new AnalyticsApiError({
          kind: 'invalid_response',
          request: this.request,
          body: frame.text,
          cause: frame.error,
        }),
      );
      return;
    }
    this.fanout.emit('event', frame.event);
    this.fanout.push(frame.event, this.options.maxBuffer ?? 10_000);
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
      const fatal = this.networkError(
        new Error(`gave up after ${policy.maxAttempts} reconnect attempts`),
        this.attempt,
      );
      this.fanout.emit('error', fatal);
      this.shutdown(fatal);
      return;
    }
    const delayMs = reconnectDelay(this.attempt, policy ?? {}, this.options.random);
    this._state = 'reconnecting';
    this.fanout.emit('reconnecting', { attempt: this.attempt, delayMs });
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
