/**
 * Reading a Node `IncomingMessage`, for the kernel's Node side (`node.ts`): its headers as Fetch
 * `Headers`, whether a body parser already consumed its body, its body read bounded from the stream
 * (413 past the limit) or as a web stream with backpressure, and `toFetchRequest`, the bridge to a
 * Fetch `Request` for any other use (as tRPC's `incomingMessageToRequest`, with abort on client
 * disconnect). What the response side needs to discard a body left unread (`bodyPending`,
 * `detachBody`) is here too, next to the stream it lets go of.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorOf, ValidationError } from '@agentgov/core';

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

/** A body parser read the stream (`req.complete` alone only says that it all arrived). */
export function bodyConsumed(req: IncomingMessage): boolean {
  return req.readableEnded || (req as { _body?: unknown })._body === true;
}

/** The Node request's headers as a Fetch Headers (HTTP/2 pseudo-headers left out). */
export function fetchHeaders(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [key, value] of Object.entries(req.headers)) {
    if (value === undefined || key.startsWith(':')) continue;
    if (Array.isArray(value)) for (const v of value) headers.append(key, v);
    else headers.set(key, value);
  }
  return headers;
}

/** How to let go of a request's body stream (see `bodyStream`), so that `endAfterDrain` can discard the rest. */
const detachers = new WeakMap<IncomingMessage, () => void>();

/** Lets go of the request's body stream (see `bodyStream`), if one reads it, so that the rest can be discarded. */
export function detachBody(req: IncomingMessage): void {
  detachers.get(req)?.();
}

/**
 * The request body as a web stream, with backpressure (the request is paused while the stream's
 * queue is full). Cancelling it (a reader that stops at the body limit) does not destroy the
 * request — that would close the socket under a client still sending, before it read the answer —
 * but lets go of it: the rest is read and discarded by `endAfterDrain`.
 */
function bodyStream(req: IncomingMessage): ReadableStream<Uint8Array> {
  let detach = () => {};
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        const fail = (error: unknown) => {
          detach();
          try {
            controller.error(error);
          } catch {}
        };
        const onData = (chunk: Buffer) => {
          controller.enqueue(chunk);
          if ((controller.desiredSize ?? 0) <= 0) req.pause();
        };
        const onEnd = () => {
          detach();
          try {
            controller.close();
          } catch {}
        };
        const onError = (error: Error) => fail(error);
        const onClose = () => {
          if (!req.complete)
            fail(ValidationError.invalid('(body)', 'the body ended before its declared length'));
        };
        detach = () => {
          req.off('data', onData);
          req.off('end', onEnd);
          req.off('error', onError);
          req.off('close', onClose);
          detachers.delete(req);
        };
        req.on('data', onData);
        req.once('end', onEnd);
        req.once('error', onError);
        req.once('close', onClose);
        req.pause();
        detachers.set(req, () => fail(new Error('the request was answered before its body was read')));
      },
      pull() {
        req.resume();
      },
      cancel() {
        detach();
      },
    },
    { highWaterMark: 16 },
  );
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

  const headers = fetchHeaders(req);
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
      body = bodyStream(req);
      duplex = true;
    }
  }
  const init: RequestInit & { duplex?: 'half' } = { method, headers, signal: controller.signal };
  if (body !== null) init.body = body;
  if (duplex) init.duplex = 'half';
  return new Request(url, init);
}

/** The request still has body bytes nobody read (the answer came before them). */
export function bodyPending(req: IncomingMessage | undefined): req is IncomingMessage {
  return req !== undefined && !req.readableEnded && !bodyConsumedOrEmpty(req);
}

/** A request header as one string (several values joined), or null. */
export function headerOf(req: IncomingMessage, name: string): string | null {
  const v = req.headers[name];
  return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
}

/**
 * Reads the request stream, bounded: 413 past `limit` (the rest is read and discarded while the
 * answer goes out, see `endAfterDrain`; then the connection closes).
 */
export function readStream(req: IncomingMessage, limit: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > limit) {
        done();
        req.resume(); // discard the rest; the response asks to close the connection
        reject(errorOf('payload_too_large', `The request body exceeds ${limit} bytes`));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      done();
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    };
    const onError = (error: Error) => {
      done();
      reject(error);
    };
    const onClose = () => {
      if (req.complete) return;
      done();
      reject(ValidationError.invalid('(body)', 'the body ended before its declared length'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}
