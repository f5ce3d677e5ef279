/**
 * The few HTTP calls the server commands make (`policy diff|apply`, `audit prove`): a bearer
 * token, the spec's error body turned into a message, and safe retries — a GET, or a write that
 * carries an `Idempotency-Key` (the same key on every attempt, so the server replays instead of
 * writing twice), is retried after a network failure, 429 (Retry-After), 502/503/504, or 409
 * `idempotency_key_in_use`.
 */
import { UsageError } from './io';

export interface Server {
  /** The API base, `…/api/v1`. */
  api: string;
  token: string;
  fetch: typeof fetch;
  /** First backoff in ms (doubled per attempt). */
  backoffMs: number;
}

/** `--server` / `AGENTGOV_SERVER` and `--token` / `AGENTGOV_TOKEN`. */
export function serverFrom(
  values: { server?: string | undefined; token?: string | undefined },
  env: Record<string, string | undefined>,
  options: { fetch?: typeof fetch } = {},
): Server {
  const raw = values.server ?? env.AGENTGOV_SERVER;
  if (!raw) throw new UsageError('--server URL is required (or set AGENTGOV_SERVER)');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`--server: not a URL: ${raw}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError('--server must be http(s)://…');
  const token = values.token ?? env.AGENTGOV_TOKEN;
  if (!token) throw new UsageError('--token is required (or set AGENTGOV_TOKEN)');
  const base = url.href.replace(/\/+$/, '');
  return {
    api: base.endsWith('/api/v1') ? base : `${base}/api/v1`,
    token,
    fetch: options.fetch ?? fetch,
    backoffMs: 250,
  };
}

/** A 4xx/5xx answer: the status and the spec's `{error, message, detail?}`. */
export class ServerError extends Error {
  readonly status: number;
  readonly code: string | undefined;
  readonly detail: unknown;
  constructor(method: string, path: string, status: number, body: unknown) {
    const b = (body && typeof body === 'object' ? body : {}) as {
      error?: unknown;
      message?: unknown;
      detail?: unknown;
    };
    const code = typeof b.error === 'string' ? b.error : undefined;
    const message = typeof b.message === 'string' ? b.message : '';
    super(`${method} ${path}: ${status}${code ? ` ${code}` : ''}${message ? `: ${message}` : ''}`);
    this.status = status;
    this.code = code;
    this.detail = b.detail;
  }
}

const RETRY_STATUS = new Set([429, 502, 503, 504]);
const ATTEMPTS = 4;

export interface CallResult<T> {
  status: number;
  body: T;
  headers: Headers;
}

export async function call<T = unknown>(
  server: Server,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  options: { body?: unknown; idempotencyKey?: string; accept?: string } = {},
): Promise<CallResult<T>> {
  const retryable = method === 'GET' || options.idempotencyKey !== undefined;
  const headers: Record<string, string> = {
    authorization: `Bearer ${server.token}`,
    accept: options.accept ?? 'application/json',
  };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.idempotencyKey !== undefined) headers['idempotency-key'] = `"${options.idempotencyKey}"`;
  let lastError: unknown;
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    let response: Response;
    try {
      response = await server.fetch(`${server.api}${path}`, {
        method,
        headers,
        ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
      });
    } catch (error) {
      lastError = error;
      if (!retryable || attempt === ATTEMPTS) break;
      await sleep(server.backoffMs * 2 ** (attempt - 1));
      continue;
    }
    const text = await response.text();
    let body: unknown = text;
    if ((response.headers.get('content-type') ?? '').includes('json')) {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    }
    if (response.ok) return { status: response.status, body: body as T, headers: response.headers };
    const inUse =
      response.status === 409 &&
      (body as { error?: unknown } | undefined)?.error === 'idempotency_key_in_use';
    if (retryable && attempt < ATTEMPTS && (RETRY_STATUS.has(response.status) || inUse)) {
      const retryAfter = Number(response.headers.get('retry-after'));
      const wait = Number.isFinite(retryAfter) && retryAfter > 0 ? Math.min(retryAfter, 10) * 1000 : 0;
      await sleep(Math.max(wait, server.backoffMs * 2 ** (attempt - 1)));
      continue;
    }
    throw new ServerError(method, path, response.status, body);
  }
  throw new UsageError(
    `${method} ${server.api}${path}: the server cannot be reached: ${(lastError as Error)?.message ?? lastError}`,
  );
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The tenant of the token, which must be the tenant of the policy directory. */
export async function tokenTenant(server: Server): Promise<string> {
  try {
    const me = await call<{ tenantId: string }>(server, 'GET', '/auth/userinfo');
    return me.body.tenantId;
  } catch (error) {
    if (error instanceof ServerError) throw new UsageError(`the server refused the token: ${error.message}`);
    throw error;
  }
}
