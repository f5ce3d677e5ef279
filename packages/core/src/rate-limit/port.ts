/**
 * RateLimiter: fixed-window limits per key (the gateway's per-route, per-tenant categories).
 * Implementations: memory and Redis (rate-limiter-flexible), in `@agentgov/gateway` /
 * `@agentgov/store-redis`.
 */

export interface RateLimit {
  points: number;
  durationSeconds: number;
}

export interface RateLimitDecision {
  allowed: boolean;
  /** The limit's `points`. */
  limit: number;
  /** Points left in the window after this call; 0 (never negative) when not allowed. */
  remaining: number;
  /** Seconds until the window resets (≥ 1 when not allowed: the Retry-After value). */
  resetSeconds: number;
}

export interface RateLimiter {
  /**
   * Consumes one point of `key` under `limit`. A key is counted separately per distinct limit
   * (`points` and `durationSeconds`); concurrent calls never allow more than `points` per window.
   */
  consume(key: string, limit: RateLimit): Promise<RateLimitDecision>;
}
