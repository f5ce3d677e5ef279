/**
 * Issue 27, TLS inside — outgoing, through real handshakes with certificates made at test time:
 * - OPA: the reference server decides through an HTTPS OPA stand-in that requires a client
 *   certificate; with the wrong CA the engine is down — decisions 503 POLICY_ENGINE_UNREACHABLE,
 *   /status degraded with `opa` unhealthy (fail closed);
 * - PostgreSQL (`openStore({ tls })`) and Redis (`createRedisStores('rediss://…', { tls })`, and
 *   the server with REDIS_TLS_*) through TLS-terminating proxies in front of the shared services
 *   (./tls-fixtures.ts): the right CA and client certificate work; a server from another CA, a
 *   certificate for another name, or no client certificate are refused; `servername` names the
 *   host the certificate is for.
 */
import type { AddressInfo } from 'node:net';
import { createNodeServer } from '@agentgov/gateway';
import { createTestPki, type TestKeyPair, type TestPki } from '@agentgov/gateway/testing';
import { openStore } from '@agentgov/store-kysely';
import { createRedisStores } from '@agentgov/store-redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config';
import { explain } from '../src/explain';
import { type RunningServer, startServer } from '../src/server';
import { missingServices } from './processes';
import { startPostgresTlsProxy, startRedisTlsProxy, type TlsProxy, targetOf } from './tls-fixtures';

const missing = missingServices();
let pki: TestPki;
beforeAll(() => {
  pki = createTestPki();
});
afterAll(() => pki?.remove());

/** `<SERVICE>_TLS_*` for the client certificate of `ca`, trusting `trust`. */
const clientEnv = (service: string, trust: string, client: TestKeyPair) => ({
  [`${service}_TLS_CA`]: trust,
  [`${service}_TLS_CERT`]: client.certFile,
  [`${service}_TLS_KEY`]: client.keyFile,
});

describe('OPA over mutual TLS, through the reference server', () => {
  let opa: ReturnType<typeof createNodeServer>;
  let opaUrl: string;
  beforeAll(async () => {
    // OPA's REST Data API for one decision: every /v1/data/… allows; /health is 200.
    opa = createNodeServer(
      (req, res) => {
        req.resume();
        req.on('end', () => {
          res.writeHead(200, { 'content-type': 'application/json' });
          if (req.url === '/health') res.end('{}');
          else res.end(JSON.stringify({ result: { allow: true, reason: 'allowed by OPA over mutual TLS' } }));
        });
      },
      { cert: pki.ca.server.cert, key: pki.ca.server.key, clientCa: pki.ca.cert, clientAuth: 'require' },
    );
    await new Promise<void>((resolve) => opa.listen(0, '127.0.0.1', resolve));
    opaUrl = `https://127.0.0.1:${(opa.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    opa.closeAllConnections();
    await new Promise((r) => opa.close(r));
  });

  async function withServer(env: Record<string, string>, run: (s: RunningServer) => Promise<void>) {
    const base = { DATABASE_URL: 'memory:', PORT: '0', AGENTGOV_CHECKPOINT_INTERVAL: '0', OPA_URL: opaUrl };
    const server = await startServer(loadConfig({ ...base, ...env }), { env: {} });
    try {
      await run(server);
    } finally {
      await server.close();
    }
  }
  const decide = async (server: RunningServer) => {
    const token = await server.devIssuer?.mintIdToken('alice');
    const r = await fetch(`${server.url}/api/v1/decisions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ domain: 'features', input: { feature: 'briefings' } }),
    });
    return { status: r.status, body: (await r.json()) as Record<string, unknown> };
  };
  const status = async (server: RunningServer) => {
    const r = await fetch(`${server.url}/api/v1/status`);
    return { status: r.status, body: (await r.json()) as { components: Record<string, { status: string }> } };
  };

  it('decides with the right CA and client certificate; /status has opa healthy', async () => {
    await withServer(clientEnv('OPA', pki.ca.certFile, pki.ca.client), async (server) => {
      const d = await decide(server);
      expect(d.status).toBe(200);
      expect(d.body).toMatchObject({ allow: true, reason: 'allowed by OPA over mutual TLS' });
      const s = await status(server);
      expect(s.body.components.opa).toEqual({ status: 'healthy' });
    });
  });

  it('fails closed with the wrong CA: 503 POLICY_ENGINE_UNREACHABLE, /status 503 with opa unhealthy', async () => {
    await withServer(clientEnv('OPA', pki.other.certFile, pki.ca.client), async (server) => {
      const d = await decide(server);
      expect(d.status).toBe(503);
      expect(d.body).toMatchObject({ error: 'POLICY_ENGINE_UNREACHABLE' });
      const s = await status(server);
      expect(s.status).toBe(503);
      expect(s.body.components.opa).toEqual({ status: 'unhealthy' });
    });
  });

  it('fails closed without a client certificate', async () => {
    await withServer({ OPA_TLS_CA: pki.ca.certFile }, async (server) => {
      expect((await decide(server)).body).toMatchObject({ error: 'POLICY_ENGINE_UNREACHABLE' });
    });
  });
});

