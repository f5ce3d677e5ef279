/** What `startA2AServer` is given. */
import type { Clock, Logger, RateLimiter } from '@agentgov/core';
import type { KeyResolver, ReplayGuard, SigningKey } from '../keys';
import type { InterchangeNode } from '../node';
import type { TaskRetention } from './task-store';

export interface A2AServerOptions {
  node: InterchangeNode;
  /** The node's signing key (signs the AgentCard). */
  signingKey: SigningKey;
  /** Public keys of the agents that may call (caller tokens and envelopes). */
  keys: KeyResolver;
  host?: string;
  /** 0 (default): any free port. */
  port?: number;
  /** The URL published in the card (default: http://host:port/). */
  publicUrl?: string;
  /** How long tasks are kept and how many (`RetainingTaskStore`; defaults 1 h after they end, 24 h, 10,000). */
  tasks?: TaskRetention;
  /**
   * `bodyBytes` (64 KiB) and `metadataBytes` (20 KiB): above them a request is refused (-32043).
   * A body above `bodyBytes` is read on and discarded up to `drainBytes` (8 MiB) so the connection
   * stays usable; a larger one is answered at once with `Connection: close`, the server going on
   * discarding what arrives for at most `lingerMs` (5 s) before it closes.
   */
  limits?: {
    bodyBytes?: number;
    metadataBytes?: number;
    drainBytes?: number;
    lingerMs?: number;
    /**
     * Deliveries whose envelope does not verify (bad signature, unknown signer, replay …) recorded
     * on the audit log per client address and minute (default 30); past it they are refused with
     * `rate_limit_exceeded`, unrecorded, and the log says so once per window.
     */
    unverifiedPerMinute?: number;
  };
  /**
   * Counts `limits.unverifiedPerMinute` (default: in this process). A shared one (Redis,
   * `@agentgov/store-redis`) makes the limit hold across the instances behind a load balancer.
   */
  rateLimiter?: RateLimiter;
  /**
   * SubscribeToTask streams: how often the task and its exchange are looked at (default 250 ms)
   * and how long one subscription lasts at most (default 10 minutes).
   */
  subscription?: { pollMs?: number; maxMs?: number };
  name?: string;
  description?: string;
  logger?: Logger;
  clock?: Clock;
  replay?: ReplayGuard;
}
