// The WebSocket implementation the event stream uses: the minimal interface it needs, and where the
// constructor comes from (injected, the global one, or the `ws` package loaded lazily).

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

export async function resolveWebSocket(
  injected: WebSocketConstructor | undefined,
): Promise<WebSocketConstructor> {
  if (injected) return injected;
  const global = (globalThis as { WebSocket?: unknown }).WebSocket;
  if (typeof global === 'function') return global as WebSocketConstructor;
  const mod = await import('ws');
  return (mod.default ?? mod.WebSocket) as unknown as WebSocketConstructor;
}
