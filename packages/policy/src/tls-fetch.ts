/**
 * `tlsFetch(options)`: a `fetch` over node:https with a CA of your own and a client certificate,
 * for the OPA engine (`new OpaDecisionEngine({ url: 'https://…', fetch: tlsFetch({ ca, cert, key }) })`)
 * — the global fetch takes no TLS options. The peer must present a certificate that chains to
 * `ca` (default: Node's root CAs) and names the URL's host (or `servername`): certificate
 * verification cannot be turned off. Enough of fetch for a JSON API client: method, headers, a
 * string or bytes body, an abort signal; the answer is a Fetch `Response` whose body streams.
 * node:https is imported on first use, so this module costs nothing where it is not called.
 */
import { type ClientTlsOptions, verifiedClientTls } from '@agentgov/core';

/** CA, client certificate and key, the name to verify: core's `ClientTlsOptions`. */
export type TlsFetchOptions = ClientTlsOptions;

type HttpsModule = typeof import('node:https');
type Agent = import('node:https').Agent;

const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304]);

export function tlsFetch(options: TlsFetchOptions): typeof fetch {
  const tls = verifiedClientTls('tlsFetch (OPA)', options);
  let loaded: Promise<{ https: HttpsModule; agent: Agent }> | undefined;
  const load = () => {
    loaded ??= import('node:https').then((m) => {
      const https = ((m as { default?: HttpsModule }).default ?? m) as HttpsModule;
      const agent = new https.Agent({ keepAlive: true, ...tls });
      return { https, agent };
    });
    return loaded;
  };

  return async function fetchOverTls(input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.protocol !== 'https:') throw new TypeError(`tlsFetch: not an https URL: ${url.origin}`);
    const { https, agent } = await load();
    const signal = init.signal ?? undefined;
    signal?.throwIfAborted();
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, key) => {
      headers[key] = value;
    });
    const body = bodyBytes(init.body);
    if (body !== undefined) headers['content-length'] = String(body.byteLength);
    return new Promise<Response>((resolve, reject) => {
      const req = https.request(url, {
        method: init.method ?? 'GET',
        headers,
        agent,
        ...(options.servername === undefined ? {} : { servername: options.servername }),
      });
      const onAbort = () => req.destroy(signal?.reason ?? new Error('aborted'));
      signal?.addEventListener('abort', onAbort, { once: true });
      req.once('close', () => signal?.removeEventListener('abort', onAbort));
      req.once('error', reject);
      req.once('response', (res) => {
        const out = new Headers();
        for (let i = 0; i + 1 < res.rawHeaders.length; i += 2)
          out.append(res.rawHeaders[i] as string, res.rawHeaders[i + 1] as string);
        const status = res.statusCode ?? 502;
        const stream = new ReadableStream<Uint8Array>({
          start(controller) {
            res.on('data', (chunk: Buffer) => controller.enqueue(new Uint8Array(chunk)));
            res.once('end', () => controller.close());
            res.once('error', (error) => controller.error(error));
            req.once('error', (error) => {
              try {
                controller.error(error);
              } catch {}
            });
          },
          cancel() {
            res.destroy();
          },
        });
        if (NULL_BODY_STATUS.has(status)) res.resume();
        resolve(
          new Response(NULL_BODY_STATUS.has(status) ? null : stream, {
            status,
            statusText: res.statusMessage ?? '',
            headers: out,
          }),
        );
      });
      req.end(body);
    });
  } as typeof fetch;
}

function bodyBytes(body: RequestInit['body']): Uint8Array | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  throw new TypeError('tlsFetch: the body must be a string or bytes');
}
