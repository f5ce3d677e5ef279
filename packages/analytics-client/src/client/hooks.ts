// Hooks for logging and metrics (like Octokit's hook.before/after/error and openapi-fetch's
// middleware): called for every attempt, awaited, in this order: onRequest -> (fetch) -> onResponse,
// then onRetry before a retry's wait or onError when the call fails for good.
import type { AnalyticsApiError, RedactedRequest } from '../errors';

export interface RequestHookContext {
  /** Upper-case method. */
  method: string;
  /** The full URL sent (not redacted: it is the caller's own). */
  url: URL;
  /** The headers of this attempt; `onRequest` may change them (e.g. add a trace id). */
  headers: Headers;
  /** The JSON body, if any. */
  body: string | undefined;
  /** 1 for the first try, 2 for the first retry, ... */
  attempt: number;
  /** `METHOD /path` without the query, e.g. `GET /api/sessions` or `PUT /api/budgets/3`. */
  endpoint: string;
  /** Method, path and URL with secrets redacted: safe to log. */
  request: RedactedRequest;
}

export interface ResponseHookContext extends RequestHookContext {
  /**
   * The response as received, before its body is read: read `status` and `headers`; to read the
   * body, use `response.clone()` (reading it directly would leave nothing for the client).
   */
  response: Response;
  /** Time from sending to the response headers. */
  durationMs: number;
}

export interface RetryHookContext extends RequestHookContext {
  /** Why the attempt failed. */
  error: AnalyticsApiError;
  /** The wait before the next attempt (`Retry-After` or the jittered backoff). */
  delayMs: number;
}

export interface ErrorHookContext extends RequestHookContext {
  /** The error the call rejects with (after the last attempt). */
  error: AnalyticsApiError;
}

/**
 * Hook functions may be async; they are awaited. An exception thrown by a hook fails the call
 * with that exception, unchanged and not retried.
 */
export interface ClientHooks {
  onRequest?: (context: RequestHookContext) => void | Promise<void>;
  onResponse?: (context: ResponseHookContext) => void | Promise<void>;
  onRetry?: (context: RetryHookContext) => void | Promise<void>;
  onError?: (context: ErrorHookContext) => void | Promise<void>;
}
