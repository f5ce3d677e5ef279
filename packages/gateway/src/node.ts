/**
 * The Node side of the kernel, used by the framework adapters:
 * - the fast path: `nodeIncoming` reads an `IncomingMessage` as the pipeline's `Incoming` without
 *   building a Fetch `Request` (headers read in place; the body read straight from the stream,
 *   bounded), and `writeOutcome` writes the pipeline's answer straight to the `ServerResponse`,
 *   a JSON body in one write with its Content-Length — a Fetch `Request` is built only for a
 *   route or hook that reads more than its method, url, headers and signal;
 * - the bridge for any other use: `toFetchRequest` (as tRPC's `incomingMessageToRequest`, with
 *   abort on client disconnect) and `sendFetchResponse` (streamed with backpressure).
 */
import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorOf, ValidationError } from '@agentgov/core';
import { type Outcome, readBodyLimited } from './http';
import type { Incoming, RequestTarget } from './pipeline';

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
function bodyConsumed(req: IncomingMessage): boolean {
  return req.readableEnded || (req as { _body?: unknown })._body === true;
}

/** The Node request's headers as a Fetch Headers (HTTP/2 pseudo-headers left out). */
function fetchHeaders(req: IncomingMessage): Headers {
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

/**
 * How much of a request body left unread by an early answer (413, 401, 404 …) is read and
 * discarded before the connection closes: up to `bytes`, for at most `ms`.
 */
export interface DrainLimits {
  /** Default 64 MiB. */
  bytes?: number;
  /** Default 30 000. */
  ms?: number;
}

const DEFAULT_DRAIN_BYTES = 64 * 1024 * 1024;
const DEFAULT_DRAIN_MS = 30_000;

/** The request still has body bytes nobody read (the answer came before them). */
function bodyPending(req: IncomingMessage | undefined): req is IncomingMessage {
  return req !== undefined && !req.readableEnded && !bodyConsumedOrEmpty(req);
}

/**
 * Ends the response once the request body nobody read has arrived and been discarded (up to the
 * drain limits). The answer (sent with `Connection: close`) is on the wire already; ending at once
 * would close the socket while the client still sends, and a socket closed with unread data
 * answers the client with a TCP reset that can discard the answer before the client read it — a
 * 413 that never arrives. Past the limits (or when the client goes away) it ends anyway.
 */
function endAfterDrain(req: IncomingMessage, res: ServerResponse, limits: DrainLimits = {}): void {
  detachers.get(req)?.();
  if (req.readableEnded || req.destroyed) {
    res.end();
    return;
  }
  const maxBytes = limits.bytes ?? DEFAULT_DRAIN_BYTES;
  let drained = 0;
  let ended = false;
  const finish = () => {
    if (ended) return;
    ended = true;
    clearTimeout(timer);
    req.off('data', onData);
    req.off('end', finish);
    req.off('close', finish);
    req.off('error', finish);
    res.off('close', finish);
    if (!res.writableEnded) res.end();
  };
  const onData = (chunk: Buffer) => {
    drained += chunk.byteLength;
    if (drained > maxBytes) finish();
  };
  const timer = setTimeout(finish, limits.ms ?? DEFAULT_DRAIN_MS);
  timer.unref?.();
  req.on('data', onData);
  req.once('end', finish);
  req.once('close', finish);
  req.once('error', finish);
  res.once('close', finish);
  // Send the head now, also when no body was written (`writeHead` alone does not send it); once
  // sent, this writes nothing.
  res.flushHeaders();
  req.resume();
}

/**
 * Writes a Fetch Response to a Node response, streaming the body with backpressure. A request body
 * left unread (413, or an error before reading) makes the connection unusable: the answer asks to
 * close it, and the rest of the body is read and discarded before it closes (`drain`).
 */
export async function sendFetchResponse(
  res: ServerResponse,
  response: Response,
  drain?: DrainLimits,
): Promise<void> {
  res.statusCode = response.status;
  const pending = bodyPending(res.req);
  if (pending) res.setHeader('connection', 'close');
  const cookies = response.headers.getSetCookie();
  response.headers.forEach((value, key) => {
    if (key !== 'set-cookie') res.setHeader(key, value);
  });
  if (cookies.length > 0) res.setHeader('set-cookie', cookies);
  const end = () => (pending ? endAfterDrain(res.req, res, drain) : res.end());
  if (!response.body) {
    end();
    return;
  }
  await pipeBody(res, response.body, end);
}

/**
 * Streams a body to the Node response with backpressure, then ends it (`end`); a client that goes
 * away cancels the stream, a stream that fails destroys the response.
 */
async function pipeBody(
  res: ServerResponse,
  body: ReadableStream<Uint8Array>,
  end: () => void = () => res.end(),
): Promise<void> {
  const reader = body.getReader();
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
    end();
  } catch {
    res.destroy();
  } finally {
    res.off('close', onClose);
  }
}

