/**
 * Client TLS to a service the governance service calls (PostgreSQL, Redis, an OPA sidecar): one
 * shape of options and one rule for all of them — the server's certificate must chain to `ca`
 * (default: Node's root CAs) and carry the expected name (the URL's host, or `servername`);
 * verification cannot be turned off; a client certificate comes with its key.
 */
import { type ConnectionOptions, checkServerIdentity } from 'node:tls';

export interface ClientTlsOptions {
  /** CA certificate(s), PEM, the server's certificate must chain to (default: Node's root CAs). */
  ca?: string | Buffer;
  /** Client certificate chain, PEM (mutual TLS), with its `key`. */
  cert?: string | Buffer;
  key?: string | Buffer;
  /** The name the server's certificate must carry when it is not the URL's host (also sent as SNI). */
  servername?: string;
}

/**
 * node:tls connection options for `tls`, verification on; `service` names the peer in the error
 * thrown for a certificate without its key (a misconfiguration, at start-up).
 */
export function verifiedClientTls(service: string, tls: ClientTlsOptions): ConnectionOptions {
  if ((tls.cert === undefined) !== (tls.key === undefined))
    throw new Error(`a client certificate for ${service} needs its key (cert and key together)`);
  const { servername } = tls;
  return {
    rejectUnauthorized: true,
    ...(tls.ca === undefined ? {} : { ca: tls.ca }),
    ...(tls.cert === undefined ? {} : { cert: tls.cert, key: tls.key }),
    // A client (pg) may set `servername` to the URL's host itself: the identity check is what
    // makes the configured name the one that holds.
    ...(servername === undefined
      ? {}
      : { servername, checkServerIdentity: (_host, cert) => checkServerIdentity(servername, cert) }),
  };
}
