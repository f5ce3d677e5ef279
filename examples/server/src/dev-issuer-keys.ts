/**
 * What the development OIDC issuer (`./dev-issuer`) keeps across restarts, in its key file (a
 * private JWK and the port, mode 0600): the same signing key and issuer URL, so tokens printed by
 * an earlier run still verify after a restart. Without a key file, a new key per start.
 */
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';

interface Kept {
  jwk: JWK;
  port: number;
}

export async function readKept(keyFile: string | undefined): Promise<Kept | undefined> {
  if (!keyFile) return undefined;
  const saved = await readFile(keyFile, 'utf8').catch(() => undefined);
  if (saved === undefined) return undefined;
  const kept = JSON.parse(saved) as Partial<Kept>;
  return kept.jwk && typeof kept.port === 'number' ? (kept as Kept) : undefined;
}

/** The issuer's ES256 key: the kept one (with the port, in `keyFile`), else a new one, then kept. */
export async function signingKey(
  keyFile: string | undefined,
  kept: Kept | undefined,
  port: number,
): Promise<{ privateKey: CryptoKey; jwk: JWK }> {
  let jwk = kept?.jwk;
  let privateKey: CryptoKey;
  if (jwk) privateKey = (await importJWK(jwk, 'ES256')) as CryptoKey;
  else {
    ({ privateKey } = await generateKeyPair('ES256', { extractable: true }));
    const kid = `dev-es256-${randomBytes(4).toString('hex')}`;
    jwk = { ...(await exportJWK(privateKey)), kid, alg: 'ES256', use: 'sig' };
  }
  if (keyFile && kept?.port !== port)
    await writeFile(keyFile, JSON.stringify({ jwk, port }), { mode: 0o600 });
  return { privateKey, jwk };
}
