import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  definePlugin,
  defineRoute,
  type GatewayPlugin,
  InMemoryAuditSink,
  InMemoryOrgDirectory,
  InMemorySecretStore,
} from '@agentgov/core';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createGovernance, createMemoryStores, type Governance } from '../src/index';
import { createTestGovernance } from '../src/testing/index';
import { fileIssuer } from './issuer';

const idp = await fileIssuer();

const get = (gov: Governance, path: string, token?: string, init: RequestInit = {}) =>
  gov.handle(
    new Request(`http://gw/api/v1${path}`, {
      ...init,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...init.headers },
    }),
  );

describe('kernel with zero plugins', () => {
  it('serves only what the kernel owns', async () => {
    const gov = createTestGovernance(idp);
    try {
      expect(Object.keys(gov.openapi.paths).sort()).toEqual([
        '/api/v1/auth/callback',
        '/api/v1/auth/login',
        '/api/v1/auth/logout',
        '/api/v1/auth/sessions',
        '/api/v1/auth/sessions/{id}',
        '/api/v1/auth/userinfo',
        '/api/v1/connectors',
        '/api/v1/connectors/{id}',
        '/api/v1/livez',
        '/api/v1/metrics',
        '/api/v1/openapi.json',
        '/api/v1/readyz',
        '/api/v1/status',
        '/api/v1/tenants',
        '/api/v1/tenants/{id}/status',
        '/api/v1/users/{userId}/sessions',
        '/api/v1/users/{userId}/sessions/{id}',
      ]);
      expect(new Set(gov.routes.map((r) => r.plugin))).toEqual(new Set(['gateway']));
      const token = await idp.signIdToken({ sub: 'ea', roles: ['enterprise_admin'], tenant_id: 't' });
      expect((await get(gov, '/policies', token)).status).toBe(404);
      const status = await get(gov, '/status');
      expect(status.status).toBe(200);
      expect(Object.keys((await status.json()).components)).toEqual(['gateway', 'database', 'connectors']);
      const metrics = await (await get(gov, '/metrics', token)).json();
      expect(metrics).toMatchObject({ activeUsers: 1, auditEntries: 0, policyEvaluations: 0 });
    } finally {
      await gov.close();
    }
  });

  it('refuses two plugins of one name and a route naming an unknown rate-limit category', () => {
    const p = (name: string, rateLimit?: string): GatewayPlugin => ({
      name,
      routes: [
        defineRoute({
          method: 'GET',
          path: `/${name}`,
          operationId: name,
          summary: name,
          auth: 'none',
          ...(rateLimit ? { rateLimit } : {}),
          responses: {},
          handler: async () => ({ status: 204, body: null }),
        }),
      ],
    });
    expect(() => createTestGovernance(idp, { plugins: [p('a'), p('a')] })).toThrow(/two gateway plugins/);
    expect(() => createTestGovernance(idp, { plugins: [p('b', 'nope')] })).toThrow(/unknown rate-limit/);
  });
});