describe.skipIf(Boolean(missing))(
  `PostgreSQL over TLS${missing ? ` — skipped: ${missing} not set` : ''}`,
  () => {
    const proxies: TlsProxy[] = [];
    const through = async (server: TestKeyPair) => {
      const proxy = await startPostgresTlsProxy(
        { server, clientCa: pki.ca.cert },
        targetOf(process.env.TEST_DATABASE_URL as string, 5432),
      );
      proxies.push(proxy);
      const url = new URL(process.env.TEST_DATABASE_URL as string);
      url.host = `127.0.0.1:${proxy.port}`;
      return url.href;
    };
    afterAll(async () => {
      for (const p of proxies) await p.close();
    });
    const open = (database: string, tls: Parameters<typeof openStore>[0]['tls']) =>
      openStore({ database, migrate: false, pool: { max: 1 }, ...(tls ? { tls } : {}) });
    const client = () => ({ cert: pki.ca.client.cert, key: pki.ca.client.key });

    it('connects with the right CA and client certificate', async () => {
      const stores = await open(await through(pki.ca.server), { ca: pki.ca.cert, ...client() });
      try {
        await stores.ping();
      } finally {
        await stores.close();
      }
    });

    it('refuses a server from another CA, a missing client certificate, and one from another CA', async () => {
      const url = await through(pki.ca.server);
      const proxy = proxies.at(-1) as TlsProxy;
      await expect(open(url, { ca: pki.other.cert, ...client() })).rejects.toThrow(/self-signed certificate/);
      // Refused by the server: the proxy never passed the connection on.
      await expect(open(url, { ca: pki.ca.cert })).rejects.toThrow();
      await expect(
        open(url, { ca: pki.ca.cert, cert: pki.other.client.cert, key: pki.other.client.key }),
      ).rejects.toThrow();
      expect(proxy.forwarded).toBe(0);
    });

    it("verifies the server's name; servername names the host the certificate is for", async () => {
      const url = await through(pki.ca.wrongName);
      await expect(open(url, { ca: pki.ca.cert, ...client() })).rejects.toThrow(/wrong\.invalid|altnames/i);
      const stores = await open(url, { ca: pki.ca.cert, ...client(), servername: 'wrong.invalid' });
      await stores.ping();
      await stores.close();
    });

    it('the reference server with the wrong DATABASE_TLS_CA does not start, and says why in one line', async () => {
      const env = {
        DATABASE_URL: await through(pki.ca.server),
        PORT: '0',
        ...clientEnv('DATABASE', pki.other.certFile, pki.ca.client),
      };
      const error = await startServer(loadConfig(env), { env: {} }).then(
        () => new Error('started'),
        (e: unknown) => e,
      );
      expect(explain(error, env)).toMatch(
        /^TLS handshake refused \(SELF_SIGNED_CERT_IN_CHAIN\): check the \*_TLS_CA/,
      );
    });

    it('refuses TLS configured twice (sslmode in the URL and tls options)', async () => {
      const url = `${await through(pki.ca.server)}?sslmode=verify-full`;
      await expect(open(url, { ca: pki.ca.cert, ...client() })).rejects.toThrow(/configured twice.*sslmode/);
    });
  },
);

