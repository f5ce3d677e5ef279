/**
 * OIDC: ID-token and bearer-token verification with jose against the issuer's discovery document
 * and JWKS (with a cache of verified bearer tokens emptied whenever the issuer's key set changes),
 * and the authorization-code sign-in (`./oidc-exchange`, with oauth4webapi). Both fail closed with
 * the spec's error codes. The configuration and its start-up check are in `./oidc-config`.
 *
 * Over 300 lines on purpose: verification, the token cache and the code exchange share the issuer
 * discovery, the JWKS cache and its key-set generation; one class keeps every path that accepts a
 * credential together.
 */
import { GovernanceError } from '@agentgov/core';
import {
  createRemoteJWKSet,
  customFetch,
  decodeProtectedHeader,
  type JWTPayload,
  errors as joseErrors,
  jwtVerify,
} from 'jose';
import { LRUCache } from 'lru-cache';
import * as oauth from 'oauth4webapi';
import {
  ASYMMETRIC_ALGORITHMS,
  checkOidcConfig,
  DEFAULT_CLOCK_TOLERANCE_SECONDS,
  isLoopback,
  type OidcConfig,
} from './oidc-config';
import { authorizationUrl, describe, exchangeFailed, requestIdToken } from './oidc-exchange';
import { tokenKeys } from './token-key';

export { ASYMMETRIC_ALGORITHMS, type OidcConfig, OidcConfigError } from './oidc-config';

export interface VerifiedIdToken {
  claims: JWTPayload & Record<string, unknown>;
}

/** A verified bearer token: an ID token, or an RFC 9068 JWT access token. */
export interface VerifiedBearerToken extends VerifiedIdToken {
  kind: 'id_token' | 'access_token';
}

interface CachedToken {
  /** What a hit answers (frozen: every hit hands out this same object). */
  readonly verified: Readonly<VerifiedBearerToken>;
  /**
   * When the entry stops being used (ms): the token's `exp`, or `tokenCache.ttlMs` after it was
   * cached if that comes first. Checked on every read (the LRU keeps no ttl of its own: its ttl
   * bookkeeping starts a timer on reads).
   */
  readonly untilMs: number;
}

/** RFC 9068 section 2.1: `typ` `at+jwt` (or its long form) marks a JWT access token. */
function isAccessTokenType(typ: unknown): boolean {
  if (typeof typ !== 'string') return false;
  const t = typ.toLowerCase();
  return t === 'at+jwt' || t === 'application/at+jwt';
}

const invalid = (detail: string) =>
  new GovernanceError('invalid_token', 'OIDC token validation failed', { detail });

export class OidcClient {
  readonly config: OidcConfig;
  readonly #issuer: URL;
  readonly #algorithms: string[];
  readonly #insecure: boolean;
  #as: Promise<oauth.AuthorizationServer> | undefined;
  #jwks: ReturnType<typeof createRemoteJWKSet> | undefined;
  readonly #cache: LRUCache<string, CachedToken> | undefined;
  /** The cache key of a token (its SHA-256; the last token's kept, see ./token-key.ts). */
  readonly #keyOf = tokenKeys();
  /** How long a verification is cached at most (`tokenCache.ttlMs`). */
  readonly #cacheTtlMs: number = 0;
  /** Fingerprint of the last key set fetched from the issuer; a new one empties the cache. */
  #keySetFingerprint: string | undefined;
  /** Bumped each time the key set changes, so a verification that straddles it is not cached. */
  #keySetGeneration = 0;

  constructor(config: OidcConfig) {
    this.config = config;
    this.#issuer = checkOidcConfig(config);
    const allowed = new Set<string>(ASYMMETRIC_ALGORITHMS);
    const algs = [...(config.algorithms ?? ASYMMETRIC_ALGORITHMS)];
    for (const a of algs) {
      if (!allowed.has(a)) throw new Error(`OIDC algorithm ${a} is not an allowed asymmetric algorithm`);
    }
    this.#algorithms = algs;
    this.#insecure = config.allowInsecureRequests ?? isLoopback(this.#issuer);
    if (this.#issuer.protocol !== 'https:' && !this.#insecure) {
      throw new Error('OIDC issuer must use https (set allowInsecureRequests for development issuers)');
    }
    if (config.tokenCache !== false) {
      const max = config.tokenCache?.max ?? 10_000;
      const ttl = config.tokenCache?.ttlMs ?? 300_000;
      if (!(Number.isInteger(max) && max > 0) || !(Number.isFinite(ttl) && ttl > 0))
        throw new Error('oidc.tokenCache: max must be a positive integer and ttlMs a positive number');
      this.#cache = new LRUCache<string, CachedToken>({ max });
      this.#cacheTtlMs = ttl;
    }
  }

  /** How many verified tokens are cached (for tests and metrics). */
  get cachedTokens(): number {
    return this.#cache?.size ?? 0;
  }

  /** Forgets every cached verification (key rotation; also available to operators). */
  clearTokenCache(): void {
    this.#cache?.clear();
  }