/** A request header as one string (several values joined), or null. */
function headerOf(req: IncomingMessage, name: string): string | null {
  const v = req.headers[name];
  return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
}

/** A read-only Headers over the Node request's headers for get/has; anything else builds a real one. */
function lazyHeaders(req: IncomingMessage): Headers {
  let real: Headers | undefined;
  const materialize = (): Headers => {
    real ??= fetchHeaders(req);
    return real;
  };
  const fast = {
    get: (name: string) => headerOf(req, name.toLowerCase()),
    has: (name: string) => req.headers[name.toLowerCase()] !== undefined,
  };
  return lazyView(fast, materialize, Headers.prototype);
}

/**
 * An object that answers `fast`'s own properties, and those its class names in `also`, itself and
 * everything else from `materialize()` (built on first such use; its methods bound to it), and is
 * `instanceof` the class of `proto`.
 */
function lazyView<T extends object>(
  fast: object,
  materialize: () => T,
  proto: object,
  also?: ReadonlySet<PropertyKey>,
): T {
  const answers = (target: object, key: PropertyKey) => Object.hasOwn(target, key) || also?.has(key) === true;
  return new Proxy(fast, {
    get(target, key) {
      if (answers(target, key)) return Reflect.get(target, key);
      const real = materialize();
      const value = Reflect.get(real, key, real) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(real) : value;
    },
    has: (target, key) => answers(target, key) || key in materialize(),
    getPrototypeOf: () => proto,
  }) as T;
}

/**
 * What the request view answers in place (the rest comes from the Fetch Request). A class, not an
 * object literal with getters: such a literal gets its own hidden class per request in the old
 * generation, which keeps the request's young objects alive through scavenges.
 */
class RequestFields {
  readonly method: string;
  readonly headers: Headers;
  readonly #incoming: NodeIncoming;

  constructor(incoming: NodeIncoming, req: IncomingMessage) {
    this.method = incoming.method;
    this.headers = lazyHeaders(req);
    this.#incoming = incoming;
  }

  get url(): string {
    return this.#incoming.url().href;
  }

  get signal(): AbortSignal {
    return this.#incoming.signal;
  }
}

/** The accessors of `RequestFields` (on its prototype, not own properties of an instance). */
const REQUEST_ACCESSORS: ReadonlySet<PropertyKey> = new Set(
  Reflect.ownKeys(RequestFields.prototype).filter((k) => k !== 'constructor'),
);

/**
 * Reads the request stream, bounded: 413 past `limit` (the rest is read and discarded while the
 * answer goes out, see `endAfterDrain`; then the connection closes).
 */
