/**
 * Issue 27, TLS inside — listening. The reference server on HTTPS with certificates made at test
 * time (openssl), through real handshakes:
 * - `AGENTGOV_TLS_CLIENT_AUTH=optional` (the default with a client CA): browsers and API clients
 *   come in without a certificate; the internal path (the Prometheus scrape) answers 401 with the
 *   spec's body to a caller without one or with one from another CA, and serves the right one
 *   (its own bearer token still required);
 * - `require`: the handshake refuses a client without a certificate or with one from another CA.
 * And the configuration: each TLS problem names the variable, the file and what is wrong.
 */

import { createTestPki, type TestPki } from '@agentgov/gateway/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config';
import { type RunningServer, startServer } from '../src/server';
import { startProcess } from './processes';
import { httpsRequest } from './tls-fixtures';

let pki: TestPki;
beforeAll(() => {
  pki = createTestPki();
});
afterAll(() => pki?.remove());

const METRICS_TOKEN = 'scraper-token-0123456789';
const listenEnv = () => ({
  DATABASE_URL: 'memory:',
  PORT: '0',
  AGENTGOV_CHECKPOINT_INTERVAL: '0',
  AGENTGOV_METRICS_TOKEN: METRICS_TOKEN,
  AGENTGOV_TLS_CERT: pki.ca.server.certFile,
  AGENTGOV_TLS_KEY: pki.ca.server.keyFile,
  AGENTGOV_TLS_CLIENT_CA: pki.ca.certFile,
});

