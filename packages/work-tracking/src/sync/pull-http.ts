/**
 * One GET of a JSON document for a scheduled pull: a single attempt with a timeout (the pull's
 * own schedule retries, with backoff), an injected `fetch` and timeout signal, and an answer
 * checked against a zod schema. Every failure is a PullError whose message says what went wrong
 * in words an operator can act on (it becomes the connector's `errorDetails`).
 */
import type { z } from 'zod';
import { EgressRefusedError } from '../egress';
import { authorizationOf, type HttpAuth, MAX_PULL_ANSWER_BYTES, textUpTo } from '../http-tracker';

export class PullError extends Error {
  override name = 'PullError';
}

export interface PullHttpOptions {
  fetch?: typeof fetch;
  /** Per-request timeout in ms (default 10 000). */
  timeoutMs?: number;
  /** The signal that ends a request after `timeoutMs` (default `AbortSignal.timeout`; injected by tests). */
  timeoutSignal?: (ms: number) => AbortSignal;
}

/** Why a request failed, in words: a refused egress says so (never a port scan's details). */
function failureOf(cause: unknown): string {
  const inner = cause instanceof Error ? cause.cause : undefined;
  if (inner instanceof EgressRefusedError) return inner.message;
  return cause instanceof Error ? cause.message : String(cause);
}

export async function getJson<S extends z.ZodType>(
  url: URL,
  schema: S,
  auth: HttpAuth | undefined,
  o: PullHttpOptions & { signal?: AbortSignal | undefined },
): Promise<z.infer<S>> {
  const timeoutMs = o.timeoutMs ?? 10_000;
  const timeout = (o.timeoutSignal ?? ((ms) => AbortSignal.timeout(ms)))(timeoutMs);
  const signal = o.signal ? AbortSignal.any([o.signal, timeout]) : timeout;
  const where = `${url.origin}${url.pathname}`;
  let response: Response;
  try {
    response = await (o.fetch ?? globalThis.fetch)(url, {
      headers: { accept: 'application/json', ...(auth ? { authorization: authorizationOf(auth) } : {}) },
      // Not followed: a redirect would take the pull (and a check of where it may go) elsewhere.
      redirect: 'manual',
      signal,
    });
  } catch (cause) {
    if (o.signal?.aborted) throw o.signal.reason;
    throw new PullError(
      timeout.aborted
        ? `GET ${where} gave no answer within ${timeoutMs / 1000} s`
        : `GET ${where} failed: ${failureOf(cause)}`,
      { cause },
    );
  }
  // The answer's body is never quoted: the error becomes the connector's `errorDetails`, which
  // the tenant reads (also on /status), and the URL is the tenant admin's to choose — quoting it
  // would read an internal service's answers back to them.
  if (!response.ok) {
    await response.body?.cancel().catch(() => {});
    throw new PullError(
      response.status >= 300 && response.status < 400
        ? `GET ${where} answered ${response.status} (a redirect, not followed)`
        : `GET ${where} answered ${response.status}`,
    );
  }
  const text = await textUpTo(response, MAX_PULL_ANSWER_BYTES).catch(() => '');
  if (text === undefined)
    throw new PullError(`GET ${where} answered more than ${MAX_PULL_ANSWER_BYTES / 1024 / 1024} MiB`);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new PullError(`GET ${where} answered ${response.status} with a body that is not JSON`);
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success)
    throw new PullError(
      `GET ${where} answered an unexpected shape: ${parsed.error.issues
        .slice(0, 3)
        .map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`)
        .join('; ')}`,
    );
  return parsed.data;
}
