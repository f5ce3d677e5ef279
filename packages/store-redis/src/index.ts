/**
 * `@agentgov/store-redis`: the Redis implementations of `@agentgov/core` ports, on ioredis —
 * `RateLimiter` (rate-limiter-flexible, with an in-process insurance limiter for Redis outages),
 * `SessionStore`, `InstanceRegistry` and `ActivityTracker` (coalesced writes), for several server
 * processes sharing one Redis.
 */
export * from './activity-tracker';
export * from './instance-registry';
export * from './rate-limiter';
export type {
  OpenRedisOptions,
  RedisConnection,
  RedisErrorHandler,
  RedisLike,
  RedisMultiLike,
  RedisRateLimiterClient,
  RedisTlsOptions,
} from './redis';
export { openRedis } from './redis';
export * from './session-store';
export * from './stores';
