/**
 * The A2A server's flood guard: how many deliveries that do not verify (a bad signature, an
 * unknown signer, a replayed envelope …) one client address may have recorded on the audit log a
 * minute. Past it they are refused with `rate_limit_exceeded`, unrecorded, and the operator is
 * told once per window in the log. A limiter that fails records (more audit, never less).
 */
import { type Logger, MemoryRateLimiter, type RateLimitDecision, type RateLimiter } from '@agentgov/core';
import type { RecordUnverified } from '../reply';

/** Default: as the gateway's `auth_failures` (credentials that fail, per address). */
const DEFAULT_UNVERIFIED_PER_MINUTE = 30;

/** The guard for one request from `address` (the limiter shared by the server's requests). */
export function unverifiedGuard(options: {
  perMinute?: number | undefined;
  rateLimiter?: RateLimiter | undefined;
  logger: Logger;
}): (address: string) => RecordUnverified {
  const limit = { points: options.perMinute ?? DEFAULT_UNVERIFIED_PER_MINUTE, durationSeconds: 60 };
  const limiter = options.rateLimiter ?? new MemoryRateLimiter();
  // The addresses already reported in their current window (cleared when the window ends).
  const reported = new Set<string>();
  return (address) => async () => {
    let d: RateLimitDecision;
    try {
      d = await limiter.consume(`a2a-unverified:${address}`, limit);
    } catch (error) {
      options.logger.warn('a2a flood guard unavailable: recording every refusal', {
        error: (error as Error).message,
      });
      return true;
    }
    if (d.allowed) return true;
    if (!reported.has(address)) {
      reported.add(address);
      setTimeout(() => reported.delete(address), d.resetSeconds * 1000).unref();
      options.logger.warn('a2a deliveries that do not verify: over the limit, refused unrecorded', {
        address,
        perMinute: limit.points,
        retryAfterSeconds: d.resetSeconds,
      });
    }
    return false;
  };
}
