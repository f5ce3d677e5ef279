import { createHash } from 'node:crypto';
import { createTestGovernance, listen, startTestIssuer } from '@agentgov/gateway/testing';
import { describeAccessMatrix, describeHttpSuite } from '@agentgov/http-suite';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { mount } from '../src/index';

const expressServer = async (governance: Parameters<typeof mount>[0]) => {
  const app = express();
  app.use(mount(governance));
  app.get('/other', (_req, res) => {
    res.send('not ours');
  });
  return listen(app);
};
describeHttpSuite('express', expressServer);
describeAccessMatrix('express', expressServer);

describe('express adapter: translation', () => {
  it('keeps raw bytes, re-serializes a parsed body only when the raw bytes are gone, passes other paths on', async () => {
    const idp = await startTestIssuer();
    const gov = await createTestGovernance(idp);
    const seen: string[] = [];
    const app = express();
    // a body parser that keeps the raw bytes (as signature-checking apps do)
    app.use(
      express.json({
        verify: (req, _res, buf) => {
          (req as unknown as { rawBody: Buffer }).rawBody = Buffer.from(buf);
          seen.push(createHash('sha256').update(buf).digest('hex'));
        },
      }),
    );
    app.use(mount(gov));
    app.get('/other', (_req, res) => {
      res.send('not ours');
    });
    const s = await listen(app);
    try {
      const token = await idp.signIdToken({ sub: 'ea', roles: ['enterprise_admin'], tenant_id: 't1' });
      const raw = '{ "type": "mail",   "credentials_secret_ref": "ref-1" }';
      const r = await fetch(`${s.url}/api/v1/connectors`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: raw,
      });
      expect(r.status).toBe(201);
      expect(seen).toEqual([createHash('sha256').update(raw).digest('hex')]);
      expect(await (await fetch(`${s.url}/other`)).text()).toBe('not ours');
      const missing = await fetch(`${s.url}/api/v1/nope`);
      expect(missing.status).toBe(404);
      expect((await missing.json()).error).toBe('NOT_FOUND');
    } finally {
      await s.close();
      await idp.close();
    }
  });
});
