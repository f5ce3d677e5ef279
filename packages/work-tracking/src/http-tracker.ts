/**
 * TrackerClient over a Jira-compatible REST API (v2: plain-text comment bodies, which Jira Cloud,
 * Server and Data Center all accept):
 *   POST {base}/rest/api/2/issue/{key}/comment       {body}            → 201 {id}
 *   GET  {base}/rest/api/2/issue/{key}/transitions                      → 200 {transitions:[{id,name,to:{name}}]}
 *   POST {base}/rest/api/2/issue/{key}/transitions   {transition:{id}} → 204
 * Each attempt has a timeout; 408, 429, 5xx, timeouts and network errors are retried with capped
 * exponential backoff, waiting the server's `Retry-After` (seconds or HTTP date) when it is not
 * longer than `maxRetryAfterMs`. Whatever still fails is a TrackerRequestError saying whether it is
 * retryable (the outbox tries again later) and the Retry-After it was given.
 */
import {
  type CallOptions,
  findByName,
  isRetryableStatus,
  readUpTo,
  type TrackerClient,
  TrackerRequestError,
  type TrackerTransition,
} from '@agentgov/core';

/** Largest answer read from a tracker or a pulled service (bytes): a larger one is refused, not buffered. */
export const MAX_PULL_ANSWER_BYTES = 16 * 1024 * 1024;

/**
 * The text of `response`, read up to `maxBytes` (then cancelled: undefined). A connector's URL is
 * its tenant admin's to choose, so the answer is whatever that server sends.
 */
export async function textUpTo(response: Response, maxBytes: number): Promise<string | undefined> {
  const bytes = await readUpTo(response.body, maxBytes);
  return bytes && Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}

/** Credentials of an HTTP API: `bearer` (personal access token) or `basic` (e-mail or login + API token). */
export type HttpAuth = { type: 'bearer'; token: string } | { type: 'basic'; username: string; token: string };

/** The `Authorization` header value of `auth`. */
export function authorizationOf(auth: HttpAuth): string {
  return auth.type === 'bearer'
    ? `Bearer ${auth.token}`
    : `Basic ${Buffer.from(`${auth.username}:${auth.token}`).toString('base64')}`;
}

export interface HttpTrackerClientOptions {
  /** Base URL of the tracker, e.g. `https://acme.atlassian.net`. */
  baseUrl: string;
  /** `bearer` (personal access token) or `basic` (e-mail + API token). */
  auth?: HttpAuth;
  fetch?: typeof fetch;
  /** Per-attempt timeout in ms (default 10 000). */
  timeoutMs?: number;
  /** Retries after the first attempt (default 2). */
  retries?: number;
  /** First backoff in ms, doubled per retry, capped at 8 s (default 250). */
  backoffMs?: number;
  /** A Retry-After longer than this is not waited for in-process (default 30 000). */
  maxRetryAfterMs?: number;
  /** Injected for tests. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /**
   * The signal that ends one attempt after `timeoutMs` (default `AbortSignal.timeout`). Injected
   * for tests, so that a hanging tracker times out when the test says so, not when a busy machine
   * happens to be slower than the timeout.
   */
  timeoutSignal?: (ms: number) => AbortSignal;
}

