/**
 * The rate limiter when Redis goes away: the in-process insurance limiter answers (no throw),
 * Redis is used again — with the shared count it kept — once it is back. Redis is cut by closing a
 * TCP proxy that stands between the client and the real Redis (TEST_REDIS_URL).
 */
import { GovernanceError } from '@agentgov/core';
import { describeRateLimiterConformance, describeWithService } from '@agentgov/core/testing';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RedisRateLimiter } from '../src/index';
import { closedPort, deleteKeys, probeRedis, readyClient, TcpProxy, uniquePrefix, waitFor } from './helpers';

const LIMIT = { points: 5, durationSeconds: 60 };

/** A client that can never connect (nothing listens on its port); it keeps retrying quietly. */
async function unreachableClient(): Promise<Redis> {
  const c = new Redis({
    host: '127.0.0.1',
    port: await closedPort(),
    maxRetriesPerRequest: 0,
    retryStrategy: () => 200,
  });
  c.on('error', () => {});
  return c;
}

describe('RedisRateLimiter without a reachable Redis', () => {
  const clients: Redis[] = [];
  afterAll(() => {
    for (const c of clients) c.disconnect();
  });
  async function limiter(options?: ConstructorParameters<typeof RedisRateLimiter>[1]) {
    const c = await unreachableClient();
    clients.push(c);
    return new RedisRateLimiter(c, options);
  }

  // With Redis never reachable, every decision comes from the insurance limiter: it is a complete
  // in-process rate limiter on its own.
  describeRateLimiterConformance('redis unreachable → insurance limiter', async () => ({
    store: await limiter(),
  }));

  it('insurance { processes: 4 }: each process allows ceil(points / 4) per window while Redis is away', async () => {
    const l = await limiter({ insurance: { processes: 4 } });
    const ds = [];
    for (let i = 0; i < 4; i++) ds.push(await l.consume('k', { points: 10, durationSeconds: 60 }));
    expect(ds.map((d) => d.allowed)).toEqual([true, true, true, false]);
    expect(ds[0]).toMatchObject({ limit: 10, remaining: 2 });
  });

  it('insurance: false — consume throws service_unavailable, as before the insurance limiter', async () => {
    const l = await limiter({ insurance: false });
    const error = await l.consume('k', LIMIT).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GovernanceError);
    expect((error as GovernanceError).code).toBe('service_unavailable');
  });

  it('insurance.processes must be a positive integer', async () => {
    await expect(limiter({ insurance: { processes: 0 } })).rejects.toThrow(RangeError);
  });
});

await describeWithService(
  'RedisRateLimiter while Redis goes away and comes back (TEST_REDIS_URL)',
  'TEST_REDIS_URL',
  (url) => {
    const prefix = uniquePrefix();
    const target = new URL(url);
    let direct: Redis;
    let proxy: TcpProxy;
    let client: Redis;
    beforeAll(async () => {
      direct = await readyClient(url);
    });
    afterAll(async () => {
      await deleteKeys(direct, prefix);
      await direct.quit();
    });
    afterEach(async () => {
      client?.disconnect();
      await proxy?.stop();
    });

    async function proxiedClient(): Promise<Redis> {
      proxy = new TcpProxy(target.hostname, Number(target.port || 6379));
      await proxy.start();
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(proxy.port);
      client = new Redis(u.toString(), { maxRetriesPerRequest: 1, retryStrategy: () => 50 });
      client.on('error', () => {});
      await client.ping();
      return client;
    }

    it('keeps deciding from memory while Redis is away, then uses the shared Redis count again', async () => {
      const keyPrefix = `${prefix}:rl1`;
      const redisKey = `${keyPrefix}:5:60:acme`;
      const limiter = new RedisRateLimiter(await proxiedClient(), { keyPrefix });

      // Redis up: two points consumed in Redis.
      expect((await limiter.consume('acme', LIMIT)).remaining).toBe(4);
      expect((await limiter.consume('acme', LIMIT)).remaining).toBe(3);
      expect(await direct.get(redisKey)).toBe('2');

      // Redis gone: decisions keep coming, from the in-process limiter (its own fresh window).
      await proxy.stop();
      await waitFor(() => client.status !== 'ready');
      const during = [];
      for (let i = 0; i < 7; i++) during.push(await limiter.consume('acme', LIMIT));
      expect(during.map((d) => d.allowed)).toEqual([true, true, true, true, true, false, false]);
      expect(during.map((d) => d.remaining)).toEqual([4, 3, 2, 1, 0, 0, 0]);
      for (const d of during.filter((x) => !x.allowed)) expect(d.resetSeconds).toBeGreaterThanOrEqual(1);
      expect(await direct.get(redisKey)).toBe('2'); // nothing reached Redis

      // Redis back: the exact shared count resumes where Redis left it.
      await proxy.start();
      await waitFor(() => client.status === 'ready');
      expect(await limiter.consume('acme', LIMIT)).toMatchObject({ allowed: true, limit: 5, remaining: 2 });
      expect(await direct.get(redisKey)).toBe('3');
      // …shared with a process that never lost Redis.
      const other = new RedisRateLimiter(direct, { keyPrefix });
      expect((await other.consume('acme', LIMIT)).remaining).toBe(1);
      expect((await limiter.consume('acme', LIMIT)).remaining).toBe(0);
      expect((await limiter.consume('acme', LIMIT)).allowed).toBe(false);
    });

    it('decisions in flight when the connection drops are answered, not thrown', async () => {
      const keyPrefix = `${prefix}:rl2`;
      const limiter = new RedisRateLimiter(await proxiedClient(), { keyPrefix });
      await limiter.consume('warm', LIMIT);
      const racing = Array.from({ length: 20 }, (_, i) => limiter.consume(`k${i % 4}`, LIMIT));
      await proxy.stop();
      const ds = await Promise.all(racing);
      expect(ds).toHaveLength(20);
      for (const d of ds) expect(d).toMatchObject({ allowed: true, limit: 5 });
    });
  },
  probeRedis,
);
