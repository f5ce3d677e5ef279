/**
 * Certificates made at test time with the `openssl` command (OpenSSL 1.1.1 or 3): a CA, a server
 * certificate for `localhost`, `127.0.0.1` and `::1`, a client certificate, and the same again
 * under a second, unrelated CA — for real TLS handshakes (a client from the wrong CA is refused,
 * a server from the wrong CA is not trusted). P-256 keys, valid for two days; PEM text and the
 * files they were written to (a temporary directory, `remove()` deletes it).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface TestKeyPair {
  /** PEM certificate and key, and the files holding them. */
  cert: string;
  key: string;
  certFile: string;
  keyFile: string;
}

export interface TestAuthority extends TestKeyPair {
  /** A server certificate for localhost, 127.0.0.1 and ::1. */
  server: TestKeyPair;
  /** A client certificate (extended key usage clientAuth). */
  client: TestKeyPair;
  /** A server certificate for `wrong.invalid` only: a peer whose name does not match. */
  wrongName: TestKeyPair;
}

export interface TestPki {
  /** The CA the tests trust. */
  ca: TestAuthority;
  /** A second CA nobody trusts. */
  other: TestAuthority;
  dir: string;
  remove(): void;
}

const LOCAL_NAMES = 'DNS:localhost,IP:127.0.0.1,IP:0:0:0:0:0:0:0:1';

/** Makes the certificates (a few hundred milliseconds); needs `openssl` on the PATH. */
export function createTestPki(): TestPki {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentgov-pki-'));
  try {
    const ca = authority(dir, 'ca', 'agentgov test CA');
    const other = authority(dir, 'other', 'unrelated test CA');
    return { ca, other, dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
}

function keyPair(dir: string, name: string): TestKeyPair {
  const certFile = path.join(dir, `${name}.crt`);
  const keyFile = path.join(dir, `${name}.key`);
  return { certFile, keyFile, cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
}

/** `openssl req` arguments for a new, unencrypted P-256 key (every certificate here has one). */
const NEW_P256_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];

function authority(dir: string, name: string, cn: string): TestAuthority {
  openssl(dir, [
    'req',
    '-x509',
    ...NEW_P256_KEY,
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.crt`,
    '-days',
    '2',
    '-subj',
    `/CN=${cn}`,
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  return {
    ...keyPair(dir, name),
    server: leaf(
      dir,
      name,
      `${name}-server`,
      'localhost',
      `subjectAltName=${LOCAL_NAMES}\nextendedKeyUsage=serverAuth`,
    ),
    client: leaf(dir, name, `${name}-client`, 'metrics-scraper', 'extendedKeyUsage=clientAuth'),
    wrongName: leaf(
      dir,
      name,
      `${name}-wrong-name`,
      'wrong.invalid',
      'subjectAltName=DNS:wrong.invalid\nextendedKeyUsage=serverAuth',
    ),
  };
}

function leaf(dir: string, ca: string, name: string, cn: string, extensions: string): TestKeyPair {
  writeFileSync(
    path.join(dir, `${name}.ext`),
    `basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\n${extensions}\n`,
  );
  openssl(dir, [
    'req',
    ...NEW_P256_KEY,
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.csr`,
    '-subj',
    `/CN=${cn}`,
  ]);
  openssl(dir, [
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    `${ca}.crt`,
    '-CAkey',
    `${ca}.key`,
    '-CAcreateserial',
    '-out',
    `${name}.crt`,
    '-days',
    '2',
    '-extfile',
    `${name}.ext`,
  ]);
  return keyPair(dir, name);
}
