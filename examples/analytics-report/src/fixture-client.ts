/**
 * The recorded responses of a real Session Analytics server (kept in the repository at
 * `packages/analytics-client/test/fixtures/session-analytics`; `SESSION_ANALYTICS_FIXTURES`
 * overrides), read as the server sent them (status line, content type, body), and a client answered
 * by them in process: used by the tests and to render the README screenshot reproducibly. The
 * `--offline` mode serves the same recordings over loopback HTTP (offline-server.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AnalyticsClient } from '@agentgov/analytics-client';

export const FIXTURE_DIR =
  process.env.SESSION_ANALYTICS_FIXTURES ??
  join(import.meta.dirname, '../../../packages/analytics-client/test/fixtures/session-analytics');

/** The recordings the report reads, by path. */
export const REPORT_FIXTURES: Record<string, string> = {
  '/api/stats': 'stats',
  '/api/stats/daily': 'stats_daily',
  '/api/stats/tools': 'stats_tools',
  '/api/stats/models': 'stats_models',
  '/api/budgets/status': 'budgets_status',
};

/** The real server's answer to a path it does not know (recorded as `stats_unknown`). */
export const NOT_FOUND_FIXTURE = 'stats_unknown';

export interface RecordedResponse {
  status: number;
  contentType: string;
  body: Buffer<ArrayBuffer>;
}

/** One recording: `NAME.headers` (status line, then headers) and `NAME.body`. */
export function recordedResponse(name: string, dir = FIXTURE_DIR): RecordedResponse {
  const [statusLine = '', ...headers] = readFileSync(join(dir, `${name}.headers`), 'utf8').split(/\r?\n/);
  const status = Number(/^HTTP\/[\d.]+ (\d{3})/.exec(statusLine)?.[1]);
  if (!Number.isInteger(status)) throw new Error(`${name}.headers: no status line`);
  const contentType =
    headers.map((h) => /^content-type:\s*(.*)$/i.exec(h)?.[1]).find(Boolean) ?? 'application/octet-stream';
  return { status, contentType, body: readFileSync(join(dir, `${name}.body`)) };
}

/** A client that answers each path with its recording (the recorded 404 for other paths). */
export function fixtureClient(
  routes: Record<string, string> = REPORT_FIXTURES,
  dir = FIXTURE_DIR,
): AnalyticsClient {
  return new AnalyticsClient({
    baseUrl: 'http://fixtures.invalid',
    fetch: async (input) => {
      const r = recordedResponse(routes[new URL(String(input)).pathname] ?? NOT_FOUND_FIXTURE, dir);
      return new Response(r.body, { status: r.status, headers: { 'content-type': r.contentType } });
    },
  });
}
