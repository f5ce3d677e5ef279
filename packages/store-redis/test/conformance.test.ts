/**
 * The core conformance suites against every implementation of this package on a real Redis
 * (TEST_REDIS_URL; skipped without it, failing under AGENTGOV_REQUIRE_SERVICES=1). Each store gets
 * a key prefix of its own, so parallel runs and tests never see each other's keys.
 */
import { randomUUID } from 'node:crypto';
import {
  describeActivityTrackerConformance,
  describeInstanceRegistryConformance,
  describeRateLimiterConformance,
  describeSessionStoreConformance,
  describeWithService,
} from '@agentgov/core/testing';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import {
  RedisActivityTracker,
  RedisInstanceRegistry,
  RedisRateLimiter,
  RedisSessionStore,
} from '../src/index';
import { deleteKeys, probeRedis, readyClient, uniquePrefix } from './helpers';

await describeWithService(
  'Redis implementations (TEST_REDIS_URL)',
  'TEST_REDIS_URL',
  (url) => {
    const prefix = uniquePrefix();
    const key = (kind: string) => `${prefix}:${kind}:${randomUUID()}`;
    let redis: Redis;
    beforeAll(async () => {
      redis = await readyClient(url);
    });
    afterAll(async () => {
      await deleteKeys(redis, prefix);
      await redis.quit();
    });

    describeSessionStoreConformance('redis', async () => ({
      store: new RedisSessionStore(redis, { keyPrefix: key('s') }),
    }));

    describeInstanceRegistryConformance('redis', async () => ({
      store: new RedisInstanceRegistry(redis, { keyPrefix: key('i') }),
    }));

    describeRateLimiterConformance('redis', async () => ({
      store: new RedisRateLimiter(redis, { keyPrefix: key('rl') }),
    }));
    describeRateLimiterConformance('redis, insurance off', async () => ({
      store: new RedisRateLimiter(redis, { keyPrefix: key('rl'), insurance: false }),
    }));

    describeActivityTrackerConformance('redis', async () => {
      const store = new RedisActivityTracker(redis, { keyPrefix: key('a') });
      return { store, cleanup: () => store.close() };
    });
    // The suite's touches of one user are minutes apart, so with the default 1 s nothing is
    // coalesced: these two runs cover buffering every repeated touch, and writing every touch.
    describeActivityTrackerConformance('redis, coalesceMs 1 h (every repeated touch buffered)', async () => {
      const store = new RedisActivityTracker(redis, { keyPrefix: key('a'), coalesceMs: 3_600_000 });
      return { store, cleanup: () => store.close() };
    });
    describeActivityTrackerConformance('redis, coalesceMs 0 (every touch written)', async () => {
      const store = new RedisActivityTracker(redis, { keyPrefix: key('a'), coalesceMs: 0 });
      return { store, cleanup: () => store.close() };
    });
  },
  probeRedis,
);
