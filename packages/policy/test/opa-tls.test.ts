/**
 * The OPA engine over mutual TLS (`fetch: tlsFetch({ ca, cert, key })`) against an HTTPS stand-in
 * speaking OPA's REST Data API for one decision, with certificates made at test time: the right
 * CA and client certificate decide; a server the CA did not sign, a server whose certificate
 * names another host, a missing client certificate or one from another CA all leave the engine
 * down — `POLICY_ENGINE_UNREACHABLE`, health false (fail closed).
 */
import type { AddressInfo } from 'node:net';
import { createNodeServer } from '@agentgov/gateway';
import { createTestPki, type TestKeyPair, type TestPki } from '@agentgov/gateway/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_OPA_PATHS, OpaDecisionEngine, type TlsFetchOptions, tlsFetch } from '../src/index';

let pki: TestPki;
beforeAll(() => {
  pki = createTestPki();
});
afterAll(() => pki?.remove());

const request = {
  domain: 'agent-to-agent' as const,
  tenantId: 'acme',
  userId: 'alice',
  input: {
    exchange_type: 'information_query' as const,
    initiator_tenant_id: 'acme',
    responder_tenant_id: 'acme',
    initiator_org_unit: 'eng',
    responder_org_unit: 'eng',
    classification_level: 'internal' as const,
  },
};
const decisionPath = `/v1/data/${DEFAULT_OPA_PATHS['agent-to-agent']}`;

/** An HTTPS OPA stand-in with `serverCert`, requiring client certificates of the test CA. */
async function opaOverTls(serverCert: TestKeyPair): Promise<{ url: string; close(): Promise<void> }> {
  const server = createNodeServer(
    (req, res) => {
      req.resume();
      req.on('end', () => {
        const send = (status: number, value: unknown) =>
          res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
        if (req.method === 'GET' && req.url === '/health') return send(200, {});
        if (req.method === 'POST' && req.url === decisionPath)
          return send(200, { result: { allow: true, reason: 'allowed over mutual TLS' } });
        return send(200, {});
      });
    },
    { cert: serverCert.cert, key: serverCert.key, clientCa: pki.ca.cert, clientAuth: 'require' },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function engine(url: string, tls: TlsFetchOptions): OpaDecisionEngine {
  // A generous timeout: a refused handshake must fail as unreachable, not as slow.
  return new OpaDecisionEngine({ url, fetch: tlsFetch(tls), timeoutMs: 20_000 });
}

describe('OPA engine over mutual TLS', () => {
  let opa: Awaited<ReturnType<typeof opaOverTls>>;
  beforeAll(async () => {
    opa = await opaOverTls(pki.ca.server);
  });
  afterAll(() => opa.close());

  it('decides with the right CA and client certificate (twice: the kept-alive connection too)', async () => {
    const e = engine(opa.url, { ca: pki.ca.cert, cert: pki.ca.client.cert, key: pki.ca.client.key });
    for (let i = 0; i < 2; i++) {
      const d = (await e.decide(request))._unsafeUnwrap();
      expect(d).toMatchObject({ allow: true, reason: 'allowed over mutual TLS' });
    }
    expect(await e.health()).toBe(true);
  });

  it('is down when the server is signed by a CA it does not trust', async () => {
    const e = engine(opa.url, { ca: pki.other.cert, cert: pki.ca.client.cert, key: pki.ca.client.key });
    const error = (await e.decide(request))._unsafeUnwrapErr();
    expect(error.code).toBe('POLICY_ENGINE_UNREACHABLE');
    expect(await e.health()).toBe(false);
  });

  it('is down without a client certificate, or with one from another CA', async () => {
    for (const client of [undefined, pki.other.client]) {
      const e = engine(opa.url, {
        ca: pki.ca.cert,
        ...(client ? { cert: client.cert, key: client.key } : {}),
      });
      expect((await e.decide(request))._unsafeUnwrapErr().code).toBe('POLICY_ENGINE_UNREACHABLE');
      expect(await e.health()).toBe(false);
    }
  });

  it('refuses a plain http URL instead of sending in clear', async () => {
    const e = engine(opa.url.replace('https:', 'http:'), { ca: pki.ca.cert });
    expect((await e.decide(request))._unsafeUnwrapErr().code).toBe('POLICY_ENGINE_UNREACHABLE');
  });
});

describe("OPA engine: the peer's name is verified", () => {
  let opa: Awaited<ReturnType<typeof opaOverTls>>;
  beforeAll(async () => {
    opa = await opaOverTls(pki.ca.wrongName);
  });
  afterAll(() => opa.close());

  it('is down when the certificate names another host', async () => {
    const e = engine(opa.url, { ca: pki.ca.cert, cert: pki.ca.client.cert, key: pki.ca.client.key });
    expect((await e.decide(request))._unsafeUnwrapErr().code).toBe('POLICY_ENGINE_UNREACHABLE');
  });

  it('decides when servername names the host the certificate is for', async () => {
    const e = engine(opa.url, {
      ca: pki.ca.cert,
      cert: pki.ca.client.cert,
      key: pki.ca.client.key,
      servername: 'wrong.invalid',
    });
    expect((await e.decide(request))._unsafeUnwrap().allow).toBe(true);
  });
});

it('tlsFetch wants a client certificate and its key together', () => {
  expect(() => tlsFetch({ cert: 'x' })).toThrow(/cert and key together/);
});
