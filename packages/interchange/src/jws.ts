/**
 * Compact JWS on node:crypto, synchronous: the envelopes and caller tokens are signed and verified
 * on the main thread with KeyObjects converted once per key, instead of WebCrypto's promises (each
 * ES256 operation there is a round trip through the libuv thread pool — several per A2A round
 * trip). ES256/ES384/ES512 (IEEE P1363 signatures, the JWS form) and EdDSA (Ed25519) are handled
 * here; any other algorithm falls back to jose. Verification checks the header's `alg` against
 * the key's type and curve (no algorithm confusion), refuses `crit`, and accepts only the
 * canonical base64url form of the signature, so no two strings verify as the same signature.
 */
import { createPublicKey, KeyObject, sign, verify } from 'node:crypto';
import { CompactSign, compactVerify, type JWK } from 'jose';
import type { VerifyKey } from './keys';

interface Alg {
  hash: string | null;
  /** asymmetricKeyType of the key. */
  type: 'ec' | 'ed25519';
  /** EC curve the algorithm requires. */
  curve?: string;
}

const ALGS: Readonly<Record<string, Alg>> = {
  ES256: { hash: 'sha256', type: 'ec', curve: 'prime256v1' },
  ES384: { hash: 'sha384', type: 'ec', curve: 'secp384r1' },
  ES512: { hash: 'sha512', type: 'ec', curve: 'secp521r1' },
  EdDSA: { hash: null, type: 'ed25519' },
  Ed25519: { hash: null, type: 'ed25519' },
};

export class JwsInvalidError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JwsInvalidError';
  }
}

const privateObjects = new WeakMap<object, KeyObject>();
const publicObjects = new WeakMap<object, KeyObject>();

const fits = (k: KeyObject, alg: Alg): boolean =>
  k.asymmetricKeyType === alg.type &&
  (alg.curve === undefined || k.asymmetricKeyDetails?.namedCurve === alg.curve);

function privateObject(key: CryptoKey | KeyObject): KeyObject {
  if (key instanceof KeyObject) return key;
  let k = privateObjects.get(key);
  if (!k) {
    k = KeyObject.from(key);
    privateObjects.set(key, k);
  }
  return k;
}

/** The KeyObject of a verification key, converted once per key object; undefined for symmetric keys. */
function publicObject(key: VerifyKey | KeyObject): KeyObject | undefined {
  if (key instanceof KeyObject) return key.type === 'secret' ? undefined : key;
  if (key instanceof Uint8Array) return undefined;
  let k = publicObjects.get(key);
  if (!k) {
    if (isCryptoKey(key)) k = KeyObject.from(key);
    else {
      const { d: _private, ...pub } = key as JWK;
      k = pub.kty === 'oct' ? undefined : createPublicKey({ key: pub as never, format: 'jwk' });
    }
    if (!k || k.type === 'secret') return undefined;
    if (k.type === 'private') k = createPublicKey(k);
    publicObjects.set(key, k);
  }
  return k;
}

const isCryptoKey = (k: unknown): k is CryptoKey =>
  typeof k === 'object' &&
  k !== null &&
  (k as { [Symbol.toStringTag]?: string })[Symbol.toStringTag] === 'CryptoKey';

const b64 = (s: string | Uint8Array) => Buffer.from(s).toString('base64url');

/** base64url of a header's JSON, remembered (a node signs with a handful of headers). */
const headers = new Map<string, string>();
function encodedHeader(header: object): string {
  const json = JSON.stringify(header);
  let encoded = headers.get(json);
  if (encoded === undefined) {
    encoded = b64(json);
    if (headers.size >= 64) headers.clear();
    headers.set(json, encoded);
  }
  return encoded;
}

/**
 * `signCompact` on node:crypto, synchronously; undefined when jose signs instead (another
 * algorithm, a key that does not fit it): then `signCompact` does.
 */
