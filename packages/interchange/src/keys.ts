/**
 * Keys and nonces. Every agent signs with its own key; the other side resolves the public key by
 * `(tenantId, agentId)` through the KeyResolver port (a JWKS endpoint, a secret store, a key ring).
 * The ReplayGuard remembers envelope ids (`jti`) until they expire.
 */
import { exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';

export type VerifyKey = CryptoKey | JWK | Uint8Array;

export interface KeyResolver {
  /** The public key of an agent, or undefined when the agent is unknown. */
  publicKey(tenantId: string, agentId: string): Promise<VerifyKey | undefined>;
}

/** A private signing key of one agent. */
export interface SigningKey {
  tenantId: string;
  agentId: string;
  /** JWS algorithm (ES256 by default). */
  alg: string;
  privateKey: CryptoKey;
}

/** The key id of an agent: `<tenantId>/<agentId>` (each part URI-encoded). */
export const keyId = (tenantId: string, agentId: string): string =>
  `${encodeURIComponent(tenantId)}/${encodeURIComponent(agentId)}`;

export function parseKeyId(kid: string): { tenantId: string; agentId: string } | undefined {
  const parts = kid.split('/');
  if (parts.length !== 2 || !parts[0] || !parts[1]) return undefined;
  try {
    return { tenantId: decodeURIComponent(parts[0]), agentId: decodeURIComponent(parts[1]) };
  } catch {
    return undefined;
  }
}

export interface AgentKeyPair {
  signingKey: SigningKey;
  publicJwk: JWK;
  privateJwk: JWK;
}

/** A new ES256 key pair for an agent (extractable, so it can be stored). */
export async function generateAgentKeys(
  tenantId: string,
  agentId: string,
  alg = 'ES256',
): Promise<AgentKeyPair> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const kid = keyId(tenantId, agentId);
  return {
    signingKey: { tenantId, agentId, alg, privateKey },
    publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' },
    privateJwk: { ...(await exportJWK(privateKey)), kid, alg },
  };
}

/** A signing key from a stored private JWK (its `kid` names the agent). */
export async function signingKeyFromJwk(jwk: JWK): Promise<SigningKey> {
  const id = jwk.kid ? parseKeyId(jwk.kid) : undefined;
  if (!id) throw new Error('the private JWK has no kid of the form <tenantId>/<agentId>');
  const alg = jwk.alg ?? 'ES256';
  return { ...id, alg, privateKey: (await importJWK(jwk, alg)) as CryptoKey };
}

/** Public keys held in memory (or loaded from a JWKS file), by `(tenantId, agentId)`. */
export class KeyRing implements KeyResolver {
  readonly #keys = new Map<string, JWK>();
  /** Imported keys: importing a JWK costs more than verifying with it. */
  readonly #imported = new Map<string, Promise<CryptoKey | Uint8Array>>();
  add(jwk: JWK): this {
    if (!jwk.kid || !parseKeyId(jwk.kid))
      throw new Error('a public JWK needs a kid of the form <tenantId>/<agentId>');
    const { d: _private, ...publicOnly } = jwk;
    this.#keys.set(jwk.kid, publicOnly);
    this.#imported.delete(jwk.kid);
    return this;
  }
  async publicKey(tenantId: string, agentId: string): Promise<VerifyKey | undefined> {
    const kid = keyId(tenantId, agentId);
    const jwk = this.#keys.get(kid);
    if (!jwk) return undefined;
    let imported = this.#imported.get(kid);
    if (!imported) {
      imported = importJWK(jwk, jwk.alg ?? 'ES256');
      this.#imported.set(kid, imported);
    }
    return imported;
  }
  /** The keys as a JWKS document. */
  jwks(): { keys: JWK[] } {
    return { keys: [...this.#keys.values()] };
  }
}

/** Remembers each envelope id until it expires; `consume` is true only the first time. */
export interface ReplayGuard {
  consume(jti: string, expiresAtMs: number, nowMs: number): Promise<boolean>;
}

/** In-memory ReplayGuard, bounded: expired ids are dropped, and at `maxEntries` new ids are refused. */
export class InMemoryReplayGuard implements ReplayGuard {
  readonly #seen = new Map<string, number>();
  readonly #max: number;
  constructor(maxEntries = 100_000) {
    this.#max = maxEntries;
  }
  async consume(jti: string, expiresAtMs: number, nowMs: number): Promise<boolean> {
    if (this.#seen.size >= this.#max) {
      for (const [id, exp] of this.#seen) if (exp <= nowMs) this.#seen.delete(id);
    }
    const known = this.#seen.get(jti);
    if (known !== undefined && known > nowMs) return false;
    // Full of live ids: refuse rather than forget one (an id forgotten early could be replayed).
    if (this.#seen.size >= this.#max) return false;
    this.#seen.set(jti, expiresAtMs);
    return true;
  }
}
