/**
 * The console plugin's answers on a real server: the page with the API base path, content types,
 * the CSP (no unsafe-inline), caching of hashed assets, gzip, 304, 404 for a missing asset (never
 * the page), 405 for writes, the SPA's routes, and `/` redirected for a browser only; the README
 * quotes the CSP as sent.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sendFetchResponse, toFetchRequest } from '@agentgov/gateway';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsolePlugin, consoleRoutes } from '../src/gateway';

const INDEX =
  '<!doctype html><meta name="agentgov-api-base" content="%AGENTGOV_API_BASE%"><script type="module" src="/console/assets/app-abc123.js"></script>';
const SCRIPT = `console.log(${JSON.stringify('x'.repeat(2000))});`;

describe('consoleRoutes', () => {
  let dir: string;
  let plugin: ConsolePlugin;
  let server: http.Server;
  let base: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'console-app-'));
    await mkdir(path.join(dir, 'assets'));
    await writeFile(path.join(dir, 'index.html'), INDEX);
    await writeFile(path.join(dir, 'assets', 'app-abc123.js'), SCRIPT);
    await writeFile(path.join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    plugin = consoleRoutes({ appDir: dir });
    await plugin.start?.({ basePath: '/gov/v2' });
    server = http.createServer((req, res) => {
      plugin
        .serve(toFetchRequest(req, res))
        .then((r) => sendFetchResponse(res, r ?? new Response('not mine', { status: 418 })));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  it('serves the page with the base path, a strict CSP and revalidation; client routes get the page', async () => {
    for (const p of ['/console', '/console/', '/console/audit/01ABC']) {
      const r = await fetch(base + p);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(r.headers.get('cache-control')).toBe('no-cache');
      const csp = r.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).not.toContain('unsafe-eval');
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      expect(await r.text()).toContain('content="/gov/v2"');
    }
  });

  it('the README quotes the CSP the plugin sends, word for word', async () => {
    const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
    const quoted = /\*\*CSP\*\* on every answer: `([^`]+)`/.exec(readme)?.[1]?.replace(/\s+/g, ' ');
    const sent = (await fetch(`${base}/console/`)).headers.get('content-security-policy');
    expect(quoted).toBe(sent);
  });

  it('serves hashed assets for a year, gzip when asked, 304 on a matching ETag', async () => {
    const r = await fetch(`${base}/console/assets/app-abc123.js`, { headers: { 'accept-encoding': 'gzip' } });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(r.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(r.headers.get('content-encoding')).toBe('gzip');
    expect(await r.text()).toBe(SCRIPT);
    const again = await fetch(`${base}/console/assets/app-abc123.js`, {
      headers: { 'if-none-match': r.headers.get('etag') ?? '' },
    });
    expect(again.status).toBe(304);
    const svg = await fetch(`${base}/console/favicon.svg`);
    expect(svg.headers.get('content-type')).toBe('image/svg+xml');
  });

  it('a missing asset is 404 (never the page); writes are 405; other paths are not the console’s', async () => {
    expect((await fetch(`${base}/console/assets/gone-123.js`)).status).toBe(404);
    const missing = await fetch(`${base}/console/missing.css`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: 'NOT_FOUND', message: 'No console asset missing.css' });
    const post = await fetch(`${base}/console/`, { method: 'POST', body: '{}' });
    expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
    expect((await fetch(`${base}/consoles`)).status).toBe(418);
    expect((await fetch(`${base}/api/v1/status`)).status).toBe(418);
  });

  it('redirects a browser from / to the console; an API client asking for / is not redirected', async () => {
    const browser = await fetch(`${base}/`, { headers: { accept: 'text/html' }, redirect: 'manual' });
    expect([browser.status, browser.headers.get('location')]).toEqual([302, '/console/']);
    const client = await fetch(`${base}/`, { headers: { accept: 'application/json' }, redirect: 'manual' });
    expect(client.status).toBe(418);
  });

  it('an app that is not built: the server starts, the console answers 503 saying so', async () => {
    const missing = consoleRoutes({ appDir: path.join(dir, 'nowhere') });
    await missing.start?.({ basePath: '/api/v1' });
    const r = await missing.serve(new Request('http://localhost/console/'));
    expect(r?.status).toBe(503);
    expect(await r?.text()).toMatch(/not built/);
  });

  it('refuses a base path it would have to escape', async () => {
    const other = consoleRoutes({ appDir: dir });
    await expect(other.start?.({ basePath: '/api/"><script>' })).rejects.toThrow(/cannot use the base path/);
  });
});
