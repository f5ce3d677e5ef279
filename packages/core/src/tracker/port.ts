/**
 * Tracker client: the work-tracking plugin's writes to an issue tracker (a Jira-compatible REST
 * API in `@agentgov/work-tracking`, an in-memory tracker here). Three operations, the ones a merge
 * needs: comment on a ticket, find a transition by name, apply a transition.
 */
import type { CallOptions } from '../vocabulary';

/** A transition a ticket can take now (Jira: `GET /issue/{key}/transitions`). */
export interface TrackerTransition {
  id: string;
  name: string;
  /** Name of the status the transition leads to, when the tracker says. */
  to?: string | undefined;
}

export interface TrackerClient {
  /** Adds a comment; returns the tracker's comment id. Unknown ticket → TrackerRequestError 404. */
  addComment(ticketKey: string, body: string, options?: CallOptions): Promise<{ id: string }>;
  /**
   * The transition of the ticket whose name (or target status name) equals `name`, compared
   * case-insensitively; undefined when the ticket has no such transition now.
   */
  findTransition(
    ticketKey: string,
    name: string,
    options?: CallOptions,
  ): Promise<TrackerTransition | undefined>;
  /** Applies a transition by id. Unknown ticket → 404; a transition not available now → 400. */
  transition(ticketKey: string, transitionId: string, options?: CallOptions): Promise<void>;
}

/**
 * A failed tracker request. `retryable` is true for 408, 429, 5xx, timeouts and network errors —
 * the cases an outbox retries; `retryAfterMs` carries the tracker's `Retry-After` when it sent one.
 * `request` is redacted: method and URL only, never the authorization header.
 */
export class TrackerRequestError extends Error {
  override readonly name = 'TrackerRequestError';
  readonly status: number | undefined;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;
  readonly request: { method: string; url: string } | undefined;
  constructor(
    message: string,
    init: {
      status?: number | undefined;
      retryable: boolean;
      retryAfterMs?: number | undefined;
      request?: { method: string; url: string } | undefined;
      cause?: unknown;
    },
  ) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.retryable = init.retryable;
    this.retryAfterMs = init.retryAfterMs;
    this.request = init.request;
  }
}

/** True for the statuses worth retrying: 408, 429 and every 5xx. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}
