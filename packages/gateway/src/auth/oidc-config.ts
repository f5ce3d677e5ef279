/**
 * The OIDC client's configuration (`OidcConfig`) and its check at start-up: the required settings
 * present and strings, the issuer and redirect URI URLs, else an `OidcConfigError` naming the
 * setting and the environment variable the example server reads it from. Also the asymmetric
 * algorithms an ID token may be signed with, and whether an issuer is on loopback (where http is
 * allowed by default, for development issuers and tests).
 */

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
  /**
   * Leeway for exp/nbf/iat in seconds (default 5: the clocks of an identity provider and a server
   * kept by NTP differ by far less; a token past its `exp` by more is refused).
   */
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

export function isLoopback(url: URL): boolean {
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
export function checkOidcConfig(config: OidcConfig): URL {
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

/** The default leeway for a token's exp/nbf/iat (`OidcConfig.clockToleranceSeconds`). */
export const DEFAULT_CLOCK_TOLERANCE_SECONDS = 5;