function readStream(req: IncomingMessage, limit: number): Promise<Uint8Array> {
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

/**
 * A request target whose path and query a WHATWG URL keeps exactly as sent: an absolute path
 * without dot segments, percent escapes or a leading `//`, and a query of plain characters. Any
 * other target goes through `new URL` (which normalises it).
 */
const PLAIN_TARGET = /^\/(?!\/)[A-Za-z0-9\-_~/]*(\?[A-Za-z0-9\-_.~=&+*,;:@!$()/?%]*)?$/;

const EMPTY = new Uint8Array(0);
const BODYLESS = new Set(['GET', 'HEAD']);

/**
 * The pipeline's view of a Node request: method, headers and URL read in place, the body read
 * from the stream (or from what a body parser kept, see `NodeRequestOptions`), the abort signal
 * and a Fetch Request built only when something asks for them. One object per request, its
 * methods on the prototype.
 */
class NodeIncoming implements Incoming {
  readonly method: string;
  #url: URL | undefined;
  #body: Promise<Uint8Array> | undefined;
  #request: Request | undefined;
  #view: Request | undefined;
  #controller: AbortController | undefined;

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly options: NodeRequestOptions,
  ) {
    this.method = (req.method ?? 'GET').toUpperCase();
  }

  header(name: string): string | null {
    return headerOf(this.req, name);
  }

  url(): URL {
    if (!this.#url) {
      const { req, options } = this;
      const protocol =
        options.protocol ?? ((req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http');
      try {
        this.#url = new URL(
          options.url ?? req.url ?? '/',
          `${protocol}://${req.headers.host ?? 'localhost'}`,
        );
      } catch {
        throw ValidationError.invalid('(url)', 'the request target is not a valid URL');
      }
    }
    return this.#url;
  }

  /** Aborts when the client goes away before the answer is written (created on first use). */
  get signal(): AbortSignal {
    if (!this.#controller) {
      const controller = new AbortController();
      const { res } = this;
      res.once('close', () => {
        if (!res.writableFinished) controller.abort();
      });
      this.#controller = controller;
    }
    return this.#controller.signal;
  }

  target(): RequestTarget {
    if (this.#url) return this.#url;
    const raw = this.options.url ?? this.req.url ?? '/';
    if (!PLAIN_TARGET.test(raw)) return this.url();
    const q = raw.indexOf('?');
    return q < 0
      ? { pathname: raw, search: '' }
      : { pathname: raw.slice(0, q), search: q === raw.length - 1 ? '' : raw.slice(q) };
  }

  readBody(limit: number): Promise<Uint8Array> {
    this.#body ??= this.#read(limit);
    return this.#body;
  }

  #read(limit: number): Promise<Uint8Array> {
    const { req, options } = this;
    // Something built the Fetch Request first: its body is the stream now.
    if (this.#request) return readBodyLimited(this.#request, limit);
    if (BODYLESS.has(this.method)) return Promise.resolve(EMPTY);
    if (options.rawBody !== undefined) {
      const raw = options.rawBody;
      return Promise.resolve(typeof raw === 'string' ? Buffer.from(raw, 'utf8') : raw);
    }
    if (bodyConsumed(req)) {
      const sent =
        Number(req.headers['content-length'] ?? '0') > 0 || req.headers['transfer-encoding'] !== undefined;
      const parsed = options.parsedBody;
      if (parsed === undefined || !sent) return Promise.resolve(EMPTY);
      return Promise.resolve(
        Buffer.from(typeof parsed === 'string' ? parsed : JSON.stringify(parsed), 'utf8'),
      );
    }
    return readStream(req, limit);
  }

  fetchRequest(): Request {
    if (!this.#request) {
      const { req, res, options } = this;
      const at = this.url().href;
      const read = this.#body;
      if (read === undefined) this.#request = toFetchRequest(req, res, { ...options, url: at });
      else {
        // The body was read (or is being read) already: the Request carries those bytes.
        const headers = fetchHeaders(req);
        headers.delete('content-length');
        headers.delete('transfer-encoding');
        const stream = new ReadableStream<Uint8Array>({
          async pull(c) {
            const bytes = await read;
            if (bytes.byteLength > 0) c.enqueue(bytes);
            c.close();
          },
        });
        const init: RequestInit & { duplex?: 'half' } = { method: this.method, headers, signal: this.signal };
        if (!BODYLESS.has(this.method)) {
          init.body = stream;
          init.duplex = 'half';
        }
        this.#request = new Request(at, init);
      }
    }
    return this.#request;
  }

  /** What the kernel's hooks get: method, url, headers, signal read in place; the rest from `fetchRequest()`. */
  get request(): Request {
    if (!this.#view) {
      this.#view = lazyView<Request>(
        new RequestFields(this, this.req),
        () => this.fetchRequest(),
        Request.prototype,
        REQUEST_ACCESSORS,
      );
    }
    return this.#view;
  }
}

/** The pipeline's view of a Node request (see `NodeIncoming`). */
export function nodeIncoming(
  req: IncomingMessage,
  res: ServerResponse,
  options: NodeRequestOptions = {},
): Incoming {
  return new NodeIncoming(req, res, options);
}

/**
 * Writes the pipeline's answer to the Node response: status and headers at once, a JSON text or
 * bytes in one write with its Content-Length, a stream (a handler's own Response) with
 * backpressure. A request body left unread (413, or an error before reading) makes the connection
 * unusable: the answer asks to close it, and the rest of the body is read and discarded (up to
 * `drain`) before it closes, so that the client reads the answer. Written at once (no promise)
 * unless the body is a stream.
 */
export function writeOutcome(
  res: ServerResponse,
  outcome: Outcome,
  drain?: DrainLimits,
): Promise<void> | undefined {
  const req = res.req as IncomingMessage | undefined;
  const headers: Record<string, string | string[] | number> = {};
  for (const [key, value] of outcome.headers) headers[key] = value;
  const pending = bodyPending(req);
  if (pending) headers.connection = 'close';
  const { body } = outcome;
  if (body === null || typeof body === 'string' || body instanceof Uint8Array) {
    const length = body === null ? 0 : typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
    if (!(outcome.status === 204 || outcome.status === 304) || length > 0) headers['content-length'] = length;
    res.writeHead(outcome.status, headers);
    if (!pending) {
      res.end(body ?? undefined);
      return undefined;
    }
    if (body !== null && length > 0) res.write(body);
    endAfterDrain(req, res, drain);
    return undefined;
  }
  res.writeHead(outcome.status, headers);
  return pipeBody(res, body, pending ? () => endAfterDrain(req, res, drain) : undefined);
}
