/**
 * What the TLS tests share: `httpsRequest` (one request over a fresh TLS connection, with the CA
 * to trust and an optional client certificate), and TLS-terminating proxies a test starts in front of the shared PostgreSQL and Redis (which speak
 * no TLS themselves), so that the clients' TLS options meet a real handshake:
 * - Redis: a `tls.Server` piping the decrypted stream to 127.0.0.1:6379;
 * - PostgreSQL: TLS is negotiated inside the protocol — the client sends an SSLRequest (8 bytes:
 *   length 8, code 80877103), the server answers `S`, then the client starts the handshake on the
 *   same socket. The proxy does that exchange, then pipes the decrypted stream to 127.0.0.1:5432
 *   (where the client's startup message follows as on a plain connection).
 * Both present `server` and, with `clientCa`, require a client certificate signed by it.
 */
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import type { TestKeyPair } from '@agentgov/gateway/testing';

export interface TlsProxy {
  port: number;
  /** Connections that completed the handshake (client certificate verified) and were passed on. */
  readonly forwarded: number;
  close(): Promise<void>;
}

interface ProxyOptions {
  server: TestKeyPair;
  clientCa?: string;
}

const SSL_REQUEST = Buffer.from([0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f]);

function secureContext(o: ProxyOptions): tls.TlsOptions {
  return {
    cert: o.server.cert,
    key: o.server.key,
    ...(o.clientCa ? { ca: o.clientCa, requestCert: true, rejectUnauthorized: true } : {}),
  };
}

function pipeTo(
  secure: tls.TLSSocket,
  target: Target,
  sockets: Set<net.Socket>,
  counter: { forwarded: number },
): void {
  counter.forwarded++;
  const upstream = net.connect(target.port, target.host);
  sockets.add(upstream);
  const drop = () => {
    secure.destroy();
    upstream.destroy();
  };
  secure.on('error', drop).on('close', drop);
  upstream.on('error', drop).on('close', drop);
  secure.pipe(upstream).pipe(secure);
}

async function listening(
  server: net.Server,
  sockets: Set<net.Socket>,
  counter: { forwarded: number },
): Promise<TlsProxy> {
  server.on('connection', (s: net.Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    get forwarded() {
      return counter.forwarded;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Where a proxy forwards to. */
export interface Target {
  host: string;
  port: number;
}

/** The host and port of a `postgres://` or `redis://` URL. */
export function targetOf(url: string, defaultPort: number): Target {
  const u = new URL(url);
  return { host: u.hostname || '127.0.0.1', port: Number(u.port || defaultPort) };
}

/** TLS in front of Redis at `target`. */
export function startRedisTlsProxy(o: ProxyOptions, target: Target): Promise<TlsProxy> {
  const sockets = new Set<net.Socket>();
  const counter = { forwarded: 0 };
  const server = tls.createServer(secureContext(o), (secure) => pipeTo(secure, target, sockets, counter));
  server.on('tlsClientError', () => {});
  return listening(server, sockets, counter);
}

/** PostgreSQL's SSLRequest answered `S`, then TLS, in front of PostgreSQL at `target`. */
export function startPostgresTlsProxy(o: ProxyOptions, target: Target): Promise<TlsProxy> {
  const sockets = new Set<net.Socket>();
  // The handshake (and the client certificate's verification) is a tls.Server's, handed the
  // socket once the SSLRequest was answered.
  const counter = { forwarded: 0 };
  const secure = tls.createServer(secureContext(o), (s) => pipeTo(s, target, sockets, counter));
  secure.on('tlsClientError', () => {});
  const server = net.createServer((socket) => {
    socket.on('error', () => socket.destroy());
    socket.once('readable', function readRequest() {
      const head = socket.read(8) as Buffer | null;
      if (head === null) {
        socket.once('readable', readRequest);
        return;
      }
      // Only TLS connections pass: a plain startup message is refused.
      if (!head.equals(SSL_REQUEST)) {
        socket.destroy();
        return;
      }
      socket.write('S');
      secure.emit('connection', socket);
    });
  });
  return listening(server, sockets, counter);
}

export interface HttpsAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request over a fresh TLS connection (no agent, no session reuse), trusting `ca`. */
export function httpsRequest(
  url: string,
  options: {
    ca: string;
    client?: TestKeyPair;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
  },
): Promise<HttpsAnswer> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      url,
      {
        agent: false,
        ca: options.ca,
        method: options.method ?? 'GET',
        headers: options.headers ?? {},
        ...(options.client ? { cert: options.client.cert, key: options.client.key } : {}),
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          body += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}