export function signCompactSync(
  header: { alg: string; kid?: string; typ?: string },
  payload: string,
  privateKey: CryptoKey | KeyObject,
): string | undefined {
  const alg = ALGS[header.alg];
  const key = alg ? privateObject(privateKey) : undefined;
  if (!alg || !key || !fits(key, alg)) return undefined;
  const input = `${encodedHeader(header)}.${b64(payload)}`;
  const signature = sign(alg.hash, Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' });
  return `${input}.${signature.toString('base64url')}`;
}

/** A compact JWS of `payload` with `header` (which must name `alg`). */
export async function signCompact(
  header: { alg: string; kid?: string; typ?: string },
  payload: string,
  privateKey: CryptoKey | KeyObject,
): Promise<string> {
  return (
    signCompactSync(header, payload, privateKey) ??
    new CompactSign(new TextEncoder().encode(payload))
      .setProtectedHeader(header)
      .sign(privateKey instanceof KeyObject ? (privateKey as never) : privateKey)
  );
}

/** The protected header of a compact JWS, or undefined when it is not one. */
export function protectedHeader(jws: string): Record<string, unknown> | undefined {
  const dot = jws.indexOf('.');
  if (dot <= 0) return undefined;
  try {
    const h = JSON.parse(Buffer.from(jws.slice(0, dot), 'base64url').toString('utf8')) as unknown;
    return typeof h === 'object' && h !== null && !Array.isArray(h)
      ? (h as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Verifies a compact JWS with `key`; returns the payload bytes or throws JwsInvalidError.
 * `header`: its protected header when the caller has already read it (`protectedHeader(jws)`).
 */
export async function verifyCompact(
  jws: string,
  key: VerifyKey | KeyObject,
  header: Record<string, unknown> | undefined = protectedHeader(jws),
): Promise<Uint8Array> {
  const payload = verifyCompactSync(jws, key, header);
  if (payload) return payload;
  // Other algorithms (and symmetric keys) go through jose, which checks them itself.
  try {
    return (await compactVerify(jws, key as never)).payload;
  } catch {
    throw new JwsInvalidError('signature verification failed');
  }
}

/**
 * `verifyCompact` on node:crypto, synchronously: the payload bytes, a JwsInvalidError thrown, or
 * undefined when jose verifies instead (another algorithm, a symmetric key): then `verifyCompact`.
 */
export function verifyCompactSync(
  jws: string,
  key: VerifyKey | KeyObject,
  header: Record<string, unknown> | undefined,
): Uint8Array | undefined {
  // Exactly three segments (two dots): what `jws.split('.')` would give, without the array.
  const d1 = jws.indexOf('.');
  const d2 = d1 < 0 ? -1 : jws.indexOf('.', d1 + 1);
  if (d2 < 0 || jws.indexOf('.', d2 + 1) !== -1) throw new JwsInvalidError('not a compact JWS');
  const p = jws.slice(d1 + 1, d2);
  const s = jws.slice(d2 + 1);
  if (!header || typeof header.alg !== 'string') throw new JwsInvalidError('invalid protected header');
  if (header.crit !== undefined || header.b64 !== undefined)
    throw new JwsInvalidError('unsupported header parameters');
  const alg = ALGS[header.alg];
  const k = alg ? publicObject(key) : undefined;
  if (!alg || !k) return undefined;
  if (!fits(k, alg)) throw new JwsInvalidError('the key does not fit the algorithm');
  const signature = Buffer.from(s, 'base64url');
  if (signature.toString('base64url') !== s)
    throw new JwsInvalidError('signature is not canonical base64url');
  const payload = Buffer.from(p, 'base64url');
  if (payload.toString('base64url') !== p) throw new JwsInvalidError('payload is not canonical base64url');
  let ok = false;
  try {
    // The signing input `h.p`: the JWS up to its second dot.
    const input = Buffer.from(jws.slice(0, d2));
    ok = verify(alg.hash, input, { key: k, dsaEncoding: 'ieee-p1363' }, signature);
  } catch {
    ok = false;
  }
  if (!ok) throw new JwsInvalidError('signature verification failed');
  return payload;
}
