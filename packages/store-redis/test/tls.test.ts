/**
 * `openRedis(url, { tls })` / `createRedisStores(url, { tls })`: the ioredis client gets TLS with
 * verification always on, the CA and client certificate as given, and a `servername` that holds
 * for the identity check; TLS options with a `redis://` URL (sent in clear) or a certificate
 * without its key are refused. Nothing connects here (the client is let go of at once); the real
 * handshakes, through a TLS proxy in front of Redis, are in examples/server/test/tls-outgoing.test.ts.
 */
import type { PeerCertificate } from 'node:tls';
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { createRedisStores, openRedis } from '../src/index';

/** The TLS options of a client opened for `url`, read before it could connect. */
function tlsOf(open: () => Redis) {
  const client = open();
  client.on('error', () => {});
  client.disconnect();
  return client.options.tls as Record<string, unknown> & {
    checkServerIdentity?: (host: string, cert: PeerCertificate) => Error | undefined;
  };
}

const peer = (names: string) =>
  ({ subject: { CN: 'x' }, subjectaltname: names }) as unknown as PeerCertificate;

describe('Redis TLS options', () => {
  it('a rediss:// URL with a CA and a client certificate: verification on, the files as given', () => {
    const tls = tlsOf(() =>
      openRedis('rediss://127.0.0.1:1', { tls: { ca: 'CA', cert: 'CERT', key: 'KEY' } }),
    );
    expect(tls).toMatchObject({ rejectUnauthorized: true, ca: 'CA', cert: 'CERT', key: 'KEY' });
  });

  it('servername: the certificate must name it, whatever host the URL has', () => {
    const stores = createRedisStores('rediss://10.0.0.9:1', { tls: { servername: 'redis.internal' } });
    const tls = tlsOf(() => stores.redis);
    expect(tls.servername).toBe('redis.internal');
    expect(tls.checkServerIdentity?.('10.0.0.9', peer('DNS:redis.internal'))).toBeUndefined();
    expect(tls.checkServerIdentity?.('10.0.0.9', peer('IP Address:10.0.0.9'))).toBeInstanceOf(Error);
  });

  it('refuses TLS options with redis:// and a client certificate without its key', () => {
    expect(() => openRedis('redis://127.0.0.1:1', { tls: { ca: 'CA' } })).toThrow(/rediss:\/\//);
    expect(() => createRedisStores('rediss://127.0.0.1:1', { tls: { key: 'KEY' } })).toThrow(
      /cert and key together/,
    );
  });
});
