import { randomUUID } from 'node:crypto';
import { InMemoryConnectorStore, InMemoryTenantStore } from '@agentgov/core';
import { servicesRequired } from '@agentgov/core/testing';
import type { Governance } from '@agentgov/gateway';
import { signIn, startTestIssuer, type TestIssuer } from '@agentgov/gateway/testing';
import { createRedisRateLimiter, RedisInstanceRegistry, RedisSessionStore } from '@agentgov/store-redis';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestService } from '../src/index';

const url = process.env.TEST_REDIS_URL;
if (!url && servicesRequired()) throw new Error('TEST_REDIS_URL is required (AGENTGOV_REQUIRE_SERVICES=1)');
const prefix = `agentgov-test:${randomUUID()}`;

const clients: Redis[] = [];
function client(): Redis {
  const c = new Redis(url ?? '', { lazyConnect: false, maxRetriesPerRequest: 1 });
  clients.push(c);
  return c;
}
afterAll(async () => {
  if (clients[0]) {
    const keys = await clients[0].keys(`${prefix}*`);
    if (keys.length) await clients[0].del(...keys);
  }
  await Promise.all(clients.map((c) => c.quit()));
});

describe.skipIf(!url)('Redis-shared state across two gateway processes (TEST_REDIS_URL)', () => {
  let idp: TestIssuer;
  const govs: Governance[] = [];
  beforeAll(async () => {
    idp = await startTestIssuer();
    const tenants = new InMemoryTenantStore();
    const connectors = new InMemoryConnectorStore();
    for (let i = 0; i < 2; i++) {
      const redis = client();
      const g = await createTestService(idp, {
        kernel: {
          stores: {
            tenants,
            connectors,
            sessions: new RedisSessionStore(redis, { keyPrefix: `${prefix}:sess` }),
            instances: new RedisInstanceRegistry(redis, { keyPrefix: prefix }),
          },
          rateLimiter: createRedisRateLimiter(redis, { keyPrefix: `${prefix}:rl` }),
          instanceId: `instance-${i}`,
        },
      });
      await g.start();
      govs.push(g);
    }
  });
  afterAll(async () => {
    for (const g of govs) await g.close();
    await idp?.close();
  });

  it('two processes together allow exactly 60 policy mutations a minute per tenant', async () => {
    const token = await idp.signIdToken({ sub: 'ea', roles: ['enterprise_admin'], tenant_id: 'shared' });
    const statuses = await Promise.all(
      Array.from({ length: 70 }, (_, i) =>
        govs[i % 2]!.handle(
          new Request('http://gw/api/v1/policies', {
            method: 'POST',
            headers: { authorization: `Bearer ${token}` },
            body: '{}',
          }),
        ).then((r) => r.status),
      ),
    );
    expect(statuses.filter((s) => s === 400)).toHaveLength(60);
    expect(statuses.filter((s) => s === 429)).toHaveLength(10);
  });

  it('a session created by one process is read by the other; gatewayInstances counts both', async () => {
    const { cookie } = await signIn(
      idp,
      { sub: 'ea2', roles: ['enterprise_admin'], tenant_id: 'shared', email: 'e@x' },
      (r) => govs[0]!.handle(r),
    );
    const info = await govs[1]!.handle(
      new Request('http://gw/api/v1/auth/userinfo', { headers: { cookie } }),
    );
    expect(info.status).toBe(200);
    const t = await govs[1]!.handle(
      new Request('http://gw/api/v1/tenants/shared/status', { headers: { cookie } }),
    );
    expect((await t.json()).gatewayInstances).toBe(2);
    await govs[0]!.close();
    const t2 = await govs[1]!.handle(
      new Request('http://gw/api/v1/tenants/shared/status', { headers: { cookie } }),
    );
    expect((await t2.json()).gatewayInstances).toBe(1);
  });
});
