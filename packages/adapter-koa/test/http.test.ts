import { createTestGovernance, listen, startTestIssuer } from '@agentgov/gateway/testing';
import { describeAccessMatrix, describeHttpSuite } from '@agentgov/http-suite';
import Koa from 'koa';
import { describe, expect, it } from 'vitest';
import { mount } from '../src/index';

const koaServer = async (governance: Parameters<typeof mount>[0]) => {
  const app = new Koa();
  app.use(mount(governance));
  return listen(app.callback());
};
describeHttpSuite('koa', koaServer);
describeAccessMatrix('koa', koaServer);

describe('koa adapter: translation', () => {
  it('uses rawBody byte-for-byte, re-serializes a parsed body without it, never leaks Koa 404', async () => {
    const idp = await startTestIssuer();
    const gov = await createTestGovernance(idp);
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
    app.use(mount(gov));
    const s = await listen(app.callback());
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
