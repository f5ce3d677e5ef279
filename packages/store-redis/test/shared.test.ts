/**
 * Several processes sharing one Redis (each "process" has its own client): shared rate limits,
 * sessions, live instances and activity — ported from the gateway's Redis tests — plus the
 * activity tracker's write coalescing and `createRedisStores`.
 */
import { describeWithService, makeSession } from '@agentgov/core/testing';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createRedisRateLimiter,
  createRedisStores,
  RedisActivityTracker,
  RedisInstanceRegistry,
  RedisSessionStore,
} from '../src/index';
import { deleteKeys, probeRedis, readyClient, uniquePrefix, waitFor } from './helpers';

/** Counts the calls made through a client, per method name. */
function counting(redis: Redis): { client: Redis; calls: Map<string, number> } {
  const calls = new Map<string, number>();
  const client = new Proxy(redis, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function' || typeof prop !== 'string') return value;
      return (...args: unknown[]) => {
        calls.set(prop, (calls.get(prop) ?? 0) + 1);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { client, calls };
}

await describeWithService(
  'Redis state shared by two processes (TEST_REDIS_URL)',
  'TEST_REDIS_URL',
  (url) => {
    const prefix = uniquePrefix();
    const clients: Redis[] = [];
    beforeAll(async () => {
      for (let i = 0; i < 2; i++) clients.push(await readyClient(url));
    });
    afterAll(async () => {
      await deleteKeys(clients[0]!, prefix);
      await Promise.all(clients.map((c) => c.quit()));
    });

    it('two processes together allow exactly 60 policy mutations a minute per tenant', async () => {
      const limiters = clients.map((c) => createRedisRateLimiter(c, { keyPrefix: `${prefix}:rl` }));
      const limit = { points: 60, durationSeconds: 60 };
      const decisions = await Promise.all(
        Array.from({ length: 70 }, (_, i) => limiters[i % 2]!.consume('policy_mutations:shared', limit)),
      );
      expect(decisions.filter((d) => d.allowed)).toHaveLength(60);
      expect(decisions.filter((d) => !d.allowed)).toHaveLength(10);
      // Another tenant has its own window.
      expect((await limiters[1]!.consume('policy_mutations:other', limit)).remaining).toBe(59);
    });

    it('a session created by one process is read by the other; live instances count both', async () => {
      const sessions = clients.map((c) => new RedisSessionStore(c, { keyPrefix: `${prefix}:sess` }));
      const session = makeSession({ tenantId: 'shared', userId: 'ea2', email: 'e@x' });
      await sessions[0]!.create(session);
      expect(await sessions[1]!.get(session.idHash)).toEqual(session);
      expect(await sessions[1]!.delete(session.idHash)).toBe(true);
      expect(await sessions[0]!.get(session.idHash)).toBeUndefined();

      const registries = clients.map((c) => new RedisInstanceRegistry(c, { keyPrefix: prefix }));
      const now = new Date();
      for (const [i, registry] of registries.entries())
        await registry.heartbeat(`instance-${i}`, now, 30_000);
      expect(await registries[1]!.countLive(now)).toBe(2);
      await registries[0]!.remove('instance-0'); // what closing process 0 does
      expect(await registries[1]!.countLive(now)).toBe(1);
    });

    it('activity touched in two processes is counted by either', async () => {
      const trackers = clients.map((c) => new RedisActivityTracker(c, { keyPrefix: `${prefix}:two` }));
      const now = new Date();
      await trackers[0]!.touch('shared', 'alice', now);
      await trackers[1]!.touch('shared', 'bob', now);
      await trackers[1]!.touch('shared', 'alice', now);
      expect(await trackers[0]!.countActive('shared', new Date(now.getTime() - 60_000))).toBe(2);
      expect(await trackers[1]!.countActive('shared', new Date(now.getTime() - 60_000))).toBe(2);
      await Promise.all(trackers.map((t) => t.close()));
    });

    describe('activity tracker: write coalescing', () => {
      // coalesceMs is 1 s by default; 5 s here so that a slow machine cannot fire the background
      // write in the middle of the test.
      it('one MULTI (ZADD + PEXPIRE) per (tenant, user) per coalesceMs; the count and score stay exact', async () => {
        const { client, calls } = counting(clients[0]!);
        const keyPrefix = `${prefix}:co1`;
        const tracker = new RedisActivityTracker(client, { keyPrefix, coalesceMs: 5_000 });
        const key = `${keyPrefix}:active:acme`;
        const t0 = Date.now();
        for (let i = 0; i < 50; i++) await tracker.touch('acme', 'alice', new Date(t0 + i * 10));
        await tracker.touch('acme', 'bob', new Date(t0 + 5));
        expect(calls.get('multi')).toBe(2); // alice's first touch, bob's first touch
        expect([...calls.keys()]).toEqual(['multi']); // no other command went out
        expect(Number(await clients[1]!.zscore(key, 'alice'))).toBe(t0);
        // countActive writes alice's buffered latest touch in the same MULTI as the count.
        expect(await tracker.countActive('acme', new Date(t0 + 490))).toBe(1);
        expect(calls.get('multi')).toBe(3);
        expect(Number(await clients[1]!.zscore(key, 'alice'))).toBe(t0 + 490);
        expect(await tracker.countActive('acme', new Date(t0))).toBe(2);
        // A touch coalesceMs after the last write of the pair is written at once.
        await tracker.touch('acme', 'alice', new Date(t0 + 5_490));
        expect(calls.get('multi')).toBe(5);
        expect(Number(await clients[1]!.zscore(key, 'alice'))).toBe(t0 + 5_490);
        expect(await clients[1]!.pttl(key)).toBeGreaterThan(2 * 86_400_000 - 60_000);
        await tracker.close();
      });

      it('buffered touches reach Redis on their own within coalesceMs (other processes see them)', async () => {
        const keyPrefix = `${prefix}:co2`;
        const writer = new RedisActivityTracker(clients[0]!, { keyPrefix, coalesceMs: 1_000 });
        const reader = new RedisActivityTracker(clients[1]!, { keyPrefix });
        const t0 = Date.now();
        await writer.touch('acme', 'alice', new Date(t0 - 10_000));
        const buffered = Date.now();
        await writer.touch('acme', 'alice', new Date(t0 - 9_900)); // buffered
        await writer.touch('acme', 'carol', new Date(t0 - 10_000));
        await writer.touch('acme', 'carol', new Date(t0 - 9_950)); // buffered
        const started = Date.now();
        expect(await reader.countActive('acme', new Date(t0 - 9_960))).toBe(0);
        let seen = 0;
        while (seen < 2 && Date.now() - started < 10_000) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          seen = await reader.countActive('acme', new Date(t0 - 9_960));
        }
        expect(seen).toBe(2);
        expect(Date.now() - buffered).toBeGreaterThanOrEqual(950); // not before coalesceMs
        expect(await reader.countActive('acme', new Date(t0 - 9_920))).toBe(1);
        await Promise.all([writer.close(), reader.close()]);
      });

      it('close() writes what is still buffered', async () => {
        const keyPrefix = `${prefix}:co3`;
        const tracker = new RedisActivityTracker(clients[0]!, { keyPrefix, coalesceMs: 60_000 });
        const t0 = Date.now();
        await tracker.touch('acme', 'alice', new Date(t0));
        await tracker.touch('acme', 'alice', new Date(t0 + 1_000));
        await tracker.close();
        expect(Number(await clients[1]!.zscore(`${keyPrefix}:active:acme`, 'alice'))).toBe(t0 + 1_000);
      });
    });

    it('createRedisStores from a URL: every port on one client under one prefix; close() quits it', async () => {
      const keyPrefix = `${prefix}:bundle`;
      const stores = createRedisStores(url, { keyPrefix });
      await stores.redis.ping();
      const session = makeSession();
      await stores.sessions.create(session);
      expect(await stores.sessions.get(session.idHash)).toEqual(session);
      const now = new Date();
      await stores.instances.heartbeat('gw-1', now, 30_000);
      expect(await stores.instances.countLive(now)).toBe(1);
      await stores.activity.touch('acme', 'alice', now);
      expect(await stores.activity.countActive('acme', now)).toBe(1);
      expect(await stores.rateLimiter.consume('k', { points: 3, durationSeconds: 60 })).toMatchObject({
        allowed: true,
        limit: 3,
        remaining: 2,
      });
      const keys = (await clients[1]!.keys(`${keyPrefix}:*`)).sort();
      expect(keys).toEqual(
        [
          `${keyPrefix}:active:acme`,
          `${keyPrefix}:instances`,
          `${keyPrefix}:rl:3:60:k`,
          `${keyPrefix}:session:${session.idHash}`,
          `${keyPrefix}:session-user:${session.tenantId}:${session.userId}`,
        ].sort(),
      );
      await stores.close();
      await waitFor(() => stores.redis.status === 'end');
    });

    it('createRedisStores on a client: close() leaves the client open', async () => {
      const stores = createRedisStores(clients[0]!, { keyPrefix: `${prefix}:bundle2` });
      await stores.close();
      expect(clients[0]!.status).toBe('ready');
    });
  },
  probeRedis,
);
