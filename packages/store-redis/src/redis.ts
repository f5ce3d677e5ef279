/**
 * The part of an ioredis client this package uses, as structural types (CONVENTIONS #2): any
 * ioredis `Redis` instance fits, and so does a test double with the same methods. Every class here
 * takes such a client or a `redis://` URL; given a URL it opens (and on `close()` quits) its own
 * client.
 */
import type { ConnectionOptions } from 'node:tls';
import { type ClientTlsOptions, verifiedClientTls } from '@agentgov/core';
import { Redis } from 'ioredis';

/** The commands queued in one `multi()` (MULTI/EXEC: one round trip, applied atomically). */
export interface RedisMultiLike {
  zadd(key: string, ...scoreMembers: (string | number)[]): RedisMultiLike;
  pexpire(key: string, milliseconds: number): RedisMultiLike;
  zremrangebyscore(key: string, min: number | string, max: number | string): RedisMultiLike;
  zcount(key: string, min: number | string, max: number | string): RedisMultiLike;
  /** `[error, result]` per queued command; `null` when the transaction was aborted. */
  exec(): Promise<[error: Error | null, result: unknown][] | null>;
}

/** The part of an ioredis client the Redis implementations use: pass `new Redis(url)`. */
export interface RedisLike {
  get(key: string): Promise<string | null>;
  set(key: string, value: string, px: 'PX', milliseconds: number, nx: 'NX'): Promise<'OK' | null>;
  set(key: string, value: string, px: 'PX', milliseconds: number, xx: 'XX'): Promise<'OK' | null>;
  del(key: string): Promise<number>;
  sadd(key: string, member: string): Promise<number>;
  srem(key: string, ...members: string[]): Promise<number>;
  smembers(key: string): Promise<string[]>;
  zadd(key: string, score: number, member: string): Promise<unknown>;
  zcount(key: string, min: number | string, max: number | string): Promise<number>;
  zremrangebyscore(key: string, min: number | string, max: number | string): Promise<unknown>;
  zrem(key: string, member: string): Promise<unknown>;
  pexpire(key: string, milliseconds: number): Promise<unknown>;
  pexpire(key: string, milliseconds: number, nx: 'NX'): Promise<unknown>;
  pexpire(key: string, milliseconds: number, gt: 'GT'): Promise<unknown>;
  scan(
    cursor: string,
    match: 'MATCH',
    pattern: string,
    count: 'COUNT',
    n: number,
  ): Promise<[string, string[]]>;
  multi(): RedisMultiLike;
  quit(): Promise<unknown>;
}

/**
 * What rate-limiter-flexible needs on top (its `RateLimiterRedis` defines a Lua command on the
 * client and reads the connection `status` to fall back to the insurance limiter without waiting).
 */
export interface RedisRateLimiterClient {
  /** ioredis connection state; `'ready'` when commands can be sent. */
  readonly status: string;
  defineCommand(name: string, definition: { lua: string; numberOfKeys?: number }): void;
}

/** An ioredis client (or anything shaped like one) or a `redis://` / `rediss://` URL. */
export type RedisConnection<C = RedisLike> = C | string;

/**
 * TLS to Redis (a `rediss://` URL) with a CA of your own and a client certificate (core's
 * `ClientTlsOptions`). The server's certificate is always verified, and so is its name: the URL's
 * host, or `servername` when the certificate names the server otherwise.
 */
export type RedisTlsOptions = ClientTlsOptions;

/** ioredis' `tls` option for `tls` (verification on); refuses a `redis://` URL (it would be sent in clear). */
function redisTls(url: string, tls: RedisTlsOptions): ConnectionOptions {
  if (!/^rediss:\/\//i.test(url))
    throw new Error('TLS options for Redis need a rediss:// URL (redis:// is not encrypted)');
  return verifiedClientTls('Redis', tls);
}

/** What `openRedis` does with the client's `error` events (ioredis emits one per failed reconnection). */
export type RedisErrorHandler = (error: Error) => void;

/**
 * The default `onError`: one `process.emitWarning` when the connection is lost (or cannot be made),
 * none again until it has been ready once more. Without a listener ioredis prints an "Unhandled
 * error event" stack for every reconnection attempt; the commands themselves fail as they would.
 */
function warnOncePerOutage(client: Redis): RedisErrorHandler {
  let warned = false;
  client.on('ready', () => {
    warned = false;
  });
  return (error) => {
    if (warned) return;
    warned = true;
    const code = (error as NodeJS.ErrnoException).code;
    process.emitWarning(`Redis unreachable: ${code ?? error.message}`, {
      code: 'AGENTGOV_REDIS_UNREACHABLE',
    });
  };
}

/** Options of a client opened for a URL. */
export interface OpenRedisOptions {
  tls?: RedisTlsOptions | undefined;
  /**
   * Called with each of the client's `error` events. Default: one `process.emitWarning`
   * (`AGENTGOV_REDIS_UNREACHABLE`) per outage. The handler is attached before the client connects,
   * so no error event is ever unhandled.
   */
  onError?: RedisErrorHandler | undefined;
}

/**
 * Opens an ioredis client for a URL (`rediss://` for TLS; `tls` for a CA of your own and a client
 * certificate). Commands issued while the connection is down fail after two reconnection attempts
 * instead of ioredis' default twenty, so a request does not hang for long on a missing Redis.
 * Its `error` events go to `onError`. Callers that want other settings pass their own client.
 */
export function openRedis(url: string, options: OpenRedisOptions = {}): Redis {
  const client = new Redis(url, {
    maxRetriesPerRequest: 2,
    ...(options.tls ? { tls: redisTls(url, options.tls) } : {}),
  });
  client.on('error', options.onError ?? warnOncePerOutage(client));
  return client;
}

/** The client for `connection`, and whether this package opened it (and so must quit it). */
export function resolveConnection<C>(
  connection: RedisConnection<C>,
  options: OpenRedisOptions = {},
): { client: C; owned: boolean } {
  if (typeof connection === 'string')
    return { client: openRedis(connection, options) as unknown as C, owned: true };
  return { client: connection, owned: false };
}

/** Throws the first error of a `multi().exec()` reply; returns the results in order. */
export function execResults(reply: [error: Error | null, result: unknown][] | null): unknown[] {
  if (reply === null) throw new Error('Redis transaction aborted');
  return reply.map(([error, result]) => {
    if (error) throw error;
    return result;
  });
}
