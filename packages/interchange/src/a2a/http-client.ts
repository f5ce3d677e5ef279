/**
 * The HTTP calls of `A2ATransport`: one call within a per-call timeout and the caller's signal, its
 * response read by the caller. By default on a keep-alive `undici` Agent of its own, through
 * `Dispatcher.dispatch` (no WHATWG fetch, web streams or AbortController per call), with undici's
 * own `redirect` interceptor following redirects as `fetch` does (its `decompress` interceptor is
 * still experimental and warns at run time: a coded body is decoded here, `decode`); with an
 * injected `fetch`, through it exactly as given. A URL that is not plain http(s) goes
 * through the global `fetch`. Everything the default path gives is what `fetch` gives — status,
 * body text (UTF-8, BOM dropped), a connection failure as `TypeError('fetch failed', { cause })`,
 * a body cut short as `TypeError('terminated', { cause })`, an abort as the signal's reason (the
 * timeout's a `TimeoutError` DOMException).
 */

import type { IncomingHttpHeaders } from 'node:http';
import { brotliDecompressSync, constants, gunzipSync, inflateRawSync, inflateSync } from 'node:zlib';
import { Agent, type Dispatcher, interceptors } from 'undici';

/** What a call's reader sees of the response (a `Response` is one). */
export interface HttpResponse {
  readonly status: number;
  readonly ok: boolean;
  text(): Promise<string>;
  json(): Promise<unknown>;
}

export interface HttpInit {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal | undefined;
}

/** As many redirects as `fetch` follows. */
const MAX_REDIRECTIONS = 20;
const utf8 = new TextDecoder();
const timeoutError = () => new DOMException('The operation was aborted due to timeout', 'TimeoutError');

export class A2AHttpClient {
  readonly #fetch: typeof fetch | undefined;
  readonly #timeoutMs: number;
  #agent: Agent | undefined;
  #dispatcher: Dispatcher | undefined;
  constructor(options: { fetch?: typeof fetch | undefined; timeoutMs?: number | undefined }) {
    this.#fetch = options.fetch;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
  }

