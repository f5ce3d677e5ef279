/**
 * Node bridge used by the framework adapters: `IncomingMessage` → Fetch `Request` (as tRPC's
 * `incomingMessageToRequest`, with abort on client disconnect) and Fetch `Response` →
 * `ServerResponse` (streamed with backpressure, never buffered).
 */
import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';

export interface NodeRequestOptions {
  /**
   * The exact body bytes when a body parser already consumed the stream and kept them
   * (`req.rawBody`, Koa's `ctx.request.rawBody`); used byte-for-byte.
   */
  rawBody?: Uint8Array | string | undefined;
  /**
   * A body a parser already produced (`req.body`, `ctx.request.body`); re-serialized as JSON only
   * when the stream is consumed and no raw bytes were kept.
   */
  parsedBody?: unknown;
  /** Path + query to use instead of `req.url` (e.g. Express's `originalUrl` under a mount path). */
  url?: string;
  /** Scheme when not derivable from the socket (`https` behind TLS). */
  protocol?: 'http' | 'https';
}

function bodyConsumedOrEmpty(req: IncomingMessage): boolean {
  return (
    (req.headers['content-length'] === undefined || req.headers['content-length'] === '0') &&
    req.headers['transfer-encoding'] === undefined
  );
}

function bodyConsumed(req: IncomingMessage): boolean {
  return req.readableEnded || req.complete || (req as { _body?: unknown })._body === true;
}

/** Builds a Fetch Request from a Node request; the signal aborts when the client goes away. */
export function toFetchRequest(
  req: IncomingMessage,
  res: ServerResponse,
  options: NodeRequestOptions = {},
): Request {
  const controller = new AbortController();
  const onClose = () => {
    if (!res.writableFinished) controller.abort();
  };
  res.once('close', onClose);

  const headers = new Headers();
  for (const [key, value] of Object.entries(req.headers)) {
    if (value === undefined || key.startsWith(':')) continue;
    if (Array.isArray(value)) for (const v of value) headers.append(key, v);
    else headers.set(key, value);
  }
  const protocol = options.protocol ?? ((req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http');
  const host = headers.get('host') ?? 'localhost';
  const url = new URL(options.url ?? req.url ?? '/', `${protocol}://${host}`);

  const method = (req.method ?? 'GET').toUpperCase();
  let body: BodyInit | null = null;
  let duplex = false;
  if (method !== 'GET' && method !== 'HEAD') {
    if (options.rawBody !== undefined) {
      body = typeof options.rawBody === 'string' ? options.rawBody : new Uint8Array(options.rawBody);
      headers.delete('content-length');
    } else if (bodyConsumed(req)) {
      const sent = Number(headers.get('content-length') ?? '0') > 0 || headers.has('transfer-encoding');
      if (options.parsedBody !== undefined && sent) {
        body =
          typeof options.parsedBody === 'string' ? options.parsedBody : JSON.stringify(options.parsedBody);
        headers.set('content-type', 'application/json');
      }
      headers.delete('content-length');
      headers.delete('transfer-encoding');
    } else {
      body = Readable.toWeb(req) as unknown as ReadableStream<Uint8Array>;
      duplex = true;
    }
  }
  const init: RequestInit & { duplex?: 'half' } = { method, headers, signal: controller.signal };
  if (body !== null) init.body = body;
  if (duplex) init.duplex = 'half';
  return new Request(url, init);
}

/** Writes a Fetch Response to a Node response, streaming the body with backpressure. */
export async function sendFetchResponse(res: ServerResponse, response: Response): Promise<void> {
  res.statusCode = response.status;
  // A body left unread (413, or an error before reading) makes the connection unusable: close it.
  if (res.req && !res.req.readableEnded && !bodyConsumedOrEmpty(res.req))
    res.setHeader('connection', 'close');
  const cookies = response.headers.getSetCookie();
  response.headers.forEach((value, key) => {
    if (key !== 'set-cookie') res.setHeader(key, value);
  });
  if (cookies.length > 0) res.setHeader('set-cookie', cookies);
  if (!response.body) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  const onClose = () => {
    reader.cancel().catch(() => {});
  };
  res.once('close', onClose);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) await once(res, 'drain');
    }
    res.end();
  } catch {
    res.destroy();
  } finally {
    res.off('close', onClose);
  }
}
