/**
 * OIDC: ID-token verification with jose against the issuer's discovery document and JWKS, and the
 * authorization-code exchange at the token endpoint with oauth4webapi (confidential client,
 * client secret). Both fail closed with the spec's error codes.
 *
 * Over 300 lines on purpose: verification and the code exchange share the issuer discovery, the
 * JWKS cache and the error mapping; one class keeps every path that accepts a credential together.
 */
import { hash } from 'node:crypto';
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

/** Asymmetric JWS algorithms accepted for ID tokens (never `none`, never HMAC). */
export const ASYMMETRIC_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
] as const;

export interface OidcConfig {
  /** Issuer URL; discovery at `<issuer>/.well-known/openid-configuration`. */
  issuer: string;
  /** Client id: the expected `aud` of ID tokens. */
  clientId: string;
  /** Client secret, sent to the token endpoint (client_secret_basic unless the issuer only supports post). */
  clientSecret: string;
  /** Redirect URI registered for the client; sent with the code exchange. */
  redirectUri: string;
  /** Allowed ID-token algorithms, a subset of ASYMMETRIC_ALGORITHMS (default: all of them). */
  algorithms?: readonly string[];
  /** Leeway for exp/nbf/iat in seconds (default 30). */
  clockToleranceSeconds?: number;
  /** Minimum time between two JWKS refetches triggered by an unknown `kid` (default 30 000 ms). */
  jwksCooldownMs?: number;
  /** Allow http:// issuers. Default: only for loopback hosts (development issuers, tests). */
  allowInsecureRequests?: boolean;
  /** Scopes requested by GET /auth/login (default `openid email profile`). */
  scope?: string;
  /**
   * Upper bound of the authorization-code exchange (default 10 000 ms). It holds whatever signal
   * the caller passes: the request's signal can end the exchange earlier, never later.
   */
  exchangeTimeoutMs?: number;
  /** Where a browser lands after GET /auth/callback: a path on this server (default `<basePath>/auth/userinfo`). */
  afterLogin?: string;
  /**
   * Expected `aud` of bearer access tokens (RFC 9068 JWTs, `typ: at+jwt`): this API's resource
   * identifier (default: the client id).
   */
  accessTokenAudience?: string;
  /**
   * Verified bearer tokens kept in memory (an LRU keyed by the token's SHA-256) until their `exp`
   * or `ttlMs`, whichever comes first; emptied whenever the issuer's key set changes. `false`
   * verifies every request. Default `{ max: 10 000, ttlMs: 300 000 }`.
   */
  tokenCache?: { max?: number; ttlMs?: number } | false;
}

function isLoopback(url: URL): boolean {
  return ['localhost', '127.0.0.1', '[::1]', '::1'].includes(url.hostname);
}

/**
 * A missing or malformed OIDC setting, named (`oidc.issuer`, `oidc.clientId`…, with the
 * environment variable the example server reads it from): a configuration error at startup
 * instead of `TypeError: Invalid URL`.
 */
export class OidcConfigError extends Error {
  readonly setting: string;
  constructor(setting: keyof OidcConfig, problem: string) {
    super(`OIDC configuration: oidc.${setting} ${problem} (e.g. ${OIDC_ENV[setting] ?? 'see OidcConfig'})`);
    this.name = 'OidcConfigError';
    this.setting = `oidc.${setting}`;
  }
}

const OIDC_ENV: Partial<Record<keyof OidcConfig, string>> = {
  issuer: 'OIDC_ISSUER=https://login.example.com',
  clientId: 'OIDC_CLIENT_ID',
  clientSecret: 'OIDC_CLIENT_SECRET',
  redirectUri: 'OIDC_REDIRECT_URI=https://app.example.com/api/v1/auth/callback',
};

