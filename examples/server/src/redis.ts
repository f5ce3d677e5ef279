/**
 * Redis (`REDIS_URL`): sessions, activity and rate limits shared by every process
 * (`createRedisStores` of `@agentgov/store-redis`, loaded only when Redis is configured).
 *
 * The client's `error` events are listened to here: without a listener ioredis prints every
 * failed connection attempt with its stack ("[ioredis] Unhandled error event"). During start-up
 * a Redis that cannot be reached is reported once, in main.ts's one line; once the server runs,
 * an outage is one `warn` line of the log when it starts and one `info` line when Redis is back
 * (ioredis reconnects by itself; rate limits use the in-process insurance limiter meanwhile).
 */
import type { Logger } from '@agentgov/core';
import type { RedisStores, RedisTlsOptions } from '@agentgov/store-redis';

/** The part of an ioredis client watched here. */
interface Watched {
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'ready', listener: () => void): unknown;
}

/**
 * Listens to the client's `error` and `ready` events: nothing is printed before the first
 * connection (start-up reports it), then one line when an outage starts and one when it ends.
 */
export function watchRedis(client: Watched, logger: Logger): void {
  let connected = false;
  let down = false;
  client.on('ready', () => {
    if (down) logger.info('Redis reachable again');
    connected = true;
    down = false;
  });
  client.on('error', (error) => {
    if (!connected || down) return;
    down = true;
    const code = (error as NodeJS.ErrnoException).code;
    logger.warn('Redis unreachable; rate limits are kept in-process until it returns', {
      error: code ?? error.message,
    });
  });
}

/** Opens the Redis stores for `url` and checks that Redis answers (PING). */
export async function connectRedis(
  url: string,
  options: { tls?: RedisTlsOptions | undefined; logger: Logger },
): Promise<RedisStores> {
  const { createRedisStores } = await import('@agentgov/store-redis');
  // Outages are reported by watchRedis (in the server's log), not as process warnings.
  const shared = createRedisStores(url, { ...(options.tls ? { tls: options.tls } : {}), onError: () => {} });
  watchRedis(shared.redis, options.logger);
  try {
    await shared.redis.ping();
  } catch (error) {
    await shared.close().catch(() => {});
    throw error;
  }
  return shared;
}