  /** Forgets the cached verifications of one user's tokens (logout, session revocation). */
  forgetUser(tenantId: string, userId: string): void {
    if (!this.#cache) return;
    for (const [key, entry] of this.#cache.entries()) {
      if (entry.verified.claims.sub === userId && entry.verified.claims.tenant_id === tenantId)
        this.#cache.delete(key);
    }
  }

  /** Every JWKS response passes here: a key set unlike the last one empties the token cache. */
  async #fetchJwks(url: string, init: RequestInit): Promise<Response> {
    const response = await fetch(url, init);
    if (response.ok) {
      try {
        const body = (await response.clone().json()) as { keys?: unknown };
        const keys = Array.isArray(body.keys) ? body.keys : [];
        const fingerprint = keys
          .map((k) => JSON.stringify(k, Object.keys((k ?? {}) as object).sort()))
          .sort()
          .join('\n');
        if (fingerprint !== this.#keySetFingerprint) {
          if (this.#keySetFingerprint !== undefined) {
            this.#keySetGeneration++;
            this.#cache?.clear();
          }
          this.#keySetFingerprint = fingerprint;
        }
      } catch {
        // Not JSON: jose refuses it; nothing cached is trusted less or more for it.
        this.#keySetGeneration++;
        this.#cache?.clear();
      }
    }
    return response;
  }

