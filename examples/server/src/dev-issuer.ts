/**
 * The development OIDC issuer of the reference server: a real OpenID Provider (`oidc-provider`)
 * on loopback, with a confidential client, dev accounts carrying the agentgov claims (`roles`,
 * `tenant_id`, `org_unit`, `team`), and helpers that mint ID tokens and obtain authorization codes
 * for those accounts — so a new user gets a working token the moment the server starts.
 * Never used when `OIDC_ISSUER` is set.
 */
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, importJWK, type JWK, SignJWT } from 'jose';
import type { Configuration } from 'oidc-provider';

export interface DevAccount {
  sub: string;
  email: string;
  roles: string[];
  tenant_id: string;
  org_unit?: string;
  team?: string;
}

/** The dev accounts: one per role, in tenant `acme` (matching examples/policies/directory.yaml). */
export const DEV_ACCOUNTS: readonly DevAccount[] = [
  {
    sub: 'alice',
    email: 'alice@acme.example',
    roles: ['enterprise_admin'],
    tenant_id: 'acme',
    org_unit: 'eng',
    team: 'platform',
  },
  {
    sub: 'bob',
    email: 'bob@acme.example',
    roles: ['org_admin'],
    tenant_id: 'acme',
    org_unit: 'eng',
    team: 'platform',
  },
  {
    sub: 'carol',
    email: 'carol@acme.example',
    roles: ['team_lead'],
    tenant_id: 'acme',
    org_unit: 'sales',
    team: 'emea',
  },
  {
    sub: 'dave',
    email: 'dave@acme.example',
    roles: ['user'],
    tenant_id: 'acme',
    org_unit: 'eng',
    team: 'platform',
  },
];

export interface DevIssuer {
  issuer: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  /** Signs an ID token for a dev account with the issuer's own key (valid for `ttlSeconds`). */
  mintIdToken(sub: string, ttlSeconds?: number): Promise<string>;
  /**
   * Signs an RFC 9068 access token (`typ: at+jwt`) for a dev account, for the resource `audience`
   * (e.g. the MCP endpoint `<origin>/api/v1/mcp`).
   */
  mintAccessToken(sub: string, audience: string, ttlSeconds?: number): Promise<string>;
  /** Runs the real authorization-code flow for a dev account and returns the code. */
  authorizationCode(sub: string): Promise<string>;
  close(): Promise<void>;
}

