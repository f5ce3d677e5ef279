/**
 * The request log: one structured line per request the kernel answers, through the `Logger` port
 * (`logger.info('request', fields)`). The fields are an allow-list — request id, method, route
 * template (never the raw path or query string, which can carry codes and identifiers), status,
 * duration, tenant and user — so a header, a token, a cookie or a body can never reach it.
 */
import type { Logger, RequestObserver, RequestOutcome } from '@agentgov/core';

/** The fields of a request line, in the order they are written. */
export interface RequestLogFields {
  requestId: string;
  method: string;
  /** Route template below the base path (`/policies/{id}`); null when no route matched. */
  route: string | null;
  status: number;
  /** Milliseconds, rounded to 0.1. */
  durationMs: number;
  tenantId: string | null;
  userId: string | null;
  /** The error code of an error answer. */
  error?: string;
}

/** The fields of one request line (exported for loggers that format lines themselves). */
export function requestLogFields(o: RequestOutcome): RequestLogFields {
  const fields: RequestLogFields = {
    requestId: o.requestId,
    method: o.method,
    route: o.route ?? null,
    status: o.status,
    durationMs: Math.round(o.durationMs * 10) / 10,
    tenantId: o.tenantId ?? null,
    userId: o.userId ?? null,
  };
  if (o.errorCode) fields.error = o.errorCode;
  return fields;
}

/** Writes one `request` line per answered request: `error` for an unexpected failure (500), else `info`. */
export function requestLogObserver(logger: Logger): RequestObserver {
  return () => (outcome) => {
    const fields = requestLogFields(outcome);
    if (outcome.errorCode === 'internal_error') logger.error('request', { ...fields });
    else logger.info('request', { ...fields });
  };
}

/** One observer out of several: each is called in turn; what one throws is dropped. */
export function composeObservers(
  observers: readonly (RequestObserver | undefined)[],
): RequestObserver | undefined {
  const list = observers.filter((o): o is RequestObserver => o !== undefined);
  if (list.length === 0) return undefined;
  if (list.length === 1) return list[0];
  return (request, requestId) => {
    const ends: ((outcome: RequestOutcome) => void)[] = [];
    for (const observe of list) {
      try {
        const end = observe(request, requestId);
        if (end) ends.push(end);
      } catch {
        // An observer's failure is its own.
      }
    }
    return (outcome) => {
      for (const end of ends) {
        try {
          end(outcome);
        } catch {
          // idem
        }
      }
    };
  };
}
