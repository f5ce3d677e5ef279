import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGovernance, createMemoryDependencies } from '@agentgov/gateway';
import Koa from 'koa';
import { describe, expect, it } from 'vitest';
// The shared suite lives in @agentgov/gateway/testing (imported from source: the root vitest alias maps only package roots).
import { describeHttpSuite, startTestIssuer } from '../../gateway/src/testing/index';
import { governanceMiddleware } from '../src/index';

async function listen(app: Koa) {
  const server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describeHttpSuite('koa', async (governance) => {
  const app = new Koa();
  app.use(governanceMiddleware(governance));
  return listen(app);
});

describe('koa adapter: translation', () => {
  it('uses rawBody byte-for-byte, re-serializes a parsed body without it, never leaks Koa 404', async () => {
    const idp = await startTestIssuer();
    const deps = await createMemoryDependencies();
    const gov = createGovernance({
      ...deps,
      oidc: {
        issuer: idp.issuer,
        clientId: idp.clientId,
        clientSecret: idp.clientSecret,
        redirectUri: idp.redirectUri,
      },
    });
    const app = new Koa();
    // a minimal body parser: consumes the stream, keeps rawBody only for one path
    app.use(async (ctx, next) => {
      if (ctx.method === 'POST') {
        const chunks: Buffer[] = [];
        for await (const c of ctx.req) chunks.push(c as Buffer);
        const text = Buffer.concat(chunks).toString('utf8');
        const req = ctx.request as typeof ctx.request & { body?: unknown; rawBody?: string };
        req.body = JSON.parse(text);
        if (ctx.get('x-keep-raw')) req.rawBody = text;
      }
      await next();
    });
    app.use(governanceMiddleware(gov));
    const s = await listen(app);
    try {
      const token = await idp.signIdToken({ sub: 'ea', roles: ['enterprise_admin'], tenant_id: 't1' });
      for (const keep of ['1', '']) {
        const r = await fetch(`${s.url}/api/v1/connectors`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            'x-keep-raw': keep,
          },
          body: JSON.stringify({ type: 'drive', credentials_secret_ref: `ref-${keep}` }),
        });
        expect(r.status).toBe(201);
        expect((await r.json()).credentialsSecretRef).toBe(`ref-${keep}`);
      }
      const missing = await fetch(`${s.url}/api/v1/nope`);
      expect(missing.status).toBe(404);
      expect((await missing.json()).error).toBe('NOT_FOUND');
      const created = await fetch(`${s.url}/api/v1/status`);
      expect(created.status).toBe(200);
    } finally {
      await s.close();
      await idp.close();
    }
  });
});