export async function startDevIssuer(options: {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  host?: string;
  port?: number;
  accounts?: readonly DevAccount[];
  /**
   * Where the signing key is kept (a private JWK, mode 0600), so tokens printed by an earlier run
   * still verify after a restart. Without it, a new key per start.
   */
  keyFile?: string;
}): Promise<DevIssuer> {
  const accounts = new Map((options.accounts ?? DEV_ACCOUNTS).map((a) => [a.sub, a]));
  const server = http.createServer();
  const kept = await readKept(options.keyFile);
  // The issuer URL is part of every token (`iss`): the port of the last run is taken again when free.
  const port = await listenOn(server, options.host ?? '127.0.0.1', options.port ?? kept?.port ?? 0).catch(
    () => listenOn(server, options.host ?? '127.0.0.1', 0),
  );
  const issuer = `http://${options.host ?? '127.0.0.1'}:${port}`;

  const { privateKey, jwk } = await signingKey(options.keyFile, kept, port);
  const origins = [...new Set([issuer, new URL(options.redirectUri).origin])];

  const configuration: Configuration = {
    clients: [
      {
        client_id: options.clientId,
        client_secret: options.clientSecret,
        redirect_uris: [options.redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        id_token_signed_response_alg: 'ES256',
      },
    ],
    jwks: { keys: [jwk as never] },
    claims: { openid: ['sub'], email: ['email'], agentgov: ['roles', 'tenant_id', 'org_unit', 'team'] },
    scopes: ['openid', 'email', 'agentgov'],
    // The gateway reads the agentgov claims from the ID token itself.
    conformIdTokenClaims: false,
    // Our own sign-in page (agentgov's name, the development accounts and their roles) instead
    // of oidc-provider's stock form: see `signInPage`.
    features: {
      devInteractions: { enabled: false },
      // oidc-provider's stock logout and error pages import Google Fonts: ours load nothing from
      // outside this issuer (the sign-in page's stylesheet, served here).
      rpInitiatedLogout: {
        logoutSource: async (ctx, form) => {
          localPage(
            ctx,
            origins,
            'Sign out — agentgov (development)',
            `<h1>Sign out of agentgov?</h1>${form}<button autofocus type="submit" form="op.logoutForm" value="yes" name="logout">Yes, sign me out</button> <button type="submit" form="op.logoutForm">No, stay signed in</button>`,
          );
        },
        postLogoutSuccessSource: async (ctx) => {
          localPage(ctx, origins, 'Signed out — agentgov (development)', '<h1>You are signed out</h1>');
        },
      },
    },
    renderError: async (ctx, out) => {
      const rows = Object.entries(out)
        .map(
          ([key, value]) =>
            `<tr><th scope="row">${escapeHtml(key)}</th><td>${escapeHtml(String(value))}</td></tr>`,
        )
        .join('');
      localPage(
        ctx,
        origins,
        'Sign-in error — agentgov (development)',
        `<h1>The sign-in could not continue</h1><p class="error" role="alert">Start again from the application.</p><table><tbody>${rows}</tbody></table>`,
      );
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    ttl: {
      AccessToken: 3600,
      AuthorizationCode: 60,
      Grant: 3600,
      IdToken: 3600,
      Interaction: 600,
      Session: 3600,
    },
    cookies: { keys: [crypto.randomUUID()] },
    findAccount: (_ctx, sub) => {
      const account = accounts.get(sub);
      if (!account) return undefined;
      return { accountId: sub, claims: () => ({ ...account }) };
    },
    loadExistingGrant: async (ctx) => {
      // Dev issuer: consent is implied for the one first-party client.
      const grantId =
        ctx.oidc.result?.consent?.grantId ?? ctx.oidc.session?.grantIdFor(ctx.oidc.client?.clientId ?? '');
      if (grantId) return ctx.oidc.provider.Grant.find(grantId);
      const session = ctx.oidc.session;
      if (!session?.accountId || !ctx.oidc.client) return undefined;
      const grant = new ctx.oidc.provider.Grant({
        clientId: ctx.oidc.client.clientId,
        accountId: session.accountId,
      });
      grant.addOIDCScope('openid email agentgov');
      await grant.save();
      return grant;
    },
  };
  const provider = await quietly(async () => {
    const { default: Provider } = await import('oidc-provider');
    return new Provider(issuer, configuration);
  });
  provider.on('server_error', (_ctx, error) => console.error('dev issuer error:', error));
  const callback = provider.callback();
  server.on('request', (req, res) => {
    const path = new URL(req.url ?? '/', issuer).pathname;
    if (path === SIGN_IN_CSS_PATH) {
      res.writeHead(200, {
        'content-type': 'text/css; charset=utf-8',
        'cache-control': 'public, max-age=3600',
      });
      res.end(SIGN_IN_CSS);
      return;
    }
    const uid = /^\/interaction\/([A-Za-z0-9_-]{1,128})$/.exec(path)?.[1];
    if (!uid) {
      callback(req, res);
      return;
    }
    interact(provider, accounts, origins, uid, req, res).catch((error: unknown) => {
      console.error('dev issuer sign-in error:', error);
      if (!res.headersSent) res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('The sign-in could not continue: start again from the application.');
    });
  });

  const mintIdToken = async (sub: string, ttlSeconds = 12 * 3600): Promise<string> => {
    const account = accounts.get(sub);
    if (!account) throw new Error(`unknown dev account ${sub}`);
    const { sub: _sub, ...claims } = account;
    return new SignJWT({ ...claims })
      .setProtectedHeader({ alg: 'ES256', kid: jwk.kid as string, typ: 'JWT' })
      .setIssuer(issuer)
      .setAudience(options.clientId)
      .setSubject(sub)
      .setIssuedAt()
      .setExpirationTime(`${ttlSeconds}s`)
      .sign(privateKey);
  };

  const mintAccessToken = async (sub: string, audience: string, ttlSeconds = 3600): Promise<string> => {
    const account = accounts.get(sub);
    if (!account) throw new Error(`unknown dev account ${sub}`);
    const { sub: _sub, ...claims } = account;
    return new SignJWT({ ...claims, client_id: options.clientId, jti: crypto.randomUUID() })
      .setProtectedHeader({ alg: 'ES256', kid: jwk.kid as string, typ: 'at+jwt' })
      .setIssuer(issuer)
      .setAudience(audience)
      .setSubject(sub)
      .setIssuedAt()
      .setExpirationTime(`${ttlSeconds}s`)
      .sign(privateKey);
  };

  return {
    issuer,
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    redirectUri: options.redirectUri,
    mintIdToken,
    mintAccessToken,
    authorizationCode: (sub) => runCodeFlow(issuer, options.clientId, options.redirectUri, sub),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const SIGN_IN_CSS_PATH = '/agentgov-sign-in.css';
const SIGN_IN_CSS = `body{font-family:system-ui,sans-serif;max-width:34rem;margin:8vh auto;padding:0 1rem;color:#1f2933}
h1{font-size:1.5rem}label{display:block;margin:.75rem 0 .25rem}input{width:100%;padding:.5rem;font-size:1rem;box-sizing:border-box}
button{margin-top:1rem;padding:.5rem 1rem;font-size:1rem;background:#1d4ed8;color:#fff;border:0;border-radius:.3rem;cursor:pointer}
button:focus-visible,input:focus-visible{outline:3px solid #93c5fd;outline-offset:2px}
table{border-collapse:collapse;width:100%;margin-top:.5rem}th,td{text-align:left;padding:.35rem;border-bottom:1px solid #d0d7de}
td button{margin:0;padding:.25rem .6rem;font-size:.9rem}.note{color:#52606d;font-size:.9rem}.error{color:#b3261e}
@media (prefers-color-scheme:dark){body{background:#111827;color:#e5e7eb}.note{color:#9ca3af}}`;

/** Only plain names reach the page (the accounts are configuration, checked rather than escaped). */
/** A page of the issuer in the sign-in page's look: its stylesheet from here, nothing from outside. */
function localPage(
  ctx: { type: string; body: unknown; set(field: string, value: string): void },
  origins: readonly string[],
  title: string,
  body: string,
): void {
  ctx.type = 'html';
  ctx.set(
    'content-security-policy',
    `default-src 'none'; style-src 'self'; form-action 'self' ${origins.join(' ')}; frame-ancestors 'none'; base-uri 'none'`,
  );
  ctx.set('x-content-type-options', 'nosniff');
  ctx.body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title><link rel="stylesheet" href="${SIGN_IN_CSS_PATH}"></head><body><main>${body}</main></body></html>`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const PLAIN = /^[A-Za-z0-9_.@+-]{1,255}$/;

/**
 * The development sign-in page: the agentgov name, a login form (any password), and — this
 * issuer exists only in development — the accounts with their roles, each with a button.
 */
function signInPage(uid: string, accounts: Map<string, DevAccount>, failed: boolean): string {
  const action = `/interaction/${uid}`;
  const rows = [...accounts.values()]
    .filter((a) =>
      [a.sub, a.email, a.tenant_id, a.org_unit ?? '', a.team ?? '', ...a.roles].every(
        (v) => v === '' || PLAIN.test(v),
      ),
    )
    .map(
      (a) =>
        `<tr><td>${a.sub}</td><td>${a.roles.join(', ')}</td><td>${a.org_unit ?? ''}${a.team ? ` / ${a.team}` : ''}</td>` +
        `<td><form method="post" action="${action}"><input type="hidden" name="login" value="${a.sub}"><input type="hidden" name="password" value="dev">` +
        `<button type="submit" aria-label="Sign in as ${a.sub}">Sign in</button></form></td></tr>`,
    )
    .join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in — agentgov (development)</title><link rel="stylesheet" href="${SIGN_IN_CSS_PATH}"></head><body><main>
<h1>Sign in to agentgov</h1>
<p class="note">The development identity provider of the reference server: any password is accepted.</p>
${failed ? '<p class="error" role="alert">No development account has that name.</p>' : ''}
<form method="post" action="${action}" autocomplete="off">
<label for="login">Account</label><input id="login" name="login" required autofocus>
<label for="password">Password</label><input id="password" name="password" type="password" required>
<button type="submit">Sign in</button></form>
<h2>Development accounts</h2>
<table><thead><tr><th scope="col">Account</th><th scope="col">Roles</th><th scope="col">Org / team</th><th scope="col"><span class="note">Action</span></th></tr></thead><tbody>${rows}</tbody></table>
</main></body></html>`;
}

async function readForm(req: http.IncomingMessage): Promise<URLSearchParams> {
  let body = '';
  for await (const chunk of req) {
    body += String(chunk);
    if (body.length > 8192) throw new Error('sign-in form too large');
  }
  return new URLSearchParams(body);
}

/** GET: the sign-in page (consent is implied for the one client); POST: finishes the login. */
async function interact(
  provider: import('oidc-provider').default,
  accounts: Map<string, DevAccount>,
  origins: string[],
  uid: string,
  req: http.IncomingMessage,
  res: http.ServerResponse,
): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  if (details.uid !== uid) throw new Error('interaction mismatch');
  if (details.prompt.name === 'consent') {
    const grant = new provider.Grant({
      accountId: details.session?.accountId ?? '',
      clientId: String(details.params.client_id),
    });
    grant.addOIDCScope('openid email agentgov');
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
    return;
  }
  const page = (failed: boolean) => {
    res.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy': `default-src 'none'; style-src 'self'; form-action 'self' ${origins.join(' ')}; frame-ancestors 'none'; base-uri 'none'`,
      'x-content-type-options': 'nosniff',
    });
    res.end(signInPage(uid, accounts, failed));
  };
  if (req.method !== 'POST') return page(false);
  const login = (await readForm(req)).get('login') ?? '';
  if (!accounts.has(login)) return page(true);
  await provider.interactionFinished(
    req,
    res,
    { login: { accountId: login } },
    { mergeWithLastSubmission: false },
  );
}

/**
 * oidc-provider warns, once per process, that Node 20 is not its supported runtime and that its
 * in-memory adapter and login form are for development: all true and expected for this issuer,
 * which the server explains in one line of its start-up banner (`DEV_ISSUER_NOTE`).
 */
async function quietly<T>(fn: () => Promise<T>): Promise<T> {
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (!/oidc-provider WARNING/.test(String(args[0]))) warn(...args);
  };
  try {
    return await fn();
  } finally {
    console.warn = warn;
  }
}