describe('a third-party plugin', () => {
  it('adds a route, a rate-limit category, a health component and a counter in under 30 lines', async () => {
    // --- the plugin: everything a domain package's `./gateway` subpath exports (22 lines)
    const greetings: string[] = [];
    const greeter = definePlugin({
      name: 'greeter',
      rateLimits: { greetings: { points: 3, durationSeconds: 60 } },
      routes: [
        defineRoute({
          method: 'POST',
          path: '/greetings',
          operationId: 'greet',
          summary: 'Greet someone',
          auth: 'required',
          roles: ['team_lead'],
          rateLimit: 'greetings',
          body: z.object({ name: z.string().min(1) }),
          responses: { 201: { description: 'Greeted', schema: z.object({ text: z.string() }) } },
          async handler({ body }, ctx) {
            greetings.push(`${ctx.tenantId}:${body.name}`);
            return { status: 201, body: { text: `hello ${body.name} from ${ctx.principal.userId}` } };
          },
        }),
      ],
      health: async () => ({ greeter: true }),
      metrics: async () => ({ tasksDiscovered: greetings.length }),
    });
    // --- mounting it
    const gov = createTestGovernance(idp, { plugins: [greeter] });
    try {
      const lead = await idp.signIdToken({ sub: 'tl', roles: ['team_lead'], tenant_id: 't' });
      const user = await idp.signIdToken({ sub: 'u', roles: ['user'], tenant_id: 't' });
      const post = (token: string, body: unknown) =>
        get(gov, '/greetings', token, { method: 'POST', body: JSON.stringify(body) });
      expect((await post(user, { name: 'x' })).status).toBe(403);
      const ok = await post(lead, { name: 'ada' });
      expect(ok.status).toBe(201);
      expect(await ok.json()).toEqual({ text: 'hello ada from tl' });
      expect(ok.headers.get('ratelimit-policy')).toBe('"greetings";q=3;w=60');
      expect((await (await post(lead, {})).json()).error).toBe('missing_type');
      // the user's 403 did not count (issue 12 item 4): the third allowed request succeeds
      expect((await post(lead, { name: 'bo' })).status).toBe(201);
      expect((await post(lead, { name: 'cy' })).status).toBe(429);
      expect(greetings).toEqual(['t:ada', 't:bo']);
      expect(gov.openapi.paths['/api/v1/greetings']?.post).toMatchObject({
        tags: ['greeter'],
        'x-roles': ['team_lead'],
        'x-rate-limit': { category: 'greetings', points: 3 },
      });
      expect((await (await get(gov, '/status')).json()).components.greeter).toEqual({ status: 'healthy' });
      const admin = await idp.signIdToken({ sub: 'ea', roles: ['enterprise_admin'], tenant_id: 't' });
      expect((await (await get(gov, '/metrics', admin)).json()).tasksDiscovered).toBe(2);
    } finally {
      await gov.close();
    }
  });

  it('an unhealthy or failing plugin makes /status degraded; start and close run in order', async () => {
    const calls: string[] = [];
    const plugin = (name: string, healthy: boolean | 'throws'): GatewayPlugin => ({
      name,
      routes: [],
      start: async () => {
        calls.push(`start ${name}`);
      },
      close: async () => {
        calls.push(`close ${name}`);
      },
      health: async () => {
        if (healthy === 'throws') throw new Error('down');
        return { [name]: healthy };
      },
    });
    const gov = createTestGovernance(idp, { plugins: [plugin('one', true), plugin('two', 'throws')] });
    await gov.start();
    const status = await get(gov, '/status');
    expect(status.status).toBe(503);
    expect((await status.json()).components).toMatchObject({
      one: { status: 'healthy' },
      two: { status: 'unhealthy' },
    });
    await gov.close();
    expect(calls).toEqual(['start one', 'start two', 'close two', 'close one']);
  });
});

describe('JWKS refresh on an unknown kid', () => {
  it('a token signed by a newly published key verifies after the issuer rotates', async () => {
    const a = await generateKeyPair('ES256', { extractable: true });
    const b = await generateKeyPair('ES256', { extractable: true });
    const jwkA = { ...(await exportJWK(a.publicKey)), kid: 'a', alg: 'ES256', use: 'sig' };
    const jwkB = { ...(await exportJWK(b.publicKey)), kid: 'b', alg: 'ES256', use: 'sig' };
    let keys = [jwkA];
    const server = createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      if (req.url === '/.well-known/openid-configuration') {
        res.end(
          JSON.stringify({
            issuer,
            jwks_uri: `${issuer}/jwks`,
            authorization_endpoint: `${issuer}/auth`,
            token_endpoint: `${issuer}/token`,
            response_types_supported: ['code'],
            subject_types_supported: ['public'],
            id_token_signing_alg_values_supported: ['ES256'],
          }),
        );
      } else res.end(JSON.stringify({ keys }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const g = createGovernance({
      stores: createMemoryStores(),
      directory: new InMemoryOrgDirectory(),
      secrets: new InMemorySecretStore(),
      audit: new InMemoryAuditSink(),
      oidc: {
        issuer,
        clientId: 'c',
        clientSecret: 's',
        redirectUri: 'http://x/cb',
        jwksCooldownMs: 0,
        algorithms: ['ES256'],
      },
    });
    const sign = (key: CryptoKey, kid: string) =>
      new SignJWT({ tenant_id: 't', roles: ['user'] })
        .setProtectedHeader({ alg: 'ES256', kid })
        .setSubject('u')
        .setIssuer(issuer)
        .setAudience('c')
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(key);
    const call = async (t: string) =>
      (
        await g.handle(
          new Request('http://gw/api/v1/auth/userinfo', { headers: { authorization: `Bearer ${t}` } }),
        )
      ).status;
    try {
      expect(await call(await sign(a.privateKey, 'a'))).toBe(200);
      expect(await call(await sign(b.privateKey, 'b'))).toBe(401);
      keys = [jwkA, jwkB];
      expect(await call(await sign(b.privateKey, 'b'))).toBe(200);
      // an RS256 token is refused by the ES256-only allow-list
      const rs = await generateKeyPair('RS256');
      expect(
        await call(
          await new SignJWT({ tenant_id: 't' })
            .setProtectedHeader({ alg: 'RS256', kid: 'a' })
            .setSubject('u')
            .setIssuer(issuer)
            .setAudience('c')
            .setIssuedAt()
            .setExpirationTime('5m')
            .sign(rs.privateKey),
        ),
      ).toBe(401);
    } finally {
      await g.close();
      server.closeAllConnections();
      server.close();
    }
  });
});
