/** Shared by the Redis tests: connected clients, a probe, key cleanup, and a TCP proxy to cut. */
import { randomUUID } from 'node:crypto';
import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';
import { Redis, type RedisOptions } from 'ioredis';

/** Throws when nothing answers PING at `url` (so describeWithService can skip or fail). */
export async function probeRedis(url: string): Promise<void> {
  const c = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 2_000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  c.on('error', () => {});
  try {
    await c.connect();
    await c.ping();
  } finally {
    c.disconnect();
  }
}

/** A client whose connection is ready (the rate limiter falls back to memory until it is). */
export async function readyClient(url: string | RedisOptions): Promise<Redis> {
  const c =
    typeof url === 'string'
      ? new Redis(url, { maxRetriesPerRequest: 1 })
      : new Redis({ maxRetriesPerRequest: 1, ...url });
  c.on('error', () => {});
  await c.ping();
  return c;
}

export const uniquePrefix = (): string => `agentgov-test:${randomUUID()}`;

export async function deleteKeys(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length) await redis.del(...keys);
  } while (cursor !== '0');
}

export async function waitFor(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A port nothing listens on (bound once, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A TCP proxy in front of Redis on a fixed local port: `stop()` closes the listener and cuts every
 * connection (Redis "goes away" for the clients behind it); `start()` listens again on the same port.
 */
export class TcpProxy {
  #server: Server | undefined;
  readonly #sockets = new Set<Socket>();
  port = 0;
  constructor(
    readonly targetHost: string,
    readonly targetPort: number,
  ) {}
  async start(): Promise<void> {
    const server = createServer((downstream) => {
      const upstream = tcpConnect(this.targetPort, this.targetHost);
      for (const s of [downstream, upstream]) {
        this.#sockets.add(s);
        s.on('close', () => this.#sockets.delete(s));
        s.on('error', () => {
          downstream.destroy();
          upstream.destroy();
        });
      }
      downstream.pipe(upstream);
      upstream.pipe(downstream);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as { port: number }).port;
    this.#server = server;
  }
  async stop(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    for (const s of this.#sockets) s.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
