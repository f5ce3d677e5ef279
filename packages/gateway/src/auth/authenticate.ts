/**
 * Who is calling: a `Bearer` token (an ID token, or an RFC 9068 JWT access token, verified against
 * the issuer's JWKS; verified tokens are cached, see OidcClient#verifyBearer) or the session cookie
 * (`session`, or `__Host-session` when the server is configured for HTTPS).
 * The kernel calls this once per request, before the request context is built.
 */
import { errorOf, type Principal } from '@agentgov/core';
import { readCookie } from '../http';
import { principalFromClaims } from './claims';
import type { OidcClient } from './oidc';
import type { SessionManager } from './sessions';

const BEARER_RE = /^Bearer[ ]+([^\s]+)\s*$/i;

/** The 401s of requests that presented no credentials at all (see `presentedNone`). */
const NOTHING_PRESENTED = new WeakSet<Error>();

/** The spec's 401 for a request that presented no credentials (`no_session` on the session routes). */
function nothingPresented(mode: 'required' | 'session'): Error {
  const error = mode === 'session' ? errorOf('no_session') : errorOf('authentication_required');
  NOTHING_PRESENTED.add(error);
  return error;
}

/**
 * True for the 401 of a request that presented no credentials at all (no `Authorization` header,
 * no session cookie): nothing was tried, so nothing counts against the caller address's
 * `auth_failures` limit (the spec: "Missing or invalid credentials return 401").
 */
export const presentedNone = (error: unknown): boolean =>
  error instanceof Error && NOTHING_PRESENTED.has(error);

/**
 * A request as authentication reads it: its headers by lower-case name, and the Fetch Request
 * (or the Node path's lazy view of one) only for a session lookup. The kernel passes the
 * pipeline's `Incoming`, so a Bearer request on Node never builds a request view.
 */
interface Presented {
  header(name: string): string | null;
  readonly request: Request;
}

/** How the kernel authenticates a request: OIDC (`oidcAuthenticator`) or the application's function. */
export type Authenticator = (
  from: Request | Presented,
  mode: 'required' | 'session',
) => Principal | Promise<Principal>;

/**
 * The tenant of the credentials a request presents, when they are valid; undefined for none or
 * invalid ones (never an error): for a route that needs no authentication but answers (and
 * counts) a caller who shows who it is — `/status`.
 */
export async function presentedTenant<F extends Request | Pick<Presented, 'header'>>(
  authenticate: (from: F, mode: 'required') => Principal | Promise<Principal>,
  from: F,
): Promise<string | undefined> {
  const header = (name: string) => (from instanceof Request ? from.headers.get(name) : from.header(name));
  if (header('authorization') === null && header('cookie') === null) return undefined;
  try {
    return (await authenticate(from, 'required')).tenantId;
  } catch {
    return undefined;
  }
}

/** The kernel's own authentication: a Bearer token of the OIDC issuer, or its session cookie. */
export function oidcAuthenticator(oidc: OidcClient, sessions: SessionManager): Authenticator {
  return (from, mode) => authenticateNow(from, mode, oidc, sessions);
}

/**
 * The principal of a request, answered at once (no promise) when it needs no I/O — a Bearer token
 * whose verification is cached — so the common request pays for no asynchronous step; it may also
 * throw at once. Otherwise a promise. `mode` `session` answers `no_session` rather than
 * `authentication_required` when no credentials at all were presented. A session extended by this
 * request has its cookie queued for the response (SessionManager#withRenewedCookie).
 */
function authenticateNow(
  from: Request | Presented,
  mode: 'required' | 'session',
  oidc: OidcClient,
  sessions: SessionManager,
): Principal | Promise<Principal> {
  const isRequest = from instanceof Request;
  const authorization = isRequest ? from.headers.get('authorization') : from.header('authorization');
  const cookie = readCookie(
    isRequest ? from.headers.get('cookie') : from.header('cookie'),
    sessions.cookieName,
  );
  if (authorization !== null) {
    const m = BEARER_RE.exec(authorization);
    if (m) {
      const token = m[1]!;
      const cached = oidc.cachedBearer(token);
      return cached ? bearerPrincipal(cached.claims) : verified(oidc, token);
    }
    if (cookie === undefined)
      throw errorOf('authentication_required', 'Only Bearer ID tokens and JWT access tokens are accepted');
  }
  if (cookie === undefined || cookie === '') throw nothingPresented(mode);
  return sessionPrincipal(sessions, cookie, isRequest ? from : from.request);
}

/**
 * The principal of each claims object a cached verification hands out (the same object on every
 * hit, so the claims are mapped once per token, not per request); frozen, as every request with
 * that token shares it. Entries go with the claims (evicted or cleared from the token cache).
 */
const PRINCIPALS = new WeakMap<object, Principal>();

/** The principal of verified Bearer claims (`invalid_token` when they name none). */
function bearerPrincipal(claims: Record<string, unknown>): Principal {
  const known = PRINCIPALS.get(claims);
  if (known) return known;
  const mapped = principalFromClaims(claims, 'bearer');
  if (!mapped.ok) throw errorOf('invalid_token', undefined, mapped.reason);
  const principal = Object.freeze({ ...mapped.principal, roles: Object.freeze(mapped.principal.roles) });
  PRINCIPALS.set(claims, principal as Principal);
  return principal as Principal;
}

async function verified(oidc: OidcClient, token: string): Promise<Principal> {
  const { claims } = await oidc.verifyBearer(token);
  return bearerPrincipal(claims);
}

async function sessionPrincipal(
  sessions: SessionManager,
  cookie: string,
  request: Request,
): Promise<Principal> {
  const found = await sessions.lookup(cookie, request);
  if (found.kind === 'expired') throw errorOf('session_expired');
  if (found.kind === 'unknown') throw errorOf('no_session', 'The session cookie names no session');
  return found.principal;
}
