/** biome-ignore-all lint/suspicious/noExplicitAny: JSON bodies of a black-box HTTP suite are read without schemas */
/** Kernel behaviour: request ids, 404/405, body limits, malformed JSON, validation errors, OpenAPI. */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type Harness, policyBody } from '../harness';

/** 5 MB: five times the default body limit. */
const FIVE_MB = 5 * 1024 * 1024;
const UPLOAD_CLIENT = fileURLToPath(new URL('../upload-client.mjs', import.meta.url));

/**
 * What each of `count` sequential uploads got, from a client in its own process (`upload-client.mjs`,
 * `fetch` or node:http): `<status> <error code>`, or `error <code>` when no answer arrived.
 */
function uploads(url: string, token: string, mode: 'fetch' | 'node', count: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [UPLOAD_CLIENT, url, token, mode, String(count), String(FIVE_MB)],
      { maxBuffer: 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${error.message}\n${stderr}`));
        else resolve(JSON.parse(stdout) as string[]);
      },
    );
  });
}

export function kernelCases(h: Harness): void {
  describe('kernel', () => {
    it('echoes a well-formed X-Request-Id and generates one otherwise', async () => {
      const echoed = await h.call('/status', { headers: { 'x-request-id': 'abc-123.DEF:4_5' } });
      expect(echoed.headers.get('x-request-id')).toBe('abc-123.DEF:4_5');
      const fresh = await h.call('/status', { headers: { 'x-request-id': 'bad id with spaces' } });
      expect(fresh.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      const none = await h.call('/nope');
      expect(none.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    });
    it('every answer says nosniff: a success, a refusal, an unknown route, an error body echoing input', async () => {
      for (const r of [
        await h.call('/status'),
        await h.call('/audit'),
        await h.call('/does-not-exist'),
        await h.call('/auth/callback?error=%3Cscript%3Ealert(1)%3C%2Fscript%3E&state=x'),
      ])
        expect(r.headers.get('x-content-type-options'), `${r.status}`).toBe('nosniff');
    });
    it('answers an unknown route with 404 and the error body (no framework default)', async () => {
      h.expectError(await h.call('/does-not-exist'), 404, 'NOT_FOUND');
      h.expectError(
        await h.call('/does-not-exist', { as: 'enterpriseAdmin', method: 'POST', body: {} }),
        404,
        'NOT_FOUND',
      );
    });
    it('answers a known path with a wrong method with 405 and Allow', async () => {
      const r = await h.call('/status', { method: 'PUT', body: {} });
      h.expectError(r, 405, 'method_not_allowed');
      expect(r.headers.get('allow')).toContain('GET');
    });
    it('answers HEAD wherever GET is: the GET headers, no body (RFC 9110); Allow names HEAD', async () => {
      for (const [path, as] of [
        ['/status', undefined],
        ['/policies', 'enterpriseAdmin'],
        ['/nope-head', undefined],
      ] as const) {
        const get = await h.call(path, as ? { as } : {});
        const head = await h.call(path, { method: 'HEAD', ...(as ? { as } : {}) });
        expect([path, head.status]).toEqual([path, get.status]);
        expect(head.text).toBe('');
        expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
        expect(head.headers.get('x-request-id')).toBeTruthy();
        // Never a length the GET would not have (RFC 9110 8.6), errors too.
        const length = head.headers.get('content-length');
        if (length !== null) expect([path, Number(length)]).toEqual([path, Buffer.byteLength(get.text)]);
      }
      const put = await h.call('/status', { method: 'PUT', body: {} });
      expect(put.headers.get('allow')?.split(', ').sort()).toEqual(['GET', 'HEAD']);
    });
    it('rejects bodies over 1 MiB with 413, with and without Content-Length', async () => {
      const big = 'x'.repeat(1024 * 1024 + 1);
      h.expectError(
        await h.call('/policies', {
          as: 'enterpriseAdmin',
          method: 'POST',
          raw: big,
          headers: { 'content-type': 'application/json' },
        }),
        413,
        'payload_too_large',
      );
      const chunks = new ReadableStream<Uint8Array>({
        start(c) {
          for (let i = 0; i < 17; i++) c.enqueue(new Uint8Array(64 * 1024).fill(32));
          c.close();
        },
      });
      const res = await fetch(`${h.server.url}/api/v1/policies`, {
        method: 'POST',
        headers: { authorization: `Bearer ${h.tokens.enterpriseAdmin}`, 'content-type': 'application/json' },
        body: chunks,
        duplex: 'half',
      } as RequestInit);
      expect(res.headers.get('content-length')).not.toBe('0');
      expect(res.status).toBe(413);
      expect((await res.json()).error).toBe('payload_too_large');
    });
    it('a 5 MB body always gets its 413: 25 sequential posts with fetch, then 25 with node:http', async () => {
      // The answer goes out while the client still sends; the server reads and discards the rest
      // before it closes the connection (closing under unread data resets it, and the client may
      // lose the 413 it had not read yet). The client runs in its own process, as a real one does.
      const url = `${h.server.url}/api/v1/policies`;
      const token = h.tokens.enterpriseAdmin;
      const expected = Array.from({ length: 25 }, () => '413 payload_too_large');
      expect(await uploads(url, token, 'fetch', 25)).toEqual(expected);
      expect(await uploads(url, token, 'node', 25)).toEqual(expected);
      // Any answer given before the body is read arrives the same way (here: no such route).
      const nowhere = `${h.server.url}/api/v1/no-such-route`;
      const notFound = Array.from({ length: 5 }, () => '404 NOT_FOUND');
      expect(await uploads(nowhere, token, 'fetch', 5)).toEqual(notFound);
      expect(await uploads(nowhere, token, 'node', 5)).toEqual(notFound);
    });
    it('rejects malformed JSON with 400', async () => {
      const r = await h.call('/policies', {
        as: 'enterpriseAdmin',
        method: 'POST',
        raw: '{"scope": ',
        headers: { 'content-type': 'application/json' },
      });
      h.expectError(r, 400, 'invalid_type');
    });
    it('names the missing field (missing_type) and the invalid one (invalid_type)', async () => {
      const { name: _n, ...noName } = policyBody();
      const missing = await h.call('/policies', { as: 'enterpriseAdmin', method: 'POST', body: noName });
      h.expectError(missing, 400, 'missing_type');
      expect(missing.body.message).toContain('name');
      const invalid = await h.call('/policies', {
        as: 'enterpriseAdmin',
        method: 'POST',
        body: policyBody({ scope: 'galaxy' }),
      });
      h.expectError(invalid, 400, 'invalid_type');
      expect(JSON.stringify(invalid.body)).toContain('scope');
    });
    it('serves the OpenAPI 3.1 document of the route table', async () => {
      const r = await h.call('/openapi.json');
      expect(r.status).toBe(200);
      expect(r.body.openapi).toBe('3.1.0');
      for (const p of [
        '/api/v1/policies',
        '/api/v1/policies/{id}',
        '/api/v1/audit',
        '/api/v1/audit/export',
        '/api/v1/auth/callback',
        '/api/v1/auth/userinfo',
        '/api/v1/connectors',
        '/api/v1/connectors/{id}',
        '/api/v1/tenants',
        '/api/v1/tenants/{id}/status',
        '/api/v1/status',
        '/api/v1/metrics',
      ]) {
        expect(r.body.paths[p], p).toBeDefined();
      }
      expect(r.body.paths['/api/v1/policies'].post.requestBody).toBeDefined();
    });
  });
}
