/**
 * Rate limits of the spec ("Limits"): one category per route, counted per tenant (status: per
 * client address). Plugins may add categories (`GatewayPlugin.rateLimits`). The RateLimiter port
 * and its in-process implementation (rate-limiter-flexible, fixed windows) come from core; the
 * Redis one, shared by every process, is `@agentgov/store-redis`.
 */
import type { RateLimit, RateLimitDecision } from '@agentgov/core';

export const RATE_LIMIT_CATEGORIES = {
  policy_mutations: { points: 60, durationSeconds: 60 },
  audit_queries: { points: 120, durationSeconds: 60 },
  audit_export: { points: 10, durationSeconds: 60 },
  admin: { points: 60, durationSeconds: 60 },
  system_status: { points: 300, durationSeconds: 60 },
  /**
   * Not in the spec: requests whose credentials fail authentication (401), per client address.
   * They never count against a tenant's categories; past this limit they get 429 instead of 401.
   * A request that presents no credentials at all is not counted: it is always the spec's 401.
   */
  auth_failures: { points: 30, durationSeconds: 60 },
  /** Not in the spec: starting and completing logins (GET /auth/login, /auth/callback), per client address. */
  auth_login: { points: 30, durationSeconds: 60 },
} as const satisfies Record<string, RateLimit>;

/** The category of requests that fail authentication (see `RATE_LIMIT_CATEGORIES`). */
export const AUTH_FAILURES = 'auth_failures';

/** The spec's categories; plugins may add their own. */
export type RateLimitCategory = keyof typeof RATE_LIMIT_CATEGORIES;
/** Limits by category name. */
export type RateLimitTable = Record<string, RateLimit>;

/** An RFC 8941 sf-string: `"name"` with `\\` and `"` escaped. */
const sfString = (s: string): string => `"${s.replace(/[\\"]/g, (c) => `\\${c}`)}"`;

/**
 * The rate-limit headers of a counted request, by lower-case name:
 * - `RateLimit-Policy: "<category>";q=<points>;w=<window s>` and `RateLimit: "<category>";r=<remaining>;t=<reset s>`
 *   — the current form of draft-ietf-httpapi-ratelimit-headers (structured fields, the policy
 *   named by the category);
 * - `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` — the earlier drafts' fields,
 *   kept for the clients that read them;
 * - `Retry-After` (seconds) when refused, as the spec says.
 */
export function setRateLimitHeaders(
  out: Map<string, string | string[]>,
  category: string,
  limit: RateLimit,
  d: RateLimitDecision,
): void {
  const remaining = Math.max(0, d.remaining);
  const reset = Math.max(0, d.resetSeconds);
  const name = sfString(category);
  out.set('ratelimit-policy', `${name};q=${limit.points};w=${limit.durationSeconds}`);
  out.set('ratelimit', `${name};r=${remaining};t=${reset}`);
  out.set('ratelimit-limit', String(d.limit));
  out.set('ratelimit-remaining', String(remaining));
  out.set('ratelimit-reset', String(reset));
  if (!d.allowed) out.set('retry-after', String(Math.max(1, d.resetSeconds)));
}

/** The same headers (`setRateLimitHeaders`) as a Fetch `Headers`. */
export function rateLimitHeaders(category: string, limit: RateLimit, d: RateLimitDecision): Headers {
  const out = new Map<string, string | string[]>();
  setRateLimitHeaders(out, category, limit, d);
  const h = new Headers();
  for (const [k, v] of out) h.set(k, String(v));
  return h;
}

export { createMemoryRateLimiter, MemoryRateLimiter } from '@agentgov/core';
