/**
 * A REAL OIDC provider (oidc-provider) on loopback port 0 for tests: discovery, JWKS, a
 * confidential client (client_secret_basic), a token endpoint that exchanges authorization codes
 * and ID tokens carrying the custom claims `roles`, `tenant_id`, `org_unit`, `team`.
 * `issueCode(account)` creates a grant and an authorization code the same way the authorization
 * endpoint does after a login; `signIdToken(claims)` signs a bearer ID token with the provider's key.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import Provider from 'oidc-provider';

export interface TestAccount {
  sub: string;
  email?: string;
  roles?: string[];
  tenant_id?: string;
  org_unit?: string;
  team?: string;
  [claim: string]: unknown;
}

export interface TestIssuer {
  issuer: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  /** An authorization code for `account`, redeemable once at the token endpoint. */
  issueCode(account: TestAccount, options?: { nonce?: string; codeChallenge?: string }): Promise<string>;
  /** A bearer ID token signed by the provider's key (override iss/aud/exp/alg/key for negative tests). */
  signIdToken(
    claims: TestAccount,
    options?: {
      issuer?: string;
      audience?: string | string[];
      /** `iat` relative to now (default 0). */
      issuedAtSeconds?: number;
      expiresInSeconds?: number;
      notBeforeSeconds?: number;
      kid?: string;
      key?: CryptoKey;
      /** Protected-header `typ` (e.g. `at+jwt` for an RFC 9068 access token). */
      typ?: string;
    },
  ): Promise<string>;
  /**
   * Key rotation: the JWKS now publishes only a new key (`keep: true` publishes both), and
   * signIdToken signs with it. ID tokens of the code exchange keep the provider's original key.
   */
  rotateKey(options?: { keep?: boolean }): Promise<void>;
  /** A key pair the provider does not publish (for "unknown key" tests). */
  foreignKey(): Promise<CryptoKey>;
  close(): Promise<void>;
}

export async function startTestIssuer(
  options: { clientId?: string; clientSecret?: string; redirectUri?: string } = {},
): Promise<TestIssuer> {
  const clientId = options.clientId ?? 'agentgov-test';
  const clientSecret = options.clientSecret ?? 'test-secret-0123456789abcdef';
  const redirectUri = options.redirectUri ?? 'http://127.0.0.1/callback';
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  let kid = 'test-key-1';
  let signingKey: CryptoKey = privateKey;
  const privateJwk: JWK = { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' };
  /** After rotateKey: the JWKS served instead of the provider's. */
  let publishedKeys: JWK[] | undefined;
  let published: JWK[] = [{ ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' }];
  const accounts = new Map<string, TestAccount>();

  let handler:
    | ((req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void)
    | undefined;
  const server: Server = createServer((req, res) => {
    if (publishedKeys && req.url?.split('?')[0] === '/jwks') {
      res.writeHead(200, { 'content-type': 'application/jwk-set+json' });
      res.end(JSON.stringify({ keys: publishedKeys }));
      return;
    }
    handler?.(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    jwks: { keys: [privateJwk] },
    claims: { openid: ['sub'], email: ['email'], agentgov: ['roles', 'tenant_id', 'org_unit', 'team'] },
    conformIdTokenClaims: false,
    pkce: { required: () => false },
    features: { devInteractions: { enabled: false } },
    async findAccount(_ctx, id) {
      const account = accounts.get(id);
      if (!account) return undefined;
      return { accountId: id, claims: async () => ({ ...account, sub: id }) };
    },
  });
  handler = provider.callback();

  return {
    issuer,
    clientId,
    clientSecret,
    redirectUri,
    async issueCode(account, opts = {}) {
      accounts.set(account.sub, account);
      const client = await provider.Client.find(clientId);
      if (!client) throw new Error('test client missing');
      const grant = new provider.Grant({ accountId: account.sub, clientId });
      grant.addOIDCScope('openid email agentgov');
      grant.addOIDCClaims(['email', 'roles', 'tenant_id', 'org_unit', 'team']);
      const grantId = await grant.save();
      const code = new provider.AuthorizationCode({
        accountId: account.sub,
        grantId,
        client,
        scope: 'openid email agentgov',
        redirectUri,
        authTime: Math.floor(Date.now() / 1000),
        gty: 'authorization_code',
        ...(opts.nonce ? { nonce: opts.nonce } : {}),
        ...(opts.codeChallenge
          ? { codeChallenge: opts.codeChallenge, codeChallengeMethod: 'S256' as const }
          : {}),
      });
      return code.save();
    },
    async signIdToken(claims, opts = {}) {
      const now = Math.floor(Date.now() / 1000);
      const { sub, ...rest } = claims;
      const jwt = new SignJWT(rest)
        .setProtectedHeader({ alg: 'RS256', kid: opts.kid ?? kid, ...(opts.typ ? { typ: opts.typ } : {}) })
        .setSubject(sub)
        .setIssuer(opts.issuer ?? issuer)
        .setAudience(opts.audience ?? clientId)
        .setIssuedAt(now + (opts.issuedAtSeconds ?? 0))
        .setExpirationTime(now + (opts.expiresInSeconds ?? 600));
      if (opts.notBeforeSeconds !== undefined) jwt.setNotBefore(now + opts.notBeforeSeconds);
      return jwt.sign(opts.key ?? signingKey);
    },
    async rotateKey(opts = {}) {
      const next = await generateKeyPair('RS256', { extractable: true });
      kid = `test-key-${published.length + 1}-${Date.now()}`;
      signingKey = next.privateKey;
      const jwk: JWK = { ...(await exportJWK(next.publicKey)), kid, alg: 'RS256', use: 'sig' };
      published = opts.keep ? [...published, jwk] : [jwk];
      publishedKeys = published;
    },
    async foreignKey() {
      return (await generateKeyPair('RS256')).privateKey;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
