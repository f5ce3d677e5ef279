import { RETRY_STATUSES } from './retry';

/** What went wrong, independent of the HTTP status. */
export type AnalyticsErrorKind =
  /** The server answered with a non-2xx status. `status` and `serverMessage` are set. */
  | 'http'
  /** The request never got an answer (DNS, connection refused, reset, ...). */
  | 'network'
  /** No answer within the configured timeout. */
  | 'timeout'
  /** The caller's `AbortSignal` fired. */
  | 'aborted'
  /** The server answered 2xx, but the body is not what this API returns (not JSON, wrong shape). */
  | 'invalid_response';

/** The request an error belongs to, safe to log: credentials and secret-looking query values are redacted. */
export interface RedactedRequest {
  method: string;
  /** Path and query of the request, e.g. `/api/sessions?limit=50&offset=0`. */
  path: string;
  /** Full URL with userinfo and secret-looking query values replaced by `[redacted]`. */
  url: string;
}

export interface AnalyticsApiErrorInit {
  kind: AnalyticsErrorKind;
  request: RedactedRequest;
  status?: number;
  serverMessage?: string;
  body?: string;
  attempts?: number;
  cause?: unknown;
  /** The server's `Retry-After` in milliseconds (429/503), when it sent one. */
  retryAfterMs?: number;
  /** The response of the failed attempt (its body already read: see `body`). */
  response?: Response;
}

const BODY_SNIPPET = 500;

/**
 * The error every sent request fails with. Invalid arguments fail earlier, with
 * {@link AnalyticsValidationError}, before anything is sent.
 */
export class AnalyticsApiError extends Error {
  override readonly name = 'AnalyticsApiError';
  readonly kind: AnalyticsErrorKind;
  /** HTTP status for `kind: 'http'`, and for `invalid_response` the (2xx) status received. */
  readonly status: number | undefined;
  /** The server's own error text: `{"error": "..."}` or a plain-text body (e.g. `404 page not found`). */
  readonly serverMessage: string | undefined;
  /** First 500 characters of the response body, when there was one. */
  readonly body: string | undefined;
  readonly request: RedactedRequest;
  /** How many attempts were made (1 + retries). */
  readonly attempts: number;
  /** The server's `Retry-After` in milliseconds, for a 429/503 that carried one. */
  readonly retryAfterMs: number | undefined;
  /** The raw response of the failed attempt (status, headers), for `kind: 'http'` and `invalid_response`. */
  readonly response: Response | undefined;

  constructor(init: AnalyticsApiErrorInit) {
    super(redactCredentials(describe(init)), init.cause === undefined ? undefined : { cause: init.cause });
    this.kind = init.kind;
    this.status = init.status;
    this.serverMessage = init.serverMessage;
    this.body = init.body === undefined ? undefined : init.body.slice(0, BODY_SNIPPET);
    this.request = init.request;
    this.attempts = init.attempts ?? 1;
    this.retryAfterMs = init.retryAfterMs;
    this.response = init.response;
  }

  /** `METHOD /path` of the failed request. */
  get endpoint(): string {
    return `${this.request.method} ${this.request.path.split('?')[0]}`;
  }

  /** True for 404 answers (JSON or the plain-text `404 page not found`). */
  get isNotFound(): boolean {
    return this.kind === 'http' && this.status === 404;
  }

  /**
   * Whether a second try can succeed: a network error, a per-attempt timeout, 429, 502, 503 or 504.
   * Not a 500 (the server failed on this very request, e.g. a malformed search query). Says nothing
   * about idempotency.
   */
  get isTransient(): boolean {
    return (
      this.kind === 'network' ||
      this.kind === 'timeout' ||
      (this.kind === 'http' && this.status !== undefined && RETRY_STATUSES.has(this.status))
    );
  }
}

export function isAnalyticsApiError(value: unknown): value is AnalyticsApiError {
  return value instanceof AnalyticsApiError;
}

function describe(init: AnalyticsApiErrorInit): string {
  const where = `${init.request.method} ${init.request.path}`;
  switch (init.kind) {
    case 'http':
      return `${where} failed with HTTP ${init.status}${init.serverMessage ? `: ${init.serverMessage}` : ''}`;
    case 'network':
      return `${where} failed: network error${causeText(init.cause)}`;
    case 'timeout':
      return `${where} timed out`;
    case 'aborted':
      return `${where} was aborted`;
    case 'invalid_response':
      return `${where} returned an unexpected response${causeText(init.cause)}`;
  }
}

function causeText(cause: unknown): string {
  if (cause instanceof Error && cause.message) return ` (${cause.message})`;
  return '';
}

/**
 * Replaces the userinfo of every URL in `text` (`http://user:pw@host` -> `http://[redacted]@host`):
 * a cause's message may quote a URL with credentials (undici: "…includes credentials: http://user:pw@…").
 */
function redactCredentials(text: string): string {
  return text.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]*@/gi, '$1[redacted]@');
}

const SECRET_KEY = /(token|secret|password|passwd|api[-_]?key|auth|signature|credential)/i;

/** Redacts userinfo and secret-looking query parameter values of a URL. */
function redactUrl(url: URL): RedactedRequest['url'] {
  const copy = new URL(url.href);
  if (copy.username) copy.username = 'redacted';
  if (copy.password) copy.password = 'redacted';
  for (const key of [...copy.searchParams.keys()]) {
    if (SECRET_KEY.test(key)) copy.searchParams.set(key, '[redacted]');
  }
  return copy.href;
}

export function redactRequest(method: string, url: URL): RedactedRequest {
  const redacted = new URL(redactUrl(url));
  return { method, path: `${redacted.pathname}${redacted.search}`, url: redacted.href };
}

/** One invalid argument: its path (`amountUsd`, `tags.1`) and what is wrong with it. */
export interface ValidationIssue {
  field: string;
  message: string;
}

/**
 * An argument failed the client's input schema; nothing was sent. `field` names the first invalid
 * argument (`period`, `amountUsd`, `q`, `limit`, `to`, ...), `issues` lists all of them.
 */
export class AnalyticsValidationError extends TypeError {
  override readonly name = 'AnalyticsValidationError';
  readonly kind = 'validation' as const;
  /** The first invalid argument, e.g. `period` or `tags.1`. */
  readonly field: string;
  readonly issues: readonly ValidationIssue[];
  /** `METHOD /path` of the call that was refused, e.g. `POST /api/budgets`. */
  readonly endpoint: string;

  constructor(endpoint: string, issues: readonly ValidationIssue[], cause?: unknown) {
    const first = issues[0] ?? { field: '(arguments)', message: 'invalid' };
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
    super(`${endpoint}: invalid ${first.field}: ${first.message}${more}; nothing was sent`, { cause });
    this.field = first.field;
    this.issues = issues;
    this.endpoint = endpoint;
  }
}

export function isAnalyticsValidationError(value: unknown): value is AnalyticsValidationError {
  return value instanceof AnalyticsValidationError;
}