/** Checks the required settings; the issuer as a URL. Throws OidcConfigError naming the setting. */
function checkOidcConfig(config: OidcConfig): URL {
  if (config === null || typeof config !== 'object')
    throw new OidcConfigError('issuer', 'is not set (no oidc configuration)');
  for (const key of ['issuer', 'clientId', 'clientSecret', 'redirectUri'] as const) {
    const value: unknown = config[key];
    if (value === undefined || value === null || value === '') throw new OidcConfigError(key, 'is not set');
    if (typeof value !== 'string') throw new OidcConfigError(key, 'must be a string');
  }
  for (const key of ['issuer', 'redirectUri'] as const) {
    if (!URL.canParse(config[key])) throw new OidcConfigError(key, `is not a URL: '${config[key]}'`);
  }
  return new URL(config.issuer);
}

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
    const key = cache ? hash('sha256', token, 'base64url') : '';
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
    const key = hash('sha256', token, 'base64url');
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
        clockTolerance: this.config.clockToleranceSeconds ?? 30,
        requiredClaims: access ? ['exp', 'iat', 'sub', 'client_id'] : ['exp', 'iat', 'sub'],
      });
      // An access token is never taken for an ID token (or the reverse): its `typ` decides the
      // audience checked, so the code exchange (ID tokens only) refuses one.
      if (isAccessTokenType(protectedHeader.typ) !== access) {
        throw invalid(
          access ? 'not an access token (typ)' : 'an access token is not an ID token (typ at+jwt)',
        );
      }
      const tolerance = this.config.clockToleranceSeconds ?? 30;
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
    let idToken: string;
    try {
      const as = await this.discover();
      const client: oauth.Client = { client_id: this.config.clientId };
      const methods = as.token_endpoint_auth_methods_supported;
      const auth =
        methods && !methods.includes('client_secret_basic') && methods.includes('client_secret_post')
          ? oauth.ClientSecretPost(this.config.clientSecret)
          : oauth.ClientSecretBasic(this.config.clientSecret);
      // The body carries only the code (state, if any, was checked by the caller); the callback
      // parameters are rebuilt for the library, with `iss` when the issuer sends one (RFC 9207).
      const callback = new URLSearchParams({ code });
      if (as.authorization_response_iss_parameter_supported) callback.set('iss', as.issuer);
      const params = oauth.validateAuthResponse(as, client, callback, oauth.skipStateCheck);
      const response = await oauth.authorizationCodeGrantRequest(
        as,
        client,
        auth,
        params,
        this.config.redirectUri,
        options.codeVerifier ?? oauth.nopkce,
        {
          [oauth.allowInsecureRequests]: this.#insecure,
          signal: exchangeSignal(options.signal, this.config.exchangeTimeoutMs ?? 10_000),
        },
      );
      const result = await oauth.processAuthorizationCodeResponse(as, client, response, {
        expectedNonce: options.nonce ?? oauth.expectNoNonce,
        requireIdToken: true,
      });
      if (!result.id_token) throw new Error('no id_token in the token response');
      idToken = result.id_token;
    } catch (error) {
      throw new GovernanceError('token_exchange_failed', undefined, {
        detail: describe(error),
        cause: error,
      });
    }
    try {
      return await this.verifyIdToken(idToken, options.nonce === undefined ? {} : { nonce: options.nonce });
    } catch (error) {
      throw new GovernanceError('token_exchange_failed', undefined, {
        detail: `the returned ID token is invalid: ${describe(error)}`,
        cause: error,
      });
    }
  }

  /** The authorization URL of a login bound to `state`, a PKCE challenge and a nonce. */
  async authorizationUrl(state: string, codeVerifier: string, nonce: string): Promise<URL> {
    const as = await this.discover();
    if (!as.authorization_endpoint) throw new Error('the issuer publishes no authorization_endpoint');
    const url = new URL(as.authorization_endpoint);
    url.searchParams.set('client_id', this.config.clientId);
    url.searchParams.set('redirect_uri', this.config.redirectUri);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('scope', this.config.scope ?? 'openid email profile');
    url.searchParams.set('state', state);
    url.searchParams.set('nonce', nonce);
    url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(codeVerifier));
    url.searchParams.set('code_challenge_method', 'S256');
    return url;
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

/** The exchange's signal: the caller's, bounded by the timeout (the caller cannot lift it). */
function exchangeSignal(signal: AbortSignal | undefined, timeoutMs: number): AbortSignal {
  const timeout = AbortSignal.timeout(timeoutMs);
  return signal ? AbortSignal.any([signal, timeout]) : timeout;
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

function describe(error: unknown): string {
  if (error instanceof GovernanceError)
    return typeof error.detail === 'string' ? error.detail : error.message;
  if (error instanceof oauth.ResponseBodyError)
    return `${error.error}: ${error.error_description ?? ''}`.trim();
  if (error instanceof Error) return error.message;
  return String(error);
}
