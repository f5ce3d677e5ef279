/**
 * What a pull reads from a connector's URL — which the tenant's admin chooses, so it may point at
 * an internal service: an error answer's body is never quoted into the error (it becomes the
 * connector's `errorDetails`, shown to the tenant), a redirect is not followed (the credentials
 * go to the configured host only), and an answer larger than the cap is refused, not buffered.
 * Against a real HTTP server on loopback.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MAX_PULL_ANSWER_BYTES } from '../src/http-tracker';
import { getJson, PullError } from '../src/sync/pull-http';

let server: Server;
let base: string;
const seen: { path: string; authorization: string | undefined }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ path: req.url ?? '', authorization: req.headers.authorization });
    if (req.url === '/internal') {
      res.writeHead(403, { 'content-type': 'text/plain' });
      res.end('INTERNAL-ONLY: db_password=hunter2');
    } else if (req.url === '/moved') {
      res.writeHead(302, { location: '/elsewhere' });
      res.end();
    } else if (req.url === '/huge') {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(1024 * 1024, 0x20);
      let sent = 0;
      const more = () => {
        while (sent <= MAX_PULL_ANSWER_BYTES) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', more);
        }
        res.end('{}');
      };
      more();
    } else {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const pull = (path: string) =>
  getJson(new URL(`${base}${path}`), z.object({ ok: z.boolean() }), { type: 'bearer', token: 'T0KEN' }, {});

describe('getJson (a scheduled pull’s GET)', () => {
  it('reads a JSON answer', async () => {
    expect(await pull('/fine')).toEqual({ ok: true });
  });

  it('an error answer is reported by its status, its body never quoted', async () => {
    const error = await pull('/internal').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PullError);
    expect((error as Error).message).toMatch(/answered 403$/);
    expect((error as Error).message).not.toContain('hunter2');
  });

  it('a redirect is not followed: the credentials reach the configured URL only', async () => {
    seen.length = 0;
    const error = await pull('/moved').catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/answered 302 \(a redirect, not followed\)/);
    expect(seen.map((s) => s.path)).toEqual(['/moved']);
  });

  it('an answer larger than the cap is refused, not buffered', async () => {
    const error = await pull('/huge').catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/answered more than 16 MiB/);
  });
});