  /** The issuer's metadata (discovery), fetched once; a failed fetch is retried on the next call. */
  discover(): Promise<oauth.AuthorizationServer> {
    if (!this.#as) {
      const p = (async () => {
        const res = await oauth.discoveryRequest(this.#issuer, {
          algorithm: 'oidc',
          [oauth.allowInsecureRequests]: this.#insecure,
          signal: AbortSignal.timeout(10_000),
        });
        return oauth.processDiscoveryResponse(this.#issuer, res);
      })();
      this.#as = p;
      p.catch(() => {
        if (this.#as === p) this.#as = undefined;
      });
    }
    return this.#as;
  }

  async #keys(): Promise<ReturnType<typeof createRemoteJWKSet>> {
    if (!this.#jwks) {
      const as = await this.discover();
      if (!as.jwks_uri) throw new Error('the issuer publishes no jwks_uri');
      this.#jwks = createRemoteJWKSet(new URL(as.jwks_uri), {
        cooldownDuration: this.config.jwksCooldownMs ?? 30_000,
        timeoutDuration: 10_000,
        [customFetch]: (url: string, init: RequestInit) => this.#fetchJwks(url, init),
      });
    }
    return this.#jwks;
  }

  /**
   * Verifies an ID token: signature against the issuer's JWKS (refetched on an unknown `kid`),
   * `iss`, `aud` = client id, exp/nbf with leeway, algorithm allow-list.
   * Throws `invalid_token` (401) or, when the issuer cannot be reached, `service_unavailable` (503).
   */
  async verifyIdToken(token: string, options: { nonce?: string } = {}): Promise<VerifiedIdToken> {
    return this.#verify(token, 'id_token', options);
  }

  /**
   * Verifies a bearer token: an RFC 9068 access token (`typ: at+jwt`; `aud` = `accessTokenAudience`,
   * default the client id) or else an ID token (as `verifyIdToken`). Both are checked against the
   * issuer's published keys; a token that is not a JWT (an opaque access token) is refused.
   *
   * A verified token is cached (SHA-256 of the token → claims) until its `exp`, at most
   * `tokenCache.ttlMs`. The cache never outlives what verification would answer: it is emptied
   * when the issuer's key set changes (every JWKS fetch is compared with the last), and it is not
   * used once jose's copy of the key set is older than its `cacheMaxAge` — that request verifies
   * in full, refetching the keys.
   */
  async verifyBearer(token: string): Promise<VerifiedBearerToken> {
    const cached = this.cachedBearer(token);
    if (cached) return cached;
    const cache = this.#cache;
    const key = cache ? this.#keyOf(token) : '';
    let kind: VerifiedBearerToken['kind'] = 'id_token';
    try {
      kind = isAccessTokenType(decodeProtectedHeader(token).typ) ? 'access_token' : 'id_token';
    } catch {
      throw invalid('not a JWT: only ID tokens and JWT access tokens (RFC 9068) are accepted');
    }
    const generation = this.#keySetGeneration;
    const { claims } = await this.#verify(token, kind, {});
    if (cache && generation === this.#keySetGeneration && typeof claims.exp === 'number') {
      const now = Date.now();
      const untilMs = Math.min(claims.exp * 1000, now + this.#cacheTtlMs);
      if (untilMs > now) cache.set(key, { verified: Object.freeze({ kind, claims }), untilMs });
    }
    return { kind, claims };
  }

  /**
   * The cached verification of `token` (as `verifyBearer` would answer it), without any I/O; none
   * when there is no cache, the token is not in it or has expired, or the key set is not fresh.
   * Every hit of one entry answers the same frozen object.
   */
  cachedBearer(token: string): VerifiedBearerToken | undefined {
    const cache = this.#cache;
    if (!cache || !this.#jwks?.fresh) return undefined;
    const key = this.#keyOf(token);
    const hit = cache.get(key);
    if (!hit) return undefined;
    if (hit.untilMs > Date.now()) return hit.verified;
    cache.delete(key);
    return undefined;
  }

  async #verify(
    token: string,
    kind: VerifiedBearerToken['kind'],
    options: { nonce?: string },
  ): Promise<VerifiedIdToken> {
    let keys: ReturnType<typeof createRemoteJWKSet>;
    try {
      keys = await this.#keys();
    } catch (error) {
      throw new GovernanceError('service_unavailable', 'The identity provider cannot be reached', {
        cause: error,
      });
    }
    try {
      const access = kind === 'access_token';
      const { payload, protectedHeader } = await jwtVerify(token, keys, {
        issuer: this.config.issuer,
        audience: access ? (this.config.accessTokenAudience ?? this.config.clientId) : this.config.clientId,
        algorithms: this.#algorithms,
        clockTolerance: this.config.clockToleranceSeconds ?? DEFAULT_CLOCK_TOLERANCE_SECONDS,
        requiredClaims: access ? ['exp', 'iat', 'sub', 'client_id'] : ['exp', 'iat', 'sub'],
      });
      // An access token is never taken for an ID token (or the reverse): its `typ` decides the
      // audience checked, so the code exchange (ID tokens only) refuses one.
      if (isAccessTokenType(protectedHeader.typ) !== access) {
        throw invalid(
          access ? 'not an access token (typ)' : 'an access token is not an ID token (typ at+jwt)',
        );
      }
      const tolerance = this.config.clockToleranceSeconds ?? DEFAULT_CLOCK_TOLERANCE_SECONDS;
      if (typeof payload.iat === 'number' && payload.iat > Date.now() / 1000 + tolerance) {
        throw new GovernanceError('invalid_token', 'OIDC token validation failed', {
          detail: 'the token was issued in the future (iat)',
        });
      }
      if (access) return { claims: payload as JWTPayload & Record<string, unknown> };
      // OIDC Core 3.1.3.7: several audiences need `azp`, and `azp`, when present, is this client.
      if (Array.isArray(payload.aud) && payload.aud.length > 1 && payload.azp === undefined) {
        throw new GovernanceError('invalid_token', 'OIDC token validation failed', {
          detail: 'a token for several audiences must name its authorized party (azp)',
        });
      }
      if (payload.azp !== undefined && payload.azp !== this.config.clientId) {
        throw new GovernanceError('invalid_token', 'OIDC token validation failed', {
          detail: 'the token was issued to another client (azp)',
        });
      }
      if (options.nonce !== undefined && payload.nonce !== options.nonce) {
        throw new GovernanceError('invalid_token', 'OIDC token validation failed', {
          detail: 'nonce mismatch',
        });
      }
      return { claims: payload as JWTPayload & Record<string, unknown> };
    } catch (error) {
      if (error instanceof GovernanceError) throw error;
      if (
        error instanceof joseErrors.JWKSTimeout ||
        (error instanceof TypeError && /fetch/i.test(error.message))
      ) {
        throw new GovernanceError('service_unavailable', 'The identity provider cannot be reached', {
          cause: error,
        });
      }
      const detail =
        error instanceof joseErrors.JWKSNoMatchingKey
          ? `the token was signed with a key the issuer does not publish (kid ${kidOf(token)}); a token from an earlier run of a development issuer, or from another issuer: get a new token`
          : error instanceof joseErrors.JOSEError
            ? error.code
            : 'malformed token';
      throw new GovernanceError('invalid_token', 'OIDC token validation failed', { detail, cause: error });
    }
  }
  /**
   * Exchanges an authorization code at the token endpoint (client secret authentication) and
   * verifies the returned ID token. Any failure → 502 `token_exchange_failed`.
   */
  async exchangeCode(
    code: string,
    options: { codeVerifier?: string; nonce?: string; signal?: AbortSignal } = {},
  ): Promise<VerifiedIdToken> {
    const idToken = await requestIdToken(() => this.discover(), this.config, this.#insecure, code, options);
    try {
      return await this.verifyIdToken(idToken, options.nonce === undefined ? {} : { nonce: options.nonce });
    } catch (error) {
      throw exchangeFailed(`the returned ID token is invalid: ${describe(error)}`, error);
    }
  }

  /** The authorization URL of a login bound to `state`, a PKCE challenge and a nonce. */
  async authorizationUrl(state: string, codeVerifier: string, nonce: string): Promise<URL> {
    return authorizationUrl(await this.discover(), this.config, { state, codeVerifier, nonce });
  }

  async health(): Promise<boolean> {
    try {
      await this.discover();
      return true;
    } catch {
      return false;
    }
  }
}

function kidOf(token: string): string {
  try {
    const header = JSON.parse(Buffer.from(token.split('.')[0] ?? '', 'base64url').toString('utf8')) as {
      kid?: unknown;
    };
    return typeof header.kid === 'string' ? JSON.stringify(header.kid.slice(0, 64)) : 'none';
  } catch {
    return 'unreadable';
  }
}
