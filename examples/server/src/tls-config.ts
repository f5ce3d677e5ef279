/**
 * The TLS settings of the reference server (spec: "Internal service-to-service traffic uses
 * mutual TLS. External protocol is HTTPS."), read from the variables of config.ts's TLS block:
 * every file is read here, at configuration time, and must parse as PEM — a problem names the
 * variable, the file and what is wrong with it, before anything starts.
 *
 * - Listening: `AGENTGOV_TLS_CERT` + `AGENTGOV_TLS_KEY` turn on HTTPS; `AGENTGOV_TLS_CLIENT_CA`
 *   the CA of the internal callers' certificates; `AGENTGOV_TLS_CLIENT_AUTH` `off` | `optional`
 *   (default with a client CA: certificates asked for, required only on
 *   `AGENTGOV_TLS_INTERNAL_PATHS`, default the Prometheus scrape path) | `require` (every
 *   connection, at the handshake).
 * - Outgoing: `<SERVICE>_TLS_CA`, `_CERT`, `_KEY`, `_SERVERNAME` for OPA (an https:// OPA_URL),
 *   PostgreSQL (a postgres:// DATABASE_URL) and Redis (a rediss:// REDIS_URL); the peer's
 *   certificate and name are always verified.
 */
import { createPrivateKey, type KeyObject, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_INTERNAL_PATHS } from '@agentgov/core';

type ClientAuth = 'off' | 'optional' | 'require';

interface ListenTls {
  /** PEM text of the server's certificate chain and key. */
  cert: string;
  key: string;
  /** PEM text of the CA that signs the internal callers' certificates. */
  clientCa: string | undefined;
  clientAuth: ClientAuth;
  /** Under `optional`: the paths that need a verified client certificate. */
  internalPaths: string[];
}

/** TLS to a backing service: PEM text, and the name to verify when it is not the URL's host. */
interface ClientTls {
  ca?: string;
  cert?: string;
  key?: string;
  servername?: string;
}

export interface TlsSettings {
  /** HTTPS (undefined: plain HTTP). */
  listen: ListenTls | undefined;
  opa: ClientTls | undefined;
  database: ClientTls | undefined;
  redis: ClientTls | undefined;
}

/** The Prometheus scrape path: what needs a client certificate under `optional` by default. */

/** The values of the TLS block (config.ts's EnvSchema), as parsed there. */
export interface TlsVariables {
  AGENTGOV_TLS_CERT?: string | undefined;
  AGENTGOV_TLS_KEY?: string | undefined;
  AGENTGOV_TLS_CLIENT_CA?: string | undefined;
  AGENTGOV_TLS_CLIENT_AUTH?: ClientAuth | undefined;
  AGENTGOV_TLS_INTERNAL_PATHS?: string | undefined;
  OPA_TLS_CA?: string | undefined;
  OPA_TLS_CERT?: string | undefined;
  OPA_TLS_KEY?: string | undefined;
  OPA_TLS_SERVERNAME?: string | undefined;
  DATABASE_TLS_CA?: string | undefined;
  DATABASE_TLS_CERT?: string | undefined;
  DATABASE_TLS_KEY?: string | undefined;
  DATABASE_TLS_SERVERNAME?: string | undefined;
  REDIS_TLS_CA?: string | undefined;
  REDIS_TLS_CERT?: string | undefined;
  REDIS_TLS_KEY?: string | undefined;
  REDIS_TLS_SERVERNAME?: string | undefined;
}

type Variable = keyof TlsVariables;

/** What the services' URLs are (for the checks that TLS settings go with a URL that uses TLS). */
export interface ServiceUrls {
  opaUrl: string | undefined;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
}

/**
 * The TLS settings, or the list of problems (each naming its variable). Relative file names are
 * relative to `cwd`.
 */
