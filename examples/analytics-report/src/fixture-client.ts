/**
 * A client answered by the recorded responses of the real server (kept in the repository at
 * `packages/analytics-client/test/fixtures/session-analytics`; `SESSION_ANALYTICS_FIXTURES` overrides)
 * instead of a live one: used by the tests and to render the README screenshot reproducibly.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AnalyticsClient } from '@agentgov/analytics-client';

export const FIXTURE_DIR =
  process.env.SESSION_ANALYTICS_FIXTURES ??
  join(import.meta.dirname, '../../../packages/analytics-client/test/fixtures/session-analytics');

/** The recordings the report reads, by path. */
const REPORT_FIXTURES: Record<string, string> = {
  '/api/stats': 'stats',
  '/api/stats/daily': 'stats_daily',
  '/api/stats/tools': 'stats_tools',
  '/api/stats/models': 'stats_models',
  '/api/budgets/status': 'budgets_status',
};

/** A client that answers each path with the recorded body of a fixture (404 for other paths). */
export function fixtureClient(
  routes: Record<string, string> = REPORT_FIXTURES,
  dir = FIXTURE_DIR,
): AnalyticsClient {
  return new AnalyticsClient({
    baseUrl: 'http://fixtures.invalid',
    fetch: async (input) => {
      const name = routes[new URL(String(input)).pathname];
      if (!name) return new Response('404 page not found', { status: 404 });
      return new Response(readFileSync(join(dir, `${name}.body`)), {
        status: 200,
        headers: { 'content-type': 'application/json' },
      });
    },
  });
}