describe.skipIf(Boolean(missing))(`Redis over TLS${missing ? ` — skipped: ${missing} not set` : ''}`, () => {
  const proxies: TlsProxy[] = [];
  const through = async (server: TestKeyPair) => {
    const proxy = await startRedisTlsProxy(
      { server, clientCa: pki.ca.cert },
      targetOf(process.env.TEST_REDIS_URL as string, 6379),
    );
    proxies.push(proxy);
    return `rediss://127.0.0.1:${proxy.port}`;
  };
  afterAll(async () => {
    for (const p of proxies) await p.close();
  });
  const client = () => ({ cert: pki.ca.client.cert, key: pki.ca.client.key });
  /** PING through the stores' client; the client is let go of either way. */
  const ping = async (
    url: string,
    tls: Parameters<typeof createRedisStores>[1] extends infer O ? O : never,
  ) => {
    const stores = createRedisStores(url, tls);
    // ping() fails with "max retries"; why each attempt failed is in the client's 'error' events.
    const seen: string[] = [];
    stores.redis.on('error', (e: Error) => seen.push(e.message));
    try {
      return await stores.redis.ping();
    } catch (error) {
      throw new Error(`${(error as Error).message}; attempts: ${seen.join('; ')}`);
    } finally {
      stores.redis.disconnect();
    }
  };

  it('connects with the right CA and client certificate', async () => {
    expect(await ping(await through(pki.ca.server), { tls: { ca: pki.ca.cert, ...client() } })).toBe('PONG');
  });

  it('refuses a server from another CA, a missing client certificate, and one from another CA', async () => {
    const url = await through(pki.ca.server);
    await expect(ping(url, { tls: { ca: pki.other.cert, ...client() } })).rejects.toThrow(
      /self-signed certificate/,
    );
    const proxy = proxies.at(-1) as TlsProxy;
    await expect(ping(url, { tls: { ca: pki.ca.cert } })).rejects.toThrow();
    expect(proxy.forwarded).toBe(0);
    await expect(
      ping(url, { tls: { ca: pki.ca.cert, cert: pki.other.client.cert, key: pki.other.client.key } }),
    ).rejects.toThrow();
    expect(proxy.forwarded).toBe(0);
  });

  it("verifies the server's name; servername names the host the certificate is for", async () => {
    const url = await through(pki.ca.wrongName);
    await expect(ping(url, { tls: { ca: pki.ca.cert, ...client() } })).rejects.toThrow(/altnames/);
    expect(await ping(url, { tls: { ca: pki.ca.cert, ...client(), servername: 'wrong.invalid' } })).toBe(
      'PONG',
    );
  });

  it('the reference server with the wrong REDIS_TLS_CA does not start, and says why in one line', async () => {
    const env = {
      DATABASE_URL: 'memory:',
      PORT: '0',
      REDIS_URL: await through(pki.ca.server),
      ...clientEnv('REDIS', pki.other.certFile, pki.ca.client),
    };
    const error = await startServer(loadConfig(env), { env: {} }).then(
      () => new Error('started'),
      (e: unknown) => e,
    );
    expect(explain(error, env)).toMatch(
      /^cannot reach Redis at rediss:\/\/127\.0\.0\.1:\d+\/?; .*REDIS_TLS_\*/,
    );
  });

  it('refuses TLS options with a redis:// URL (it would be sent in clear)', () => {
    expect(() => createRedisStores('redis://127.0.0.1:6379', { tls: { ca: pki.ca.cert } })).toThrow(
      /rediss:\/\//,
    );
  });

  it('the reference server shares sessions and limits through Redis over TLS (REDIS_TLS_*)', async () => {
    const url = await through(pki.ca.server);
    const server = await startServer(
      loadConfig({
        DATABASE_URL: 'memory:',
        PORT: '0',
        AGENTGOV_CHECKPOINT_INTERVAL: '0',
        REDIS_URL: url,
        ...clientEnv('REDIS', pki.ca.certFile, pki.ca.client),
      }),
      { env: {} },
    );
    try {
      const token = await server.devIssuer?.mintIdToken('alice');
      const r = await fetch(`${server.url}/api/v1/auth/userinfo`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(r.status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