export const DEV_ISSUER_NOTE =
  'development mode: state in memory, a built-in sign-in form (any password)' +
  (Number(process.versions.node.split('.')[0]) < 22
    ? "; oidc-provider's 'use Node 22' notice is about its support policy and harmless here"
    : '');

interface Kept {
  jwk: JWK;
  port: number;
}

async function readKept(keyFile: string | undefined): Promise<Kept | undefined> {
  if (!keyFile) return undefined;
  const saved = await readFile(keyFile, 'utf8').catch(() => undefined);
  if (saved === undefined) return undefined;
  const kept = JSON.parse(saved) as Partial<Kept>;
  return kept.jwk && typeof kept.port === 'number' ? (kept as Kept) : undefined;
}

function listenOn(server: http.Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const fail = (error: Error) => reject(error);
    server.once('error', fail);
    server.listen(port, host, () => {
      server.off('error', fail);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** The issuer's ES256 key: the kept one (with the port, in `keyFile`), else a new one, then kept. */
async function signingKey(
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

/** Drives oidc-provider's dev login form like a browser would, following redirects by hand. */
async function runCodeFlow(
  issuer: string,
  clientId: string,
  redirectUri: string,
  sub: string,
): Promise<string> {
  const jar = new Map<string, string>();
  const remember = (res: Response) => {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, ...value] = (pair ?? '').split('=');
      if (name) jar.set(name.trim(), value.join('='));
    }
  };
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  const go = async (url: string, init: RequestInit = {}): Promise<Response> => {
    const res = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers ?? {}), cookie: cookie() },
    });
    remember(res);
    return res;
  };
  const auth = new URL('/auth', issuer);
  auth.search = new URLSearchParams({
    client_id: clientId,
    response_type: 'code',
    scope: 'openid email agentgov',
    redirect_uri: redirectUri,
    state: crypto.randomUUID(),
  }).toString();
  let res = await go(auth.href);
  for (let hop = 0; hop < 10; hop++) {
    const location = res.headers.get('location');
    if (location?.startsWith(redirectUri)) {
      const code = new URL(location).searchParams.get('code');
      if (!code) throw new Error(`authorization failed: ${location}`);
      return code;
    }
    if (location) {
      res = await go(new URL(location, issuer).href);
      continue;
    }
    const html = await res.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    if (!action) throw new Error(`unexpected page from the dev issuer (status ${res.status})`);
    const isLogin = /name="login"/.test(html);
    const body = new URLSearchParams(
      isLogin ? { prompt: 'login', login: sub, password: 'dev' } : { prompt: 'consent' },
    );
    res = await go(new URL(action, issuer).href, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
  }
  throw new Error('authorization did not complete');
}
