/**
 * The development OIDC issuer of the reference server: a real OpenID Provider (`oidc-provider`)
 * on loopback, with a confidential client, dev accounts carrying the agentgov claims (`roles`,
 * `tenant_id`, `org_unit`, `team`), and helpers that mint ID tokens and obtain authorization codes
 * for those accounts — so a new user gets a working token the moment the server starts.
 * Never used when `OIDC_ISSUER` is set. Its pages are in `./dev-issuer-pages`, its kept key in
 * `./dev-issuer-keys`, the code flow run without a browser in `./dev-issuer-code-flow`.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT } from 'jose';
import type { Configuration } from 'oidc-provider';
import { runCodeFlow } from './dev-issuer-code-flow';
import { readKept, signingKey } from './dev-issuer-keys';
import { escapeHtml, interact, localPage, SIGN_IN_CSS, SIGN_IN_CSS_PATH } from './dev-issuer-pages';

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
  const hooksOffWhenIdle = await promiseHooksOffWhenIdle();
  server.on('request', (req, res) => {
    hooksOffWhenIdle(res);
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

/** Where oidc-provider keeps its AsyncLocalStorage (a module of its own, no `exports` map). */
const OIDC_PROVIDER_ALS = 'oidc-provider/lib/helpers/als.js';

/**
 * oidc-provider runs each of its requests in an AsyncLocalStorage (`als.run(ctx, …)`). On Node 20
 * an enabled AsyncLocalStorage keeps V8's promise hooks on for every promise of the process (the
 * storage is disabled again only by `disable()`): with the issuer in process, every request the
 * governance server answers paid for them (~4 % of its CPU under load) because the issuer
 * answered the gateway's discovery request at start. The hook returned here is given each issuer
 * response; once none is in flight the storage is disabled, and the promise hooks go off with it
 * (the next `als.run` enables them again). Nothing reads the storage between requests: only
 * oidc-provider's `clientIdMetadataDocument` feature reads it, and it is off here.
 */
async function promiseHooksOffWhenIdle(): Promise<(res: http.ServerResponse) => void> {
  let als: AsyncLocalStorage<unknown> | undefined;
  try {
    als = ((await import(OIDC_PROVIDER_ALS)) as { default?: AsyncLocalStorage<unknown> }).default;
  } catch {
    // another oidc-provider layout: the hooks stay on, nothing else changes
  }
  if (!(als instanceof AsyncLocalStorage)) return () => {};
  const storage = als;
  let inFlight = 0;
  return (res) => {
    inFlight++;
    res.once('close', () => {
      if (--inFlight === 0) storage.disable();
    });
  };
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
