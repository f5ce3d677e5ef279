/**
 * Request observation: how metrics and tracing plugins see every request the kernel answers
 * without taking part in it. The kernel calls a plugin's `onRequest` when a request arrives and
 * the function it returns once, with the outcome, after the response is built (before its body is
 * streamed). Observers must be cheap and must not throw (the kernel drops what they throw).
 */

/** What the kernel knows about an answered request. Never a header, a token, a cookie or a body. */
export interface RequestOutcome {
  readonly requestId: string;
  readonly method: string;
  /** The matched route's template below the base path (`/policies/{id}`); undefined on 404/405. */
  readonly route: string | undefined;
  readonly status: number;
  /** From arrival to the response being built, in milliseconds. */
  readonly durationMs: number;
  /** The authenticated caller's tenant and user (undefined on public routes and auth failures). */
  readonly tenantId: string | undefined;
  readonly userId: string | undefined;
  /** The error code of an error answer (`forbidden`, `rate_limit_exceeded`, `internal_error`…). */
  readonly errorCode: string | undefined;
  /** The rate-limit category that refused the request (429 only). */
  readonly rateLimitCategory: string | undefined;
}

/** Called when a request arrives; the returned function (if any) receives its outcome. */
export type RequestObserver = (
  request: Request,
  requestId: string,
) => ((outcome: RequestOutcome) => void) | undefined;