describe('configuration', () => {
  const problem = (env: Record<string, string>) => {
    try {
      loadConfig(env, '/');
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as Error).message;
    }
    throw new Error('expected a configuration error');
  };

  it('turns on HTTPS with optional client certificates, the Prometheus path internal, an https callback', () => {
    const config = loadConfig({ ...listenEnv(), PORT: '8443' }, '/');
    expect(config.tls.listen).toMatchObject({
      clientAuth: 'optional',
      internalPaths: ['/api/v1/metrics/prometheus'],
    });
    expect(config.tls.listen?.cert).toContain('BEGIN CERTIFICATE');
    expect(config.oidc.redirectUri).toBe('https://127.0.0.1:8443/api/v1/auth/callback');
    expect(loadConfig({}, '/').tls).toEqual({
      listen: undefined,
      opa: undefined,
      database: undefined,
      redis: undefined,
    });
  });

  it('names the variable, the file and the fault', () => {
    const { server, client } = pki.ca;
    expect(problem({ AGENTGOV_TLS_CERT: '/no/such.crt', AGENTGOV_TLS_KEY: server.keyFile })).toMatch(
      /AGENTGOV_TLS_CERT="\/no\/such\.crt": no such file/,
    );
    expect(problem({ AGENTGOV_TLS_CERT: server.keyFile, AGENTGOV_TLS_KEY: server.keyFile })).toMatch(
      /AGENTGOV_TLS_CERT=".*server\.key": expected a PEM certificate/,
    );
    expect(problem({ AGENTGOV_TLS_CERT: server.certFile, AGENTGOV_TLS_KEY: server.certFile })).toMatch(
      /AGENTGOV_TLS_KEY=".*server\.crt": expected a PEM private key/,
    );
    expect(problem({ AGENTGOV_TLS_CERT: server.certFile, AGENTGOV_TLS_KEY: client.keyFile })).toMatch(
      /AGENTGOV_TLS_KEY=".*client\.key" is not the private key of AGENTGOV_TLS_CERT/,
    );
    expect(problem({ AGENTGOV_TLS_CERT: server.certFile })).toMatch(
      /AGENTGOV_TLS_CERT needs AGENTGOV_TLS_KEY/,
    );
    expect(
      problem({
        AGENTGOV_TLS_CERT: server.certFile,
        AGENTGOV_TLS_KEY: server.keyFile,
        AGENTGOV_TLS_CLIENT_AUTH: 'require',
      }),
    ).toMatch(/AGENTGOV_TLS_CLIENT_AUTH=require needs AGENTGOV_TLS_CLIENT_CA/);
    expect(problem({ AGENTGOV_TLS_CLIENT_CA: pki.ca.certFile })).toMatch(
      /AGENTGOV_TLS_CLIENT_CA needs HTTPS: set AGENTGOV_TLS_CERT and AGENTGOV_TLS_KEY/,
    );
    expect(problem({ AGENTGOV_TLS_CLIENT_AUTH: 'sometimes' })).toMatch(
      /AGENTGOV_TLS_CLIENT_AUTH="sometimes"/,
    );
    expect(problem({ ...listenEnv(), AGENTGOV_TLS_CLIENT_AUTH: 'off' })).toMatch(
      /AGENTGOV_TLS_CLIENT_CA is set but AGENTGOV_TLS_CLIENT_AUTH=off/,
    );
    expect(problem({ ...listenEnv(), AGENTGOV_TLS_CLIENT_CA: pki.ca.server.keyFile })).toMatch(
      /AGENTGOV_TLS_CLIENT_CA=".*server\.key": expected a PEM certificate/,
    );
  });

  it('wants outgoing TLS settings with a URL that uses TLS, and a host name to verify', () => {
    expect(problem({ OPA_URL: 'http://opa:8181', OPA_TLS_CA: pki.ca.certFile })).toMatch(
      /OPA_TLS_CA needs an https:\/\/ OPA_URL/,
    );
    expect(problem({ REDIS_URL: 'redis://r:6379', REDIS_TLS_CA: pki.ca.certFile })).toMatch(
      /REDIS_TLS_CA needs a rediss:\/\/ REDIS_URL/,
    );
    expect(
      problem({ DATABASE_TLS_CERT: pki.ca.client.certFile, DATABASE_TLS_KEY: pki.ca.client.keyFile }),
    ).toMatch(/DATABASE_TLS_CERT, DATABASE_TLS_KEY need a postgres:\/\/ DATABASE_URL/);
    expect(
      problem({
        REDIS_URL: 'rediss://r:6380',
        REDIS_TLS_CA: pki.ca.certFile,
        REDIS_TLS_SERVERNAME: 'not a name',
      }),
    ).toMatch(/REDIS_TLS_SERVERNAME="not a name": expected a host name/);
    expect(
      problem({
        OPA_URL: 'https://opa:8181',
        OPA_TLS_CERT: pki.ca.client.certFile,
        OPA_TLS_KEY: pki.ca.server.keyFile,
      }),
    ).toMatch(/OPA_TLS_KEY=".*" is not the private key of OPA_TLS_CERT/);
    const ok = loadConfig(
      {
        OPA_URL: 'https://opa:8181',
        OPA_TLS_CA: pki.ca.certFile,
        OPA_TLS_CERT: pki.ca.client.certFile,
        OPA_TLS_KEY: pki.ca.client.keyFile,
        OPA_TLS_SERVERNAME: 'opa.internal',
      },
      '/',
    );
    expect(ok.tls.opa).toMatchObject({ servername: 'opa.internal' });
    expect(ok.tls.opa?.key).toContain('PRIVATE KEY');
  });

  it('AGENTGOV_TLS_INTERNAL_PATHS: any value is paths or a configuration error naming it', () => {
    const base = { AGENTGOV_TLS_CERT: pki.ca.server.certFile, AGENTGOV_TLS_KEY: pki.ca.server.keyFile };
    expect(
      loadConfig(
        {
          ...base,
          AGENTGOV_TLS_CLIENT_CA: pki.ca.certFile,
          AGENTGOV_TLS_INTERNAL_PATHS: ' /api/v1/mcp , /api/v1/metrics/prometheus',
        },
        '/',
      ).tls.listen?.internalPaths,
    ).toEqual(['/api/v1/mcp', '/api/v1/metrics/prometheus']);
    fc.assert(
      fc.property(fc.string(), (value) => {
        try {
          const paths = loadConfig(
            { ...base, AGENTGOV_TLS_CLIENT_CA: pki.ca.certFile, AGENTGOV_TLS_INTERNAL_PATHS: value },
            '/',
          ).tls.listen?.internalPaths;
          for (const p of paths ?? []) expect(p.startsWith('/')).toBe(true);
        } catch (error) {
          expect(error).toBeInstanceOf(ConfigError);
          expect((error as Error).message).toMatch(/AGENTGOV_TLS_INTERNAL_PATHS/);
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('HTTPS, client certificates optional: the internal path needs one', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer(loadConfig(listenEnv()), { env: {} });
  }, 60_000);
  afterAll(() => server?.close());

  const scrape = (client?: typeof pki.ca.client, token: string | null = METRICS_TOKEN) =>
    httpsRequest(`${server.url}/api/v1/metrics/prometheus`, {
      ca: pki.ca.cert,
      ...(client ? { client } : {}),
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });

  it('serves HTTPS to a client without a certificate (a browser, an API client)', async () => {
    expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const status = await httpsRequest(`${server.url}/api/v1/status`, { ca: pki.ca.cert });
    expect(status.status).toBe(200);
    expect(JSON.parse(status.body)).toMatchObject({ status: 'healthy' });
  });

  it('answers 401 authentication_required on the scrape path without a certificate, token or not', async () => {
    const a = await scrape();
    expect(a.status).toBe(401);
    expect(JSON.parse(a.body)).toMatchObject({
      error: 'authentication_required',
      message: expect.stringMatching(/client certificate/),
    });
  });

  it('answers 401 to a certificate from another CA', async () => {
    const a = await scrape(pki.other.client);
    expect(a.status).toBe(401);
    expect(JSON.parse(a.body)).toMatchObject({ error: 'authentication_required' });
  });

  it('serves the scraper with the right certificate and its token; the token is still needed', async () => {
    const a = await scrape(pki.ca.client);
    expect(a.status).toBe(200);
    expect(a.body).toMatch(/^# (HELP|TYPE) /m);
    expect((await scrape(pki.ca.client, null)).status).toBe(401);
  });
});

describe('HTTPS, client certificates required at the handshake', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer(loadConfig({ ...listenEnv(), AGENTGOV_TLS_CLIENT_AUTH: 'require' }), {
      env: {},
    });
  }, 60_000);
  afterAll(() => server?.close());

  const status = (client?: typeof pki.ca.client) =>
    httpsRequest(`${server.url}/api/v1/status`, { ca: pki.ca.cert, ...(client ? { client } : {}) });

  it('refuses a client without a certificate', async () => {
    await expect(status()).rejects.toThrow();
  });

  it('refuses a client certificate from another CA', async () => {
    await expect(status(pki.other.client)).rejects.toThrow();
  });

  it('serves a client certificate from the configured CA', async () => {
    expect((await status(pki.ca.client)).status).toBe(200);
  });
});

describe('pnpm start with TLS variables (a real process)', () => {
  it('listens on HTTPS and says who needs a client certificate', async () => {
    const server = await startProcess({ ...listenEnv(), AGENTGOV_REQUEST_LOG: 'off' });
    try {
      expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      expect(server.stdout()).toContain(
        '  HTTPS: client certificates required on /api/v1/metrics/prometheus (optional elsewhere)',
      );
      const scrape = await httpsRequest(`${server.url}/api/v1/metrics/prometheus`, {
        ca: pki.ca.cert,
        client: pki.ca.client,
        headers: { authorization: `Bearer ${METRICS_TOKEN}` },
      });
      expect(scrape.status).toBe(200);
    } finally {
      await server.stop();
    }
  }, 60_000);
});
