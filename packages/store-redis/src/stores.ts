import type { Redis } from 'ioredis';
import { RedisActivityTracker, type RedisActivityTrackerOptions } from './activity-tracker';
import { RedisInstanceRegistry } from './instance-registry';
import { RedisRateLimiter, type RedisRateLimiterOptions } from './rate-limiter';
import {
  type RedisConnection,
  type RedisErrorHandler,
  type RedisLike,
  type RedisRateLimiterClient,
  type RedisTlsOptions,
  resolveConnection,
} from './redis';
import { RedisSessionStore, type RedisSessionStoreOptions } from './session-store';

/** An ioredis client: what every implementation of this package needs from it. */
export type RedisClientLike = RedisLike & RedisRateLimiterClient;

export interface RedisStoresOptions {
  /**
   * Prefix of every key (default `agentgov`): sessions `<p>:session:*` (and their per-user index `<p>:session-user:*`), instances `<p>:instances`,
   * activity `<p>:active:*`, rate limits `<p>:rl:*`. Deployments sharing one Redis use distinct
   * prefixes.
   */
  keyPrefix?: string;
  /** With a `rediss://` URL: CA, client certificate and key, the name to verify (`RedisTlsOptions`). */
  tls?: RedisTlsOptions;
  /** A client opened for a URL: its `error` events (default: one process warning per outage; see `openRedis`). */
  onError?: RedisErrorHandler;
  sessions?: Omit<RedisSessionStoreOptions, 'keyPrefix'>;
  activity?: Omit<RedisActivityTrackerOptions, 'keyPrefix'>;
  rateLimiter?: Omit<RedisRateLimiterOptions, 'keyPrefix'>;
}

/** Every Redis-backed port on one client. */
export interface RedisStores<C extends RedisClientLike = Redis> {
  /** The client: the one passed in, or the ioredis client opened for a URL. */
  redis: C;
  sessions: RedisSessionStore;
  instances: RedisInstanceRegistry;
  activity: RedisActivityTracker;
  rateLimiter: RedisRateLimiter;
  /** Writes buffered activity, then quits the client if it was opened from a URL here. */
  close(): Promise<void>;
}

/**
 * The session store, instance registry, activity tracker and rate limiter on one Redis connection:
 * an ioredis client (left open by `close()`) or a URL (a client opened here, quit by `close()`).
 */
export function createRedisStores(url: string, options?: RedisStoresOptions): RedisStores<Redis>;
export function createRedisStores<C extends RedisClientLike>(
  client: C,
  options?: RedisStoresOptions,
): RedisStores<C>;
export function createRedisStores<C extends RedisClientLike>(
  connection: RedisConnection<C>,
  options: RedisStoresOptions = {},
): RedisStores<C> {
  const { client, owned } = resolveConnection(connection, { tls: options.tls, onError: options.onError });
  const prefix = options.keyPrefix ?? 'agentgov';
  const activity = new RedisActivityTracker(client, { ...options.activity, keyPrefix: prefix });
  return {
    redis: client,
    sessions: new RedisSessionStore(client, { ...options.sessions, keyPrefix: `${prefix}:session` }),
    instances: new RedisInstanceRegistry(client, { keyPrefix: prefix }),
    activity,
    rateLimiter: new RedisRateLimiter(client, { ...options.rateLimiter, keyPrefix: `${prefix}:rl` }),
    async close() {
      try {
        await activity.close();
      } finally {
        if (owned) await client.quit();
      }
    },
  };
}
