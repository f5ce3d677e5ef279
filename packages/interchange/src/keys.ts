/**
 * Keys and nonces. Every agent signs with its own key; the other side resolves the public key by
 * `(tenantId, agentId)` through the KeyResolver port (a JWKS endpoint, a secret store, a key ring).
 * An agent acts for exactly one user: the registered key is bound to its tenant, its agent (the
 * `kid`) and its user (the JWK member `userId`, or the binding given at registration), and an
 * envelope is accepted only when it names the user its key is bound to. The ReplayGuard remembers
 * envelope ids (`jti`) until they expire.
 */
import { Heap } from 'heap-js';
import { exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';

export type VerifyKey = CryptoKey | JWK | Uint8Array;

/** A JWK of an agent key, with the member `userId` naming the user the agent acts for. */
export type AgentJwk = JWK & { userId?: string };

/**
 * A registered public key and the one user its agent acts for. `userId` undefined: the key is
 * bound to no user — its envelopes are refused (`user_unbound`): the envelope never chooses the user.
 */
export interface AgentKey {
  key: VerifyKey;
  userId: string | undefined;
}

export interface KeyResolver {
  /** The public key of an agent and the user it is bound to, or undefined when the agent is unknown. */
  publicKey(tenantId: string, agentId: string): Promise<AgentKey | undefined>;
}

/** A private signing key of one agent. */
export interface SigningKey {
  tenantId: string;
  agentId: string;
  /** The user the agent acts for (a node refuses a key bound to another user than its own). */
  userId?: string;
  /** JWS algorithm (ES256 by default). */
  alg: string;
  privateKey: CryptoKey;
}

/** Characters `encodeURIComponent` leaves as they are: a string of only these is its own encoding. */
const UNRESERVED = /^[A-Za-z0-9\-_.!~*'()]*$/;
const encode = (s: string): string => (UNRESERVED.test(s) ? s : encodeURIComponent(s));

/** The key id of an agent: `<tenantId>/<agentId>` (each part URI-encoded). */
export const keyId = (tenantId: string, agentId: string): string => `${encode(tenantId)}/${encode(agentId)}`;

export function parseKeyId(kid: string): { tenantId: string; agentId: string } | undefined {
  const parts = kid.split('/');
  if (parts.length !== 2 || !parts[0] || !parts[1]) return undefined;
  // Without a `%`, decodeURIComponent returns its input (it only ever reads escapes).
  if (!kid.includes('%')) return { tenantId: parts[0], agentId: parts[1] };
  try {
    return { tenantId: decodeURIComponent(parts[0]), agentId: decodeURIComponent(parts[1]) };
  } catch {
    return undefined;
  }
}

/** The user a JWK is bound to (its `userId` member), undefined when none; throws on a malformed one. */
function jwkUser(jwk: { userId?: unknown }): string | undefined {
  const user = jwk.userId;
  if (user === undefined) return undefined;
  if (typeof user !== 'string' || user.length === 0 || user.length > 255)
    throw new Error("a JWK's userId must be a non-empty string of at most 255 characters");
  return user;
}

export interface AgentKeyPair {
  signingKey: SigningKey;
  publicJwk: AgentJwk;
  privateJwk: AgentJwk;
}

/**
 * A new key pair for an agent acting for `userId` (extractable, so it can be stored; ES256 unless
 * `alg` says otherwise). Both JWKs carry `kid` `<tenantId>/<agentId>` and the member `userId`.
 */
export async function generateAgentKeys(
  tenantId: string,
  agentId: string,
  options: { userId: string; alg?: string },
): Promise<AgentKeyPair> {
  const alg = options.alg ?? 'ES256';
  const { userId } = options;
  jwkUser({ userId });
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const kid = keyId(tenantId, agentId);
  return {
    signingKey: { tenantId, agentId, userId, alg, privateKey },
    publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig', userId },
    privateJwk: { ...(await exportJWK(privateKey)), kid, alg, userId },
  };
}

/** A signing key from a stored private JWK (its `kid` names the agent, its `userId` the user). */
export async function signingKeyFromJwk(jwk: AgentJwk): Promise<SigningKey> {
  const id = jwk.kid ? parseKeyId(jwk.kid) : undefined;
  if (!id) throw new Error('the private JWK has no kid of the form <tenantId>/<agentId>');
  const alg = jwk.alg ?? 'ES256';
  const userId = jwkUser(jwk);
  return {
    ...id,
    ...(userId !== undefined ? { userId } : {}),
    alg,
    privateKey: (await importJWK(jwk, alg)) as CryptoKey,
  };
}

/**
 * Public keys held in memory (or loaded from a JWKS file), by `(tenantId, agentId)`, each bound to
 * its user: the JWK's `userId` member, or `binding.userId` given to `add` (both given must agree).
 * A key added without a user is kept (it still verifies the agent's card and caller tokens) but
 * its envelopes are refused.
 */
export class KeyRing implements KeyResolver {
  readonly #keys = new Map<string, AgentJwk>();
  /** Imported keys: importing a JWK costs more than verifying with it. */
  readonly #imported = new Map<string, Promise<CryptoKey | Uint8Array>>();
  add(jwk: AgentJwk, binding?: { userId: string }): this {
    if (!jwk.kid || !parseKeyId(jwk.kid))
      throw new Error('a public JWK needs a kid of the form <tenantId>/<agentId>');
    const own = jwkUser(jwk);
    const userId = binding ? jwkUser({ userId: binding.userId }) : own;
    if (own !== undefined && userId !== own)
      throw new Error(`the JWK ${jwk.kid} is bound to user ${own}, not ${String(userId)}`);
    const { d: _private, userId: _user, ...publicOnly } = jwk;
    this.#keys.set(jwk.kid, userId !== undefined ? { ...publicOnly, userId } : publicOnly);
    this.#imported.delete(jwk.kid);
    this.#ready.delete(jwk.kid);
    return this;
  }
  /** The imported keys once their import settled (the same objects, without awaiting again). */
  readonly #ready = new Map<string, CryptoKey | Uint8Array>();
  async publicKey(tenantId: string, agentId: string): Promise<AgentKey | undefined> {
    const kid = keyId(tenantId, agentId);
    const jwk = this.#keys.get(kid);
    if (!jwk) return undefined;
    const ready = this.#ready.get(kid);
    if (ready) return { key: ready, userId: jwk.userId };
    let imported = this.#imported.get(kid);
    if (!imported) {
      imported = importJWK(jwk, jwk.alg ?? 'ES256');
      this.#imported.set(kid, imported);
    }
    const key = await imported;
    // Remembered only while it is still this key's import (`add` may have replaced the key).
    if (this.#imported.get(kid) === imported) this.#ready.set(kid, key);
    return { key, userId: jwk.userId };
  }
  /** The keys as a JWKS document (each with its `userId` when bound). */
  jwks(): { keys: AgentJwk[] } {
    return { keys: [...this.#keys.values()] };
  }
}

/** Remembers each envelope id until it expires; `consume` is true only the first time. */
export interface ReplayGuard {
  consume(jti: string, expiresAtMs: number, nowMs: number): Promise<boolean>;
}

/** An id of the replay guard and the expiry it was set with. */
interface Expiry {
  jti: string;
  exp: number;
}

/** In-memory ReplayGuard, bounded: expired ids are dropped, and at `maxEntries` new ids are refused. */
export class InMemoryReplayGuard implements ReplayGuard {
  readonly #seen = new Map<string, number>();
  readonly #max: number;
  /**
   * Every id set with a comparable expiry, earliest first (heap-js's binary heap): a full guard
   * drops what has expired by popping it, not by scanning every id. A record whose id was set
   * again since is left behind and skipped (its id holds another expiry, or none).
   */
  readonly #heap = new Heap<Expiry>((a, b) => (a.exp < b.exp ? -1 : a.exp > b.exp ? 1 : 0));
  constructor(maxEntries = 100_000) {
    this.#max = maxEntries;
  }
  async consume(jti: string, expiresAtMs: number, nowMs: number): Promise<boolean> {
    if (this.#seen.size >= this.#max) this.#dropExpired(nowMs);
    const known = this.#seen.get(jti);
    if (known !== undefined && known > nowMs) return false;
    // Full of live ids: refuse rather than forget one (an id forgotten early could be replayed).
    if (this.#seen.size >= this.#max) return false;
    this.#seen.set(jti, expiresAtMs);
    // NaN never expires (`exp <= now` is false): it is never dropped, so never queued.
    if (!Number.isNaN(expiresAtMs)) this.#heap.push({ jti, exp: expiresAtMs });
    // Ids set again leave records behind: past twice the ids held, keep only the current ones.
    if (this.#heap.length > 2 * this.#seen.size + 8) {
      const current: Expiry[] = [];
      for (const [id, exp] of this.#seen) if (!Number.isNaN(exp)) current.push({ jti: id, exp });
      this.#heap.init(current);
    }
    return true;
  }
  /** Deletes exactly the ids whose expiry is at or before `nowMs` (what a full scan deletes). */
  #dropExpired(nowMs: number): void {
    const heap = this.#heap;
    for (let top = heap.peek(); top !== undefined && top.exp <= nowMs; top = heap.peek()) {
      heap.pop();
      if (this.#seen.get(top.jti) === top.exp) this.#seen.delete(top.jti);
    }
  }
}
