/**
 * Kernel routes of authentication (spec: Endpoints, Auth): the authorization-code callback
 * (confidential client: the bare `{code}` is exchanged with the client secret; a login started
 * at GET /auth/login additionally binds state, PKCE and nonce through a short-lived cookie; the
 * browser comes back with a GET to the same path), userinfo with effective permissions, and logout.
 * Without OIDC (the application's `authenticate`), only userinfo.
 */

import { randomBytes } from 'node:crypto';
import { type AnyRoute, defineRoute, errorSpec as err, errorOf, json, type Principal } from '@agentgov/core';
import { z } from 'zod';
import { principalFromClaims } from '../auth/claims';
import type { OidcClient } from '../auth/oidc';
import { SECURE_SESSION_COOKIE } from '../auth/sessions';
import { readCookie } from '../http';
import type { KernelServices } from '../services';
import { effectivePermissions } from './permissions';
import { sessionRoutes } from './sessions';

/**
 * The cookie that binds a login to the browser that started it (state, PKCE verifier, nonce):
 * `__Host-agentgov_login` (Path=/) when the server is served over HTTPS (`secureCookies`), so no
 * sibling subdomain or plain-HTTP page can set one for it (a login of their own, finished in the
 * victim's browser: login CSRF); else `agentgov_login` on the auth routes' path.
 */
const LOGIN_COOKIE = 'agentgov_login';
const SECURE_LOGIN_COOKIE = '__Host-agentgov_login';
const loginCookieName = (ctx: OidcServices): string =>
  ctx.sessions.cookieName === SECURE_SESSION_COOKIE ? SECURE_LOGIN_COOKIE : LOGIN_COOKIE;
const LOGIN_TTL_SECONDS = 600;

const CallbackBodySchema = z.object({
  code: z.string().min(1).max(4096),
  state: z.string().min(1).max(512).optional(),
});

const CallbackQuerySchema = z.object({
  code: z.string().min(1).max(4096).optional(),
  state: z.string().min(1).max(512).optional(),
  iss: z.string().max(2048).optional(),
  error: z.string().max(256).optional(),
});

const User = z.object({
  userId: z.string(),
  email: z.string(),
  roles: z.array(z.string()),
  orgUnit: z.string().nullable(),
});
const CallbackOut = z.object({ authenticated: z.boolean(), user: User });
const UserInfoOut = User.extend({
  tenantId: z.string(),
  team: z.string().nullable(),
  effectivePermissions: z.object({
    canManagePolicies: z.boolean(),
    policyScope: z.string(),
    canQueryAudit: z.boolean(),
    auditScope: z.string(),
  }),
});

function loginCookie(ctx: OidcServices, value: string, maxAge: number): string {
  const name = loginCookieName(ctx);
  const path = name === SECURE_LOGIN_COOKIE ? '/' : `${ctx.basePath}/auth`;
  return `${name}=${value}; HttpOnly; Secure; SameSite=Lax; Max-Age=${maxAge}; Path=${path}`;
}

/** The login cookie's binding when `state` matches it (else 400); clears the cookie. */
function loginBinding(
  ctx: OidcServices,
  request: Request,
  state: string,
  headers: Headers,
): { codeVerifier: string; nonce: string } {
  const raw = readCookie(request.headers.get('cookie'), loginCookieName(ctx));
  let stored: { s?: unknown; v?: unknown; n?: unknown } = {};
  try {
    stored = raw ? (JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as typeof stored) : {};
  } catch {
    stored = {};
  }
  if (stored.s !== state || typeof stored.v !== 'string' || typeof stored.n !== 'string') {
    throw errorOf('invalid_type', 'Invalid value for field: state', [
      { field: 'state', message: 'does not match a login started by GET /auth/login' },
    ]);
  }
  headers.append('set-cookie', loginCookie(ctx, '', 0));
  return { codeVerifier: stored.v, nonce: stored.n };
}

/** Exchanges the code, creates the session and appends its cookie to `headers`. */
async function completeLogin(
  ctx: OidcServices,
  client: { request: Request; remoteAddress: string | undefined },
  code: string,
  binding: { codeVerifier?: string; nonce?: string },
  signal: AbortSignal,
  headers: Headers,
): Promise<Principal> {
  const { claims } = await ctx.oidc.exchangeCode(code, { ...binding, signal });
  const mapped = principalFromClaims(claims, 'session');
  if (!mapped.ok) throw errorOf('token_exchange_failed', undefined, mapped.reason);
  const p = mapped.principal;
  await ctx.learn(p);
  const { id } = await ctx.sessions.create(p, {
    userAgent: client.request.headers.get('user-agent'),
    ip: client.remoteAddress ?? null,
  });
  headers.append('set-cookie', ctx.sessions.cookie(id, ctx.sessions.ttlSeconds));
  headers.set('cache-control', 'no-store');
  return p;
}

const escapeHtml = (v: string) => v.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The page a browser gets after a login: a same-site hop to the landing page, so the
 * `SameSite=Strict` session cookie is sent there even when the issuer lives on another site.
 */
function landingPage(target: string, p: Principal, headers: Headers): Response {
  const t = escapeHtml(target);
  const who = escapeHtml(p.email || p.userId);
  headers.set('content-type', 'text/html; charset=utf-8');
  headers.set('content-security-policy', "default-src 'none'; frame-ancestors 'none'; base-uri 'none'");
  headers.set('referrer-policy', 'no-referrer');
  const html = `<!doctype html><html><head><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=${t}"><title>Signed in</title></head><body><p>Signed in as ${who}. Continue to <a href="${t}">${t}</a>.</p></body></html>`;
  return new Response(html, { status: 200, headers });
}

