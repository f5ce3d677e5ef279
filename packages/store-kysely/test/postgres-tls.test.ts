/**
 * `openStore({ tls })` / `openPostgresPool(url, { tls })`: what reaches pg's Pool (the driver is
 * injected, so nothing connects) — verification always on, the CA and client certificate as
 * given, and a `servername` that holds for the identity check whatever host the URL names (pg sets
 * `servername` to the URL's host itself); TLS configured twice, or a certificate without its key,
 * is refused before anything is opened. The real handshakes (through a TLS proxy in front of
 * PostgreSQL) are in examples/server/test/tls-outgoing.test.ts.
 */
import type { PeerCertificate } from 'node:tls';
import { describe, expect, it } from 'vitest';
import { openPostgresPool } from '../src/drivers';

/** A pg module whose Pool records its configuration. */
function recordingPg() {
  const configs: Record<string, unknown>[] = [];
  class Pool {
    constructor(config: Record<string, unknown>) {
      configs.push(config);
    }
    on() {}
  }
  return { configs, importer: async () => ({ default: { Pool } }) as unknown as typeof import('pg') };
}

const peer = (names: string) =>
  ({ subject: { CN: 'x' }, subjectaltname: names }) as unknown as PeerCertificate;

describe('PostgreSQL TLS options', () => {
  it('passes the CA, the client certificate and verification to the pool', async () => {
    const pg = recordingPg();
    await openPostgresPool(
      'postgres://agentgov@db.internal:5432/agentgov',
      { tls: { ca: 'CA PEM', cert: 'CERT PEM', key: 'KEY PEM' } },
      pg.importer,
    );
    expect(pg.configs[0]?.ssl).toEqual({
      rejectUnauthorized: true,
      ca: 'CA PEM',
      cert: 'CERT PEM',
      key: 'KEY PEM',
    });
  });

  it('no tls option: no ssl setting (the URL decides, as before)', async () => {
    const pg = recordingPg();
    await openPostgresPool(
      'postgres://agentgov@db.internal:5432/agentgov?sslmode=verify-full',
      {},
      pg.importer,
    );
    expect(pg.configs[0]).not.toHaveProperty('ssl');
  });

  it('servername: the certificate must name it, whatever host the URL has', async () => {
    const pg = recordingPg();
    await openPostgresPool(
      'postgres://agentgov@10.0.0.7:5432/agentgov',
      { tls: { servername: 'db.internal' } },
      pg.importer,
    );
    const ssl = pg.configs[0]?.ssl as {
      servername: string;
      checkServerIdentity: (host: string, cert: PeerCertificate) => Error | undefined;
    };
    expect(ssl.servername).toBe('db.internal');
    expect(ssl.checkServerIdentity('10.0.0.7', peer('DNS:db.internal'))).toBeUndefined();
    expect(
      ssl.checkServerIdentity('10.0.0.7', peer('DNS:other.internal, IP Address:10.0.0.7')),
    ).toBeInstanceOf(Error);
  });

  it('refuses TLS configured twice, and a client certificate without its key, before opening anything', async () => {
    const pg = recordingPg();
    for (const param of ['sslmode=require', 'sslrootcert=/ca.crt', 'ssl=true']) {
      await expect(
        openPostgresPool(`postgres://u:secret@db.internal/x?${param}`, { tls: { ca: 'CA' } }, pg.importer),
      ).rejects.toThrow(/TLS is configured twice/);
    }
    await expect(
      openPostgresPool('postgres://db.internal/x', { tls: { cert: 'CERT' } }, pg.importer),
    ).rejects.toThrow(/cert and key together/);
    expect(pg.configs).toEqual([]);
  });
});