  /**
   * One call, its response read by `read`, within the per-call timeout (and the caller's signal,
   * if any): aborted like `AbortSignal.timeout` (a `TimeoutError`), but the timer is cleared once
   * the call is done, so no timer and no abort outlive a finished call.
   */
  async call<T>(url: URL | string, init: HttpInit, read: (res: HttpResponse) => Promise<T>): Promise<T> {
    const target = this.#fetch ? undefined : plainHttp(url);
    if (!target) return this.#viaFetch(this.#fetch ?? fetch, url, init, read);
    const outer = init.signal;
    if (outer?.aborted) throw outer.reason;
    const call = new Call();
    const timer = setTimeout(() => call.abort(timeoutError()), this.#timeoutMs);
    timer.unref();
    const follow = () => call.abort(outer?.reason);
    outer?.addEventListener('abort', follow, { once: true });
    try {
      if (!this.#dispatcher) {
        this.#agent = new Agent();
        this.#dispatcher = this.#agent.compose(interceptors.redirect({ maxRedirections: MAX_REDIRECTIONS }));
      }
      return await read(await call.start(this.#dispatcher, target, init));
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener('abort', follow);
    }
  }

  /** Closes the keep-alive connections (idle ones never keep the process alive); a later call opens new ones. */
  async close(): Promise<void> {
    const agent = this.#agent;
    this.#agent = undefined;
    this.#dispatcher = undefined;
    await agent?.close();
  }

  async #viaFetch<T>(
    f: typeof fetch,
    url: URL | string,
    init: HttpInit,
    read: (res: HttpResponse) => Promise<T>,
  ): Promise<T> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(timeoutError()), this.#timeoutMs);
    timer.unref();
    const outer = init.signal;
    const follow = () => controller.abort(outer?.reason);
    if (outer?.aborted) follow();
    else outer?.addEventListener('abort', follow, { once: true });
    try {
      return await read(await f(url, { ...init, signal: controller.signal }));
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener('abort', follow);
    }
  }
}

/** The URL when the default path takes it: http(s), no credentials, parses. */
function plainHttp(url: URL | string): URL | undefined {
  let u: URL;
  try {
    u = typeof url === 'string' ? new URL(url) : url;
  } catch {
    return undefined;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
  if (u.username || u.password) return undefined;
  return u;
}

/** One dispatched request: settles at the response's head, then its body; abortable at any point. */
class Call implements Dispatcher.DispatchHandler {
  #ctl: Dispatcher.DispatchController | undefined;
  #aborted: { reason: unknown } | undefined;
  #head: { resolve: (r: HttpResponse) => void; reject: (e: unknown) => void } | undefined;
  #body: { resolve: (b: Buffer) => void; reject: (e: unknown) => void } | undefined;
  #chunks: Buffer[] = [];
  #encoding: string | undefined;

  start(dispatcher: Dispatcher, url: URL, init: HttpInit): Promise<HttpResponse> {
    return new Promise((resolve, reject) => {
      this.#head = { resolve, reject };
      dispatcher.dispatch(
        {
          origin: url.origin,
          path: url.pathname + url.search,
          method: init.method ?? 'GET',
          headers: init.headers ?? {},
          body: init.body ?? null,
        },
        this,
      );
    });
  }

  abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = { reason };
    this.#ctl?.abort(reason as Error);
    this.#fail(reason);
  }

  onRequestStart(ctl: Dispatcher.DispatchController): void {
    this.#ctl = ctl;
    if (this.#aborted) ctl.abort(this.#aborted.reason as Error);
  }

  onResponseStart(_ctl: Dispatcher.DispatchController, status: number, headers: IncomingHttpHeaders): void {
    const head = this.#head;
    if (status < 200 || !head) return;
    this.#head = undefined;
    const coding = headers['content-encoding'];
    if (coding !== undefined) this.#encoding = Array.isArray(coding) ? coding.join(',') : coding;
    const body = new Promise<Buffer>((resolve, reject) => {
      this.#body = { resolve, reject };
    });
    body.catch(() => {});
    const text = () => body.then((b) => utf8.decode(decode(b, this.#encoding)));
    head.resolve({
      status,
      ok: status >= 200 && status <= 299,
      text,
      json: () => text().then(JSON.parse),
    });
  }

  onResponseData(_ctl: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#chunks.push(chunk);
  }

  onResponseEnd(): void {
    const body = this.#body;
    this.#body = undefined;
    body?.resolve(this.#chunks.length === 1 ? (this.#chunks[0] as Buffer) : Buffer.concat(this.#chunks));
  }

  onResponseError(_ctl: Dispatcher.DispatchController, error: Error): void {
    if (this.#aborted) return;
    this.#fail(
      this.#head
        ? new TypeError('fetch failed', { cause: error })
        : new TypeError('terminated', { cause: error }),
    );
  }

  #fail(error: unknown): void {
    const { head, body } = { head: this.#head, body: this.#body };
    this.#head = undefined;
    this.#body = undefined;
    head?.reject(error);
    body?.reject(error);
  }
}

/**
 * The body as `fetch` decodes it: the codings applied in reverse order (gzip, deflate, br); an
 * unknown one leaves the body as it came. The default path asks for none (no Accept-Encoding).
 */
function decode(body: Buffer, encoding: string | undefined): Buffer {
  if (encoding === undefined || body.length === 0) return body;
  const codings = encoding
    .toLowerCase()
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '' && c !== 'identity')
    .reverse();
  if (!codings.every((c) => c === 'gzip' || c === 'x-gzip' || c === 'deflate' || c === 'br')) return body;
  const lenient = { flush: constants.Z_SYNC_FLUSH, finishFlush: constants.Z_SYNC_FLUSH };
  let out = body;
  for (const c of codings) {
    if (c === 'br') out = brotliDecompressSync(out);
    // zlib-wrapped when the first byte names deflate (CM = 8), raw otherwise, as fetch tells them apart
    else if (c === 'deflate')
      out = ((out[0] ?? 0) & 0x0f) === 0x08 ? inflateSync(out, lenient) : inflateRawSync(out, lenient);
    else out = gunzipSync(out, lenient);
  }
  return out;
}
