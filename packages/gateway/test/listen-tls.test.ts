/**
 * `createNodeServer` with TLS, through real handshakes on 127.0.0.1 port 0 with certificates made
 * at test time: HTTPS answers a client that trusts the CA; `require` refuses at the handshake a
 * client without a certificate or with one from another CA and serves the right one; `optional`
 * lets anyone reach public paths and answers 401 with the spec's body on the internal paths —
 * however the path is spelled — unless the certificate verifies.
 */
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import tls from 'node:tls';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClientAuthMode, createNodeServer } from '../src/index';
import { normalizedPath } from '../src/listen';
import { createTestPki, type TestKeyPair, type TestPki } from '../src/testing/index';

let pki: TestPki;
beforeAll(() => {
  pki = createTestPki();
});
afterAll(() => pki?.remove());

interface Answer {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

/** One GET over a fresh TLS connection (no agent: no session reuse between cases). */
function get(url: string, trust: string, client?: TestKeyPair): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      url,
      { agent: false, ca: trust, ...(client ? { cert: client.cert, key: client.key } : {}) },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          body += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function serve(clientAuth: ClientAuthMode): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createNodeServer(
    (req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(`hello ${req.url}`);
    },
    {
      cert: pki.ca.server.cert,
      key: pki.ca.server.key,
      ...(clientAuth === 'off' ? {} : { clientCa: pki.ca.cert }),
      clientAuth,
      internalPaths: ['/api/v1/metrics/prometheus'],
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('HTTPS (clientAuth off)', () => {
  let s: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    s = await serve('off');
  });
  afterAll(() => s.close());

  it('answers a client that trusts its CA, by IP and by name', async () => {
    const byIp = await get(`${s.url}/x`, pki.ca.cert);
    expect(byIp).toMatchObject({ status: 200, body: 'hello /x' });
    const byName = await get(s.url.replace('127.0.0.1', 'localhost'), pki.ca.cert);
    expect(byName.status).toBe(200);
  });

  it('is not trusted by a client of another CA', async () => {
    await expect(get(`${s.url}/x`, pki.other.cert)).rejects.toMatchObject({
      code: expect.stringMatching(/SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/),
    });
  });
});

describe('clientAuth require: the handshake decides', () => {
  let s: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    s = await serve('require');
  });
  afterAll(() => s.close());

  it('refuses a client without a certificate', async () => {
    await expect(get(`${s.url}/x`, pki.ca.cert)).rejects.toThrow();
  });

  it('refuses a client certificate from another CA', async () => {
    await expect(get(`${s.url}/x`, pki.ca.cert, pki.other.client)).rejects.toThrow();
  });

  it('serves a client certificate from the configured CA', async () => {
    expect(await get(`${s.url}/x`, pki.ca.cert, pki.ca.client)).toMatchObject({
      status: 200,
      body: 'hello /x',
    });
  });
});

describe('clientAuth optional: internal paths need a verified certificate', () => {
  let s: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    s = await serve('optional');
  });
  afterAll(() => s.close());

  it('lets a client without a certificate reach a public path', async () => {
    expect(await get(`${s.url}/api/v1/status`, pki.ca.cert)).toMatchObject({ status: 200 });
  });

  it('answers 401 with the spec body on an internal path without a certificate', async () => {
    const a = await get(`${s.url}/api/v1/metrics/prometheus`, pki.ca.cert);
    expect(a.status).toBe(401);
    expect(a.headers['content-type']).toMatch(/application\/json/);
    expect(a.headers['x-request-id']).toBeTruthy();
    const body = JSON.parse(a.body) as { error: string; message: string };
    expect(body.error).toBe('authentication_required');
    expect(body.message).toMatch(/client certificate/);
  });

  it('answers 401 to a certificate from another CA', async () => {
    const a = await get(`${s.url}/api/v1/metrics/prometheus`, pki.ca.cert, pki.other.client);
    expect(a.status).toBe(401);
    expect(JSON.parse(a.body)).toMatchObject({ error: 'authentication_required' });
    expect(JSON.parse(a.body).message).toMatch(/not accepted/);
  });

  it('serves the internal path to a certificate from the configured CA', async () => {
    expect(await get(`${s.url}/api/v1/metrics/prometheus`, pki.ca.cert, pki.ca.client)).toMatchObject({
      status: 200,
      body: 'hello /api/v1/metrics/prometheus',
    });
  });

  it('covers every spelling of an internal path', async () => {
    for (const spelled of [
      '/api/v1/metrics/prometheus/',
      '/API/v1/Metrics/Prometheus',
      '//api/v1//metrics/prometheus',
      '/api/v1/x/../metrics/./prometheus',
      '/api/v1/metrics/%70rometheus',
      '/api/v1/metrics/%2e%2e/metrics/prometheus',
      '/api/v1/metrics%252fprometheus',
      '/api/v1/metrics/prometheus?format=text',
    ]) {
      const a = await get(`${s.url}${spelled}`, pki.ca.cert);
      expect(a.status, spelled).toBe(401);
    }
  });
});

/** A raw request line over TLS (targets an HTTP client would normalise first); the status code. */
function rawStatus(url: string, target: string): Promise<number> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port: Number(port), ca: pki.ca.cert }, () => {
      socket.write(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    });
    let head = '';
    socket.setEncoding('utf8');
    socket.on('data', (c: string) => {
      head += c;
    });
    socket.on('end', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0)));
    socket.on('error', reject);
  });
}

describe('clientAuth optional: targets a client would not send', () => {
  let s: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    s = await serve('optional');
  });
  afterAll(() => s.close());

  it('absolute form and backslashes reach the internal path only with a certificate', async () => {
    for (const target of [
      'https://127.0.0.1/api/v1/metrics/prometheus',
      '/api/v1\\metrics\\prometheus',
      '/api/v1/metrics/prometheus/%2e',
    ]) {
      expect(await rawStatus(s.url, target), target).toBe(401);
    }
    expect(await rawStatus(s.url, '/api/v1/status')).toBe(200);
  });
});

describe('normalizedPath', () => {
  const target = '/api/v1/metrics/prometheus';
  it('is idempotent for any input', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        const once = normalizedPath(s);
        expect(normalizedPath(once)).toBe(once);
        expect(once.startsWith('/')).toBe(true);
      }),
    );
  });

  it('maps any spelling made of extra slashes, dot segments, escapes and case to the same path', () => {
    const spelling = fc
      .array(
        fc.record({
          prefix: fc.constantFrom('', '/', '/.', '/x/..', '\\'),
          escape: fc.boolean(),
          upper: fc.boolean(),
        }),
        { minLength: 4, maxLength: 4 },
      )
      .map((parts) =>
        target
          .split('/')
          .slice(1)
          .map((seg, i) => {
            const p = parts[i] ?? { prefix: '', escape: false, upper: false };
            const s = p.upper ? seg.toUpperCase() : seg;
            const e = p.escape ? `%${s.charCodeAt(0).toString(16)}${s.slice(1)}` : s;
            return `${p.prefix}/${e}`;
          })
          .join(''),
      );
    fc.assert(
      fc.property(spelling, (s) => {
        expect(normalizedPath(s)).toBe(target);
      }),
    );
  });
});
