/**
 * The server's log: pino JSON lines handed to one line sink (stdout in `main.ts`, an array in
 * tests). The gateway kernel writes one `request` line per request through it (request id,
 * method, route template, status, duration, tenant, user — never the raw path or query string,
 * never a header, so never a token or cookie); pino's redaction list censors credentials in
 * anything else that is logged. While the server starts, requests are answered here (503, with
 * the phase in the readiness body and the spec's shape on /status) and logged the same way.
 */
import type http from 'node:http';
import type { Logger } from '@agentgov/core';
import { requestIdFrom } from '@agentgov/gateway';
import { PINO_REDACT, pinoLogger } from '@agentgov/gateway/observability';
import pino from 'pino';

export type LogLine = (line: string) => void;

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/**
 * A `Logger` writing pino JSON lines (ISO time, no pid or hostname) to `write`. Two pino
 * instances share the sink: one with the redaction list, and its twin without, which writes the
 * calls no redaction path can reach (the kernel's flat request line) without pino's per-call
 * redaction pass — the same line either way (`pinoLogger`'s `unredacted`).
 */
export function createServerLogger(write: LogLine, level: LogLevel = 'info'): Logger {
  const sink = { write: (line: string) => write(line.endsWith('\n') ? line.slice(0, -1) : line) };
  const options = { level, base: undefined, timestamp: isoTime };
  return pinoLogger(pino({ ...options, redact: { paths: [...PINO_REDACT] } }, sink), {
    unredacted: pino(options, sink),
  });
}

let lastMs = Number.NaN;
let lastTime = '';

/**
 * `pino.stdTimeFunctions.isoTime` (`,"time":"<ISO 8601>"`), its text made once per millisecond:
 * a busy server writes several lines in one.
 */
export function isoTime(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastTime = `,"time":"${new Date(ms).toISOString()}"`;
    lastMs = ms;
  }
  return lastTime;
}

/** What the server is doing before it can serve: opening (and migrating) the database, or the rest. */
export type StartupPhase = 'migrating' | 'starting';

/** What the starting server says about itself on `/status`. */
export interface StartingComponents {
  /**
   * The components the plugins will report once the service serves, in their order (the
   * reference server's: `policyEngine`, `opa` when an OPA is configured, `workTracking`).
   */
  plugins: readonly string[];
}

const REFERENCE_COMPONENTS: StartingComponents = { plugins: ['policyEngine', 'workTracking'] };

/**
 * The spec's `/status` body while the server starts (served with 503): the same shape as once it
 * serves — `{status, components: {gateway, <the plugins' components>, database, connectors},
 * timestamp}` — with every component that is not ready `unhealthy` (the database is healthy once
 * opened and migrated; no connector is listed, as for an anonymous caller).
 */
function startingStatus(
  phase: StartupPhase,
  components: StartingComponents = REFERENCE_COMPONENTS,
  now = new Date(),
) {
  const unhealthy = { status: 'unhealthy' as const };
  const shown: Record<string, unknown> = { gateway: unhealthy };
  for (const name of components.plugins) shown[name] = unhealthy;
  shown.database = { status: phase === 'migrating' ? 'unhealthy' : 'healthy' };
  shown.connectors = {};
  return { status: 'degraded' as const, components: shown, timestamp: now.toISOString() };
}

/**
 * Answers requests that arrive before the service is assembled: `/api/v1/livez` 200, the
 * `/api/v1/readyz` body saying which component is not ready, `/api/v1/status` the spec's status
 * body with 503 (`startingStatus`), anything else 503 `service_unavailable`. Every answer carries
 * `X-Request-Id` (the spec: every response does).
 */
export function startupResponder(
  phase: () => StartupPhase,
  logger: Logger,
  components: StartingComponents = REFERENCE_COMPONENTS,
): http.RequestListener {
  return (req, res) => {
    const started = performance.now();
    const path = (req.url ?? '/').split('?')[0];
    const header = req.headers['x-request-id'];
    const requestId = requestIdFrom(typeof header === 'string' ? header : null);
    let status = 503;
    let body: unknown;
    if (path === '/api/v1/livez') {
      status = 200;
      body = { status: 'alive' };
    } else if (path === '/api/v1/status') {
      body = startingStatus(phase(), components);
    } else if (path === '/api/v1/readyz') {
      body = {
        status: 'not_ready',
        components:
          phase() === 'migrating'
            ? { database: { status: 'migrating' } }
            : { database: { status: 'healthy' }, gateway: { status: 'starting' } },
      };
    } else {
      body = { error: 'service_unavailable', message: 'The server is starting' };
    }
    res.writeHead(status, {
      'x-request-id': requestId,
      'content-type': 'application/json',
      'cache-control': 'no-store',
      ...(status === 503 ? { 'retry-after': '1' } : {}),
    });
    res.end(JSON.stringify(body));
    logger.info('request', {
      requestId,
      method: req.method ?? '-',
      route: ['/api/v1/livez', '/api/v1/readyz', '/api/v1/status'].includes(path ?? '')
        ? (path as string).slice('/api/v1'.length)
        : null,
      status,
      durationMs: Math.round((performance.now() - started) * 10) / 10,
      tenantId: null,
      userId: null,
    });
  };
}
