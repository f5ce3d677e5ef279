/**
 * The Node side of the kernel, used by the framework adapters — the fast path: `nodeIncoming`
 * reads an `IncomingMessage` as the pipeline's `Incoming` without building a Fetch `Request`
 * (method, headers and URL read in place; the body read straight from the stream, bounded, see
 * `node-request.ts`), and a Fetch `Request` is built only for a route or hook that reads more than
 * its method, url, headers and signal. The answer is written by `writeOutcome`
 * (`node-response.ts`); `toFetchRequest` and `sendFetchResponse` there are the bridge for any
 * other use.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ValidationError } from '@agentgov/core';
import { readBodyLimited } from './http';
import {
  bodyConsumed,
  fetchHeaders,
  headerOf,
  type NodeRequestOptions,
  readStream,
  toFetchRequest,
} from './node-request';
import type { Incoming, RequestTarget } from './pipeline';

export type { NodeRequestOptions } from './node-request';
export { writeOutcome } from './node-response';

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