export function tlsSettings(
  v: TlsVariables,
  urls: ServiceUrls,
  cwd: string,
): { settings: TlsSettings; problems: [] } | { settings: undefined; problems: string[] } {
  const problems: string[] = [];
  const files = new PemFiles(v, cwd, problems);

  // --- listening
  let listen: ListenTls | undefined;
  const certs = files.certificates('AGENTGOV_TLS_CERT');
  const key = files.key('AGENTGOV_TLS_KEY');
  const clientCa = files.certificates('AGENTGOV_TLS_CLIENT_CA');
  const clientAuth: ClientAuth =
    v.AGENTGOV_TLS_CLIENT_AUTH ?? (v.AGENTGOV_TLS_CLIENT_CA ? 'optional' : 'off');
  const internalPaths = internalPathsOf(v.AGENTGOV_TLS_INTERNAL_PATHS, problems);
  if (v.AGENTGOV_TLS_CERT || v.AGENTGOV_TLS_KEY) {
    pair(v, 'AGENTGOV_TLS_CERT', 'AGENTGOV_TLS_KEY', certs, key, problems);
    if (clientAuth !== 'off' && !v.AGENTGOV_TLS_CLIENT_CA)
      problems.push(
        `AGENTGOV_TLS_CLIENT_AUTH=${clientAuth} needs AGENTGOV_TLS_CLIENT_CA (the CA of the client certificates)`,
      );
    if (clientAuth === 'off' && v.AGENTGOV_TLS_CLIENT_CA)
      problems.push(
        'AGENTGOV_TLS_CLIENT_CA is set but AGENTGOV_TLS_CLIENT_AUTH=off: set it to optional or require, or unset the CA',
      );
    if (certs && key)
      listen = {
        cert: certs.pem,
        key: key.pem,
        clientCa: clientCa?.pem,
        clientAuth,
        internalPaths,
      };
  } else {
    for (const name of [
      'AGENTGOV_TLS_CLIENT_CA',
      'AGENTGOV_TLS_CLIENT_AUTH',
      'AGENTGOV_TLS_INTERNAL_PATHS',
    ] as const)
      if (v[name]) problems.push(`${name} needs HTTPS: set AGENTGOV_TLS_CERT and AGENTGOV_TLS_KEY`);
  }

  // --- outgoing
  const opa = client(files, v, 'OPA', urls.opaUrl, /^https:\/\//i, 'an https:// OPA_URL', problems);
  const database = client(
    files,
    v,
    'DATABASE',
    urls.databaseUrl,
    /^postgres(ql)?:\/\//i,
    'a postgres:// DATABASE_URL',
    problems,
  );
  const redis = client(files, v, 'REDIS', urls.redisUrl, /^rediss:\/\//i, 'a rediss:// REDIS_URL', problems);

  if (problems.length > 0) return { settings: undefined, problems };
  return { settings: { listen, opa, database, redis }, problems: [] };
}

/** Reads each file once, checking it is what its variable says; problems name the variable. */
class PemFiles {
  constructor(
    private readonly v: TlsVariables,
    private readonly cwd: string,
    private readonly problems: string[],
  ) {}

  #read(name: Variable): string | undefined {
    const file = this.v[name];
    if (!file) return undefined;
    try {
      return readFileSync(path.resolve(this.cwd, file), 'utf8');
    } catch (error) {
      const code = (error as { code?: string }).code;
      const why =
        code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'not readable' : String(code ?? error);
      this.problems.push(`${name}=${JSON.stringify(file)}: ${why}`);
      return undefined;
    }
  }

  /** One or more PEM certificates (a chain, or a CA bundle), leaf first. */
  certificates(name: Variable): { pem: string; first: X509Certificate } | undefined {
    const pem = this.#read(name);
    if (pem === undefined) return undefined;
    const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
    const file = JSON.stringify(this.v[name]);
    if (blocks.length === 0) {
      this.problems.push(
        `${name}=${file}: expected a PEM certificate (-----BEGIN CERTIFICATE-----), found none`,
      );
      return undefined;
    }
    const parsed: X509Certificate[] = [];
    for (const [i, block] of blocks.entries()) {
      try {
        parsed.push(new X509Certificate(block));
      } catch {
        this.problems.push(`${name}=${file}: certificate ${i + 1} of ${blocks.length} is not valid PEM`);
        return undefined;
      }
    }
    const first = parsed[0] as X509Certificate;
    if (Date.parse(first.validTo) < Date.now()) {
      this.problems.push(`${name}=${file}: the certificate expired on ${first.validTo}`);
      return undefined;
    }
    return { pem, first };
  }

  /** An unencrypted PEM private key. */
  key(name: Variable): { pem: string; object: KeyObject } | undefined {
    const pem = this.#read(name);
    if (pem === undefined) return undefined;
    const file = JSON.stringify(this.v[name]);
    if (/-----BEGIN ENCRYPTED PRIVATE KEY-----|Proc-Type: 4,ENCRYPTED/.test(pem)) {
      this.problems.push(
        `${name}=${file}: the key is encrypted; give an unencrypted PEM key (file mode 0600)`,
      );
      return undefined;
    }
    if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(pem)) {
      this.problems.push(
        `${name}=${file}: expected a PEM private key (-----BEGIN PRIVATE KEY-----), found none`,
      );
      return undefined;
    }
    try {
      return { pem, object: createPrivateKey(pem) };
    } catch {
      this.problems.push(`${name}=${file}: not a valid PEM private key`);
      return undefined;
    }
  }
}

