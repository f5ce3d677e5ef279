// One attempt of a request: fetch under a timeout and the caller's signal, the request/response
// hooks, reading the body, and the mapping of every failure to an AnalyticsApiError.
import { AnalyticsApiError } from '../errors';
import { parseRetryAfter } from '../retry';
import { wireError } from '../wire/common';
import type { ClientHooks, RequestHookContext } from './hooks';
import type { FetchLike } from './options';

export interface AttemptEnv {
  fetch: FetchLike;
  hooks: ClientHooks;
  now: () => number;
  /** The signal that ends one attempt after `ms` (default `AbortSignal.timeout`). */
  timeoutSignal: (ms: number) => AbortSignal;
}

export interface Sent<Text> {
  response: Response;
  text: Text;
}

/**
 * Sends one attempt. Resolves with a 2xx response; with `readText`, the body is read inside the
 * attempt (so a body cut off mid-way is a retryable network error). `timeoutMs` 0 = none.
 */
export async function attempt(
  env: AttemptEnv,
  ctx: RequestHookContext,
  signal: AbortSignal | undefined,
  timeoutMs: number,
  readText: boolean,
): Promise<Sent<string | undefined>> {
  const { request, attempt: attempts } = ctx;
  const aborted = () => new AnalyticsApiError({ kind: 'aborted', request, attempts, cause: signal?.reason });
  if (signal?.aborted) throw aborted();
  await env.hooks.onRequest?.(ctx);
  if (signal?.aborted) throw aborted();
  const controller = new AbortController();
  let timedOut = false;
  const onAbort = () => controller.abort(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  const timer = timeoutMs > 0 ? env.timeoutSignal(timeoutMs) : undefined;
  const onTimeout = () => {
    timedOut = true;
    controller.abort(new Error(`Timed out after ${timeoutMs} ms`));
  };
  if (timer?.aborted) onTimeout();
  else timer?.addEventListener('abort', onTimeout, { once: true });
  const classify = (cause: unknown): AnalyticsApiError => {
    if (signal?.aborted) return aborted();
    if (timedOut) return new AnalyticsApiError({ kind: 'timeout', request, attempts, cause });
    return new AnalyticsApiError({ kind: 'network', request, attempts, cause });
  };
  let streaming = false;
  try {
    const started = env.now();
    let response: Response;
    try {
      response = await env.fetch(ctx.url.href, {
        method: ctx.method,
        headers: ctx.headers,
        body: ctx.body,
        signal: controller.signal,
      });
    } catch (cause) {
      throw classify(cause);
    }
    await env.hooks.onResponse?.({ ...ctx, response, durationMs: env.now() - started });
    if (!response.ok || readText) {
      let text: string;
      try {
        text = await response.text();
      } catch (cause) {
        throw classify(cause);
      }
      if (!response.ok) {
        throw new AnalyticsApiError({
          kind: 'http',
          request,
          attempts,
          status: response.status,
          serverMessage: serverMessage(text),
          body: text,
          response,
          retryAfterMs:
            response.status === 429 || response.status === 503
              ? parseRetryAfter(response.headers.get('retry-after'), env.now())
              : undefined,
        });
      }
      return { response, text };
    }
    streaming = true;
    return { response, text: undefined };
  } finally {
    timer?.removeEventListener('abort', onTimeout);
    // A streamed body stays tied to the caller's signal until it is read.
    if (!streaming) signal?.removeEventListener('abort', onAbort);
  }
}

const MESSAGE_LIMIT = 200;

/**
 * `{"error": "..."}` -> its text; a plain-text body (`404 page not found`) -> the trimmed text. Either
 * is cut at 200 characters (with `…`); the error's `body` keeps the first 500.
 */
export function serverMessage(body: string): string | undefined {
  const trimmed = body.trim();
  if (trimmed === '') return undefined;
  let json: string | undefined;
  try {
    const parsed = wireError.safeParse(JSON.parse(trimmed));
    if (parsed.success) json = parsed.data.error;
  } catch {
    // not JSON: plain text
  }
  if (json === undefined && trimmed.startsWith('<')) return undefined; // an HTML page says nothing useful
  const message = json ?? trimmed;
  return message.length > MESSAGE_LIMIT ? `${message.slice(0, MESSAGE_LIMIT)}…` : message;
}
