/**
 * The browser sign-in's side of OIDC, with oauth4webapi: the authorization URL of a login (state,
 * PKCE challenge, nonce) and the authorization-code exchange at the token endpoint (confidential
 * client: client_secret_basic unless the issuer only supports client_secret_post), bounded by
 * `exchangeTimeoutMs` whatever signal the caller passes. Any failure of the exchange is a 502
 * `token_exchange_failed` with a readable detail; the ID token it returns is verified by
 * `OidcClient` (`./oidc`).
 */
import { GovernanceError } from '@agentgov/core';
import * as oauth from 'oauth4webapi';
import type { OidcConfig } from './oidc-config';

/** 502 `token_exchange_failed`, its detail readable (the cause kept). */
export function exchangeFailed(detail: string, cause: unknown): GovernanceError {
  return new GovernanceError('token_exchange_failed', undefined, { detail, cause });
}

/**
 * Exchanges an authorization code at the issuer's token endpoint and returns the ID token of the
 * response (not verified yet). Any failure (discovery included) → `token_exchange_failed`.
 */
export async function requestIdToken(
  discover: () => Promise<oauth.AuthorizationServer>,
  config: OidcConfig,
  insecure: boolean,
  code: string,
  options: { codeVerifier?: string; nonce?: string; signal?: AbortSignal },
): Promise<string> {
  try {
    const as = await discover();
    const client: oauth.Client = { client_id: config.clientId };
    const methods = as.token_endpoint_auth_methods_supported;
    const auth =
      methods && !methods.includes('client_secret_basic') && methods.includes('client_secret_post')
        ? oauth.ClientSecretPost(config.clientSecret)
        : oauth.ClientSecretBasic(config.clientSecret);
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
      config.redirectUri,
      options.codeVerifier ?? oauth.nopkce,
      {
        [oauth.allowInsecureRequests]: insecure,
        signal: exchangeSignal(options.signal, config.exchangeTimeoutMs ?? 10_000),
      },
    );
    const result = await oauth.processAuthorizationCodeResponse(as, client, response, {
      expectedNonce: options.nonce ?? oauth.expectNoNonce,
      requireIdToken: true,
    });
    if (!result.id_token) throw new Error('no id_token in the token response');
    return result.id_token;
  } catch (error) {
    throw exchangeFailed(describe(error), error);
  }
}

/** The authorization URL of a login bound to `state`, a PKCE challenge and a nonce. */
export async function authorizationUrl(
  as: oauth.AuthorizationServer,
  config: OidcConfig,
  login: { state: string; codeVerifier: string; nonce: string },
): Promise<URL> {
  if (!as.authorization_endpoint) throw new Error('the issuer publishes no authorization_endpoint');
  const url = new URL(as.authorization_endpoint);
  url.searchParams.set('client_id', config.clientId);
  url.searchParams.set('redirect_uri', config.redirectUri);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('scope', config.scope ?? 'openid email profile');
  url.searchParams.set('state', login.state);
  url.searchParams.set('nonce', login.nonce);
  url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(login.codeVerifier));
  url.searchParams.set('code_challenge_method', 'S256');
  return url;
}

/** The exchange's signal: the caller's, bounded by the timeout (the caller cannot lift it). */
function exchangeSignal(signal: AbortSignal | undefined, timeoutMs: number): AbortSignal {
  const timeout = AbortSignal.timeout(timeoutMs);
  return signal ? AbortSignal.any([signal, timeout]) : timeout;
}

export function describe(error: unknown): string {
  if (error instanceof GovernanceError)
    return typeof error.detail === 'string' ? error.detail : error.message;
  if (error instanceof oauth.ResponseBodyError)
    return `${error.error}: ${error.error_description ?? ''}`.trim();
  if (error instanceof Error) return error.message;
  return String(error);
}