/** The kernel's services when the OIDC issuer signs callers in. */
export type OidcServices = KernelServices & { oidc: OidcClient };

/**
 * The authentication routes: `/auth/userinfo` always; with OIDC (`oidc`) also the login flow,
 * logout and the session routes (an application's own sign-in has its own).
 */
export function authRoutes(ctx: KernelServices, oidc: OidcClient | undefined): AnyRoute[] {
  return [userinfoRoute(), ...(oidc ? oidcRoutes({ ...ctx, oidc }) : [])];
}

function userinfoRoute(): AnyRoute {
  return defineRoute({
    method: 'GET',
    path: '/auth/userinfo',
    operationId: 'authUserinfo',
    summary: 'The session user and their effective permissions',
    auth: 'session',
    responses: {
      200: { description: 'The user', schema: UserInfoOut },
      401: err('no_session / session_expired'),
    },
    async handler(_input, { principal: p }) {
      const perms = effectivePermissions(p);
      return {
        status: 200,
        body: {
          userId: p.userId,
          email: p.email,
          roles: p.roles,
          orgUnit: p.orgUnit,
          tenantId: p.tenantId,
          team: p.team,
          effectivePermissions: perms,
        },
      };
    },
  });
}

function oidcRoutes(ctx: OidcServices): AnyRoute[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/auth/callback',
      operationId: 'authCallback',
      summary: 'Exchange an authorization code, create a session and set the session cookie',
      auth: 'none',
      rateLimit: 'auth_login',
      body: CallbackBodySchema,
      // Only JSON, checked before the body is parsed: a cross-site form can post text/plain (or
      // urlencoded) without a preflight, which would log the victim in as the attacker (login CSRF).
      beforeParse(_raw, { request }) {
        const type = request.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase();
        if (type !== 'application/json') throw errorOf('unsupported_media_type');
      },
      responses: {
        200: { description: 'Authenticated; Set-Cookie carries the session', schema: CallbackOut },
        400: err('missing_type / invalid_type'),
        415: err('unsupported_media_type'),
        502: err('token_exchange_failed'),
      },
      async handler({ request, body }, { signal, remoteAddress }) {
        const headers = new Headers();
        const binding = body.state === undefined ? {} : loginBinding(ctx, request, body.state, headers);
        const p = await completeLogin(ctx, { request, remoteAddress }, body.code, binding, signal, headers);
        return json(
          200,
          {
            authenticated: true,
            user: { userId: p.userId, email: p.email, roles: p.roles, orgUnit: p.orgUnit },
          },
          headers,
        );
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/auth/callback',
      operationId: 'authCallbackBrowser',
      summary:
        'Extension: the redirect target of GET /auth/login; completes the login, sets the session cookie and sends the browser on to the landing page (default /auth/userinfo)',
      auth: 'none',
      rateLimit: 'auth_login',
      query: CallbackQuerySchema,
      responses: {
        200: { description: 'Signed in; an HTML page that moves on to the landing page' },
        400: err('invalid_type (state, or the issuer refused the login)'),
        502: err('token_exchange_failed'),
      },
      async handler({ request, query }, { signal, remoteAddress }) {
        if (query.error !== undefined || query.code === undefined || query.state === undefined) {
          throw errorOf('invalid_type', 'The login did not complete', [
            {
              field: query.error !== undefined ? 'error' : 'code',
              message: query.error ?? 'the issuer sent no code and state; start again at GET /auth/login',
            },
          ]);
        }
        if (query.iss !== undefined && query.iss !== ctx.oidc.config.issuer) {
          throw errorOf('invalid_type', 'Invalid value for field: iss', [
            { field: 'iss', message: 'the response comes from another issuer' },
          ]);
        }
        const headers = new Headers();
        const binding = loginBinding(ctx, request, query.state, headers);
        const p = await completeLogin(ctx, { request, remoteAddress }, query.code, binding, signal, headers);
        return landingPage(ctx.oidc.config.afterLogin ?? `${ctx.basePath}/auth/userinfo`, p, headers);
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/auth/login',
      operationId: 'authLogin',
      summary: 'Extension: start a login (302 to the issuer) bound to state, PKCE (S256) and a nonce',
      auth: 'none',
      rateLimit: 'auth_login',
      responses: { 302: { description: 'Redirect to the authorization endpoint' } },
      async handler() {
        const state = randomBytes(16).toString('base64url');
        const verifier = randomBytes(32).toString('base64url');
        const nonce = randomBytes(16).toString('base64url');
        let url: URL;
        try {
          url = await ctx.oidc.authorizationUrl(state, verifier, nonce);
        } catch (error) {
          throw errorOf('service_unavailable', 'The identity provider cannot be reached', String(error));
        }
        const cookie = Buffer.from(JSON.stringify({ s: state, v: verifier, n: nonce })).toString('base64url');
        const headers = new Headers({ location: url.toString(), 'cache-control': 'no-store' });
        headers.append('set-cookie', loginCookie(ctx, cookie, LOGIN_TTL_SECONDS));
        return new Response(null, { status: 302, headers });
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/logout',
      operationId: 'authLogout',
      summary:
        "Extension: end the session of the cookie and clear it; cached verifications of the user's bearer tokens are dropped",
      auth: 'session',
      responses: {
        200: { description: 'Logged out', schema: z.object({ authenticated: z.literal(false) }) },
      },
      async handler({ request }, { principal }) {
        const id = readCookie(request.headers.get('cookie'), ctx.sessions.cookieName);
        if (id) await ctx.sessions.end(id);
        ctx.oidc.forgetUser(principal.tenantId, principal.userId);
        return json(200, { authenticated: false }, { 'set-cookie': ctx.sessions.cookie('', 0) });
      },
    }),
    ...sessionRoutes(ctx),
  ];
}
