/**
 * A client opened for a URL never leaves an `error` event unhandled: ioredis would print an
 * "Unhandled error event" stack for every reconnection attempt. By default one process warning
 * per outage; `onError` receives every event instead.
 */
import { createServer } from 'node:net';
import { describeWithService } from '@agentgov/core/testing';
import { afterEach, expect, it, vi } from 'vitest';
import { createRedisStores, openRedis } from '../src/index';
import { TcpProxy } from './helpers';

/** A local port nothing listens on (for now). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const UNTIL = { timeout: 15_000, interval: 20 };

await describeWithService(
  'a client opened for a URL: its error events (TEST_REDIS_URL)',
  'TEST_REDIS_URL',
  (url) => {
    const target = new URL(url);
    const cleanups: (() => Promise<unknown> | unknown)[] = [];
    afterEach(async () => {
      for (const c of cleanups.splice(0).reverse()) await c();
      vi.restoreAllMocks();
    });

    it('warns once per outage by default, again after it was ready, and never unhandled', async () => {
      const unhandled = vi.spyOn(console, 'error');
      const warnings: Error[] = [];
      const onWarning = (w: Error) => {
        if ((w as NodeJS.ErrnoException).code === 'AGENTGOV_REDIS_UNREACHABLE') warnings.push(w);
      };
      process.on('warning', onWarning);
      cleanups.push(() => process.off('warning', onWarning));
      const port = await freePort();
      const client = openRedis(`redis://127.0.0.1:${port}`);
      cleanups.push(() => client.disconnect());
      let errors = 0;
      client.on('error', () => errors++);

      // Down from the start: several failed attempts, one warning.
      await vi.waitFor(() => expect(errors).toBeGreaterThanOrEqual(3), UNTIL);
      await vi.waitFor(() => expect(warnings).toHaveLength(1), UNTIL);
      expect(warnings[0]?.message).toMatch(/^Redis unreachable: ECONNREFUSED/);

      // Redis appears on that port: the client connects by itself and answers.
      const proxy = new TcpProxy(target.hostname, Number(target.port || 6379));
      proxy.port = port;
      await proxy.start();
      cleanups.push(() => proxy.stop());
      await vi.waitFor(() => expect(client.status).toBe('ready'), UNTIL);
      expect(await client.ping()).toBe('PONG');

      // A second outage: one more warning, however many attempts fail.
      const before = errors;
      await proxy.stop();
      await vi.waitFor(() => expect(errors).toBeGreaterThanOrEqual(before + 3), UNTIL);
      await vi.waitFor(() => expect(warnings).toHaveLength(2), UNTIL);
      expect(warnings).toHaveLength(2);
      expect(unhandled.mock.calls.flat().join(' ')).not.toContain('Unhandled error event');
    });

    it('createRedisStores hands every error event to onError, and then warns nothing', async () => {
      const warnings: Error[] = [];
      const onWarning = (w: Error) => warnings.push(w);
      process.on('warning', onWarning);
      cleanups.push(() => process.off('warning', onWarning));
      const seen: Error[] = [];
      const stores = createRedisStores(`redis://127.0.0.1:${await freePort()}`, {
        onError: (e) => seen.push(e),
      });
      cleanups.push(() => stores.redis.disconnect());
      await vi.waitFor(() => expect(seen.length).toBeGreaterThanOrEqual(3), UNTIL);
      expect(seen.every((e) => (e as NodeJS.ErrnoException).code === 'ECONNREFUSED')).toBe(true);
      expect(
        warnings.filter((w) => (w as NodeJS.ErrnoException).code === 'AGENTGOV_REDIS_UNREACHABLE'),
      ).toEqual([]);
    });
  },
);
