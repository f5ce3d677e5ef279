/**
 * Listening: `createNodeServer(listener, tls?)` is a node:http server, or with `tls` a node:https
 * one (server certificate and key, and client certificates checked against a CA of your own).
 * Framework-agnostic: the listener is any Node request listener (an Express app, Koa's
 * `app.callback()`, a function calling `handleNode`); the adapters stay translation only.
 *
 * Client certificates (mutual TLS for internal callers, spec "Internal service-to-service traffic
 * uses mutual TLS"), by `clientAuth`:
 * - `off`: none asked for;
 * - `require`: the TLS handshake itself refuses a client without a certificate signed by
 *   `clientCa` — a listener for internal callers only;
 * - `optional`: certificates are asked for, not required, so browsers and API clients come in
 *   without one; a request to one of `internalPaths` (the metrics scraper's, …) without a verified
 *   certificate is answered 401 `authentication_required` with the spec's error body before the
 *   listener sees it. The route's own authentication still applies after that.
 */
import http, { type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { TLSSocket } from 'node:tls';
import { errorOf } from '@agentgov/core';
import { errorOutcome, requestIdFrom } from './http';
import { writeOutcome } from './node';

export type ClientAuthMode = 'off' | 'optional' | 'require';

export interface NodeTlsOptions {
  /** The server's certificate chain, PEM (leaf first). */
  cert: string | Buffer;
  /** Its private key, PEM. */
  key: string | Buffer;
  /** The CA certificate(s), PEM, that sign the client certificates; needed unless `clientAuth` is `off`. */
  clientCa?: string | Buffer;
  /** Default `off`. */
  clientAuth?: ClientAuthMode;
  /**
   * Under `optional`: the paths that need a verified client certificate, each with everything
   * below it (`/api/v1/metrics/prometheus`). Compared after resolving dot segments, repeated
   * slashes and percent-escapes, ignoring case — a spelling that routes there is covered.
   */
  internalPaths?: readonly string[];
}

/** A node:http server on `listener`, or node:https with `tls` (see the module's comment). */
export function createNodeServer(
  listener: RequestListener,
  tls?: NodeTlsOptions,
): http.Server | https.Server {
  if (!tls) return http.createServer(listener);
  const mode = tls.clientAuth ?? 'off';
  if (mode !== 'off' && !tls.clientCa) throw new Error(`clientAuth '${mode}' needs clientCa`);
  const options: https.ServerOptions = {
    cert: tls.cert,
    key: tls.key,
    minVersion: 'TLSv1.2',
    ...(mode === 'off'
      ? {}
      : { ca: tls.clientCa, requestCert: true, rejectUnauthorized: mode === 'require' }),
  };
  const internal = (tls.internalPaths ?? []).map(normalizedPath);
  const needsCertificate =
    mode === 'require'
      ? () => true
      : mode === 'optional' && internal.length > 0
        ? (req: IncomingMessage) => {
            const path = normalizedPath(req.url ?? '/');
            return internal.some((p) => p === '/' || path === p || path.startsWith(`${p}/`));
          }
        : undefined;
  if (!needsCertificate) return https.createServer(options, listener);
  return https.createServer(options, (req, res) => {
    if (needsCertificate(req) && !refuseUnverified(req, res)) return;
    listener(req, res);
  });
}

/** A verified client certificate's subject and fingerprint, or undefined (none, or not verified). */
export function clientCertificate(
  req: IncomingMessage,
): { subject: string; fingerprint256: string } | undefined {
  const socket = req.socket as Partial<TLSSocket>;
  if (socket.authorized !== true || typeof socket.getPeerCertificate !== 'function') return undefined;
  const cert = socket.getPeerCertificate();
  if (!cert?.fingerprint256) return undefined;
  const subject = Object.entries(cert.subject ?? {})
    .map(([k, v]) => `${k}=${Array.isArray(v) ? v.join('+') : v}`)
    .join(', ');
  return { subject, fingerprint256: cert.fingerprint256 };
}

/** True when the peer's certificate was verified; otherwise writes the 401 and returns false. */
function refuseUnverified(req: IncomingMessage, res: ServerResponse): boolean {
  const socket = req.socket as Partial<TLSSocket>;
  if (socket.authorized === true) return true;
  const presented =
    typeof socket.getPeerCertificate === 'function' &&
    Object.keys(socket.getPeerCertificate() ?? {}).length > 0;
  const message = presented
    ? `The client certificate was not accepted (${String(socket.authorizationError ?? 'not verified')})`
    : 'This path is for internal callers: present a client certificate signed by the configured CA';
  const outcome = errorOutcome(errorOf('authentication_required', message));
  outcome.headers.set('x-request-id', requestIdFrom(headerOf(req, 'x-request-id')));
  // The Bearer challenge would point at the wrong credential.
  outcome.headers.delete('www-authenticate');
  writeOutcome(res, outcome);
  return false;
}

function headerOf(req: IncomingMessage, name: string): string | null {
  const v = req.headers[name];
  return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
}

/**
 * A request target's path as the router could reach it, spelled one way: no scheme and host
 * (absolute form), backslashes as slashes, repeated slashes collapsed, dot segments resolved,
 * percent-escapes decoded (repeatedly), lower case, no trailing slash. Errs towards matching more
 * (a request that needs a certificate when it did not is refused; the other way round would let
 * one in).
 */
export function normalizedPath(target: string): string {
  let path = target.replace(/[?#].*$/s, '').replace(/^[a-z][a-z0-9+.-]*:\/\/[^/\\]*/i, '');
  for (let i = 0; i < 4; i++) {
    const before = path;
    path = resolveDots(path.replace(/[\t\n\r]/g, '').replaceAll('\\', '/'));
    if (path.includes('%')) {
      try {
        path = decodeURIComponent(path);
      } catch {
        // Not decodable: compared as it is.
      }
    }
    if (path === before) break;
  }
  return path.toLowerCase();
}

/** `/a//b/./c/../d/` → `/a/b/d` (empty segments dropped, `..` never above the root). */
function resolveDots(path: string): string {
  const out: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') out.pop();
    else out.push(segment);
  }
  return `/${out.join('/')}`;
}