/** A certificate and its key: both given, and the key is the certificate's. */
function pair(
  v: TlsVariables,
  certName: Variable,
  keyName: Variable,
  cert: { first: X509Certificate } | undefined,
  key: { object: KeyObject } | undefined,
  problems: string[],
): void {
  if (!v[certName] || !v[keyName]) {
    problems.push(
      `${v[certName] ? certName : keyName} needs ${v[certName] ? keyName : certName} (certificate and key together)`,
    );
    return;
  }
  if (cert && key && !cert.first.checkPrivateKey(key.object))
    problems.push(
      `${keyName}=${JSON.stringify(v[keyName])} is not the private key of ${certName}=${JSON.stringify(v[certName])}`,
    );
}

/** `<SERVICE>_TLS_*`: undefined when none is set; a problem when the service's URL does not use TLS. */
function client(
  files: PemFiles,
  v: TlsVariables,
  service: 'OPA' | 'DATABASE' | 'REDIS',
  url: string | undefined,
  tlsUrl: RegExp,
  wanted: string,
  problems: string[],
): ClientTls | undefined {
  const names = {
    ca: `${service}_TLS_CA`,
    cert: `${service}_TLS_CERT`,
    key: `${service}_TLS_KEY`,
    servername: `${service}_TLS_SERVERNAME`,
  } as const;
  const set = Object.values(names).filter((n) => v[n]);
  if (set.length === 0) return undefined;
  if (!url || !tlsUrl.test(url)) {
    problems.push(`${set.join(', ')} ${set.length > 1 ? 'need' : 'needs'} ${wanted}`);
    return undefined;
  }
  const ca = files.certificates(names.ca);
  const cert = files.certificates(names.cert);
  const key = files.key(names.key);
  if (v[names.cert] || v[names.key]) pair(v, names.cert, names.key, cert, key, problems);
  const servername = v[names.servername];
  if (
    servername !== undefined &&
    !/^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/.test(
      servername,
    )
  )
    problems.push(
      `${names.servername}=${JSON.stringify(servername)}: expected a host name (e.g. db.internal)`,
    );
  return {
    ...(ca ? { ca: ca.pem } : {}),
    ...(cert && key ? { cert: cert.pem, key: key.pem } : {}),
    ...(servername ? { servername } : {}),
  };
}

/** `AGENTGOV_TLS_INTERNAL_PATHS`: comma-separated absolute paths (default: the Prometheus path). */
function internalPathsOf(value: string | undefined, problems: string[]): string[] {
  if (value === undefined) return [...DEFAULT_INTERNAL_PATHS];
  const paths = value
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  const bad = paths.filter((p) => !/^\/[A-Za-z0-9\-._~/{}]*$/.test(p));
  if (paths.length === 0 || bad.length > 0)
    problems.push(
      `AGENTGOV_TLS_INTERNAL_PATHS=${JSON.stringify(value)}: expected absolute paths separated by commas (e.g. /api/v1/metrics/prometheus,/api/v1/mcp)`,
    );
  return paths;
}