/** `Retry-After` in ms: delta seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export class HttpTrackerClient implements TrackerClient {
  readonly #base: string;
  readonly #headers: Record<string, string>;
  readonly #fetch: typeof fetch;
  readonly #timeoutMs: number;
  readonly #retries: number;
  readonly #backoffMs: number;
  readonly #maxRetryAfterMs: number;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly #timeoutSignal: (ms: number) => AbortSignal;

  constructor(options: HttpTrackerClientOptions) {
    this.#base = options.baseUrl.replace(/\/+$/, '');
    this.#headers = { accept: 'application/json' };
    if (options.auth) this.#headers.authorization = authorizationOf(options.auth);
    this.#fetch = options.fetch ?? globalThis.fetch;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#retries = options.retries ?? 2;
    this.#backoffMs = options.backoffMs ?? 250;
    this.#maxRetryAfterMs = options.maxRetryAfterMs ?? 30_000;
    this.#sleep = options.sleep ?? defaultSleep;
    this.#timeoutSignal = options.timeoutSignal ?? ((ms) => AbortSignal.timeout(ms));
  }

  async addComment(ticketKey: string, body: string, options?: CallOptions): Promise<{ id: string }> {
    const r = (await this.#call(
      'POST',
      `/issue/${encodeURIComponent(ticketKey)}/comment`,
      { body },
      options,
    )) as {
      id?: unknown;
    };
    return { id: String(r?.id ?? '') };
  }

  async findTransition(
    ticketKey: string,
    name: string,
    options?: CallOptions,
  ): Promise<TrackerTransition | undefined> {
    const r = (await this.#call(
      'GET',
      `/issue/${encodeURIComponent(ticketKey)}/transitions`,
      undefined,
      options,
    )) as {
      transitions?: { id?: unknown; name?: unknown; to?: { name?: unknown } }[];
    };
    const list: TrackerTransition[] = (r?.transitions ?? []).map((t) => ({
      id: String(t.id ?? ''),
      name: String(t.name ?? ''),
      to: typeof t.to?.name === 'string' ? t.to.name : undefined,
    }));
    return findByName(list, name);
  }

  async transition(ticketKey: string, transitionId: string, options?: CallOptions): Promise<void> {
    await this.#call(
      'POST',
      `/issue/${encodeURIComponent(ticketKey)}/transitions`,
      { transition: { id: transitionId } },
      options,
    );
  }

  async #call(method: string, path: string, body: unknown, options?: CallOptions): Promise<unknown> {
    const url = `${this.#base}/rest/api/2${path}`;
    const request = { method, url };
    let last: TrackerRequestError | undefined;
    for (let attempt = 0; attempt <= this.#retries; attempt++) {
      options?.signal?.throwIfAborted();
      if (attempt > 0 && last) {
        const backoff = Math.min(this.#backoffMs * 2 ** (attempt - 1), 8_000);
        const wait = last.retryAfterMs ?? backoff;
        if (wait > this.#maxRetryAfterMs) throw last;
        await this.#sleep(wait, options?.signal);
      }
      const timeout = this.#timeoutSignal(this.#timeoutMs);
      const signal = options?.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
      let response: Response;
      try {
        response = await this.#fetch(url, {
          method,
          headers:
            body === undefined ? this.#headers : { ...this.#headers, 'content-type': 'application/json' },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          // Not followed: the token goes to the configured host only.
          redirect: 'manual',
          signal,
        });
      } catch (cause) {
        if (options?.signal?.aborted) throw options.signal.reason;
        const timedOut = timeout.aborted;
        last = new TrackerRequestError(
          timedOut ? `tracker did not answer within ${this.#timeoutMs} ms` : 'tracker unreachable',
          { retryable: true, request, cause },
        );
        continue;
      }
      if (response.ok) {
        const text = await textUpTo(response, MAX_PULL_ANSWER_BYTES);
        if (text === undefined)
          throw new TrackerRequestError(`tracker answered more than ${MAX_PULL_ANSWER_BYTES} bytes`, {
            retryable: false,
            request,
          });
        return text === '' ? undefined : (JSON.parse(text) as unknown);
      }
      // Not quoted (the tracker's URL is the tenant admin's to choose: its answer is not read back).
      await response.body?.cancel().catch(() => {});
      last = new TrackerRequestError(`tracker answered ${response.status}`, {
        status: response.status,
        retryable: isRetryableStatus(response.status),
        retryAfterMs: parseRetryAfter(response.headers.get('retry-after')),
        request,
      });
      if (!last.retryable) throw last;
    }
    throw last as TrackerRequestError;
  }
}
