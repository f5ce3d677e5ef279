/**
 * The Node path (`governance.handleNode`) on a real node:http server at port 0: a JSON answer in
 * one write with its Content-Length; a handler that reads the Fetch Request after the kernel read
 * the body gets the same bytes; a handler's own streamed Response still streams; a request target
 * that is not a URL is a 400 with the spec's body; the client address function (trust proxy); a
 * body left unread by an early answer is drained within its bounds (bytes, time), then closed.
 */
import { Socket } from 'node:net';
import { defineRoute, type GatewayPlugin } from '@agentgov/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createClientAddress, forwardedFor } from '../src/client-address';
import { type Governance, sendFetchResponse, toFetchRequest } from '../src/index';
import {
  createTestGovernance,
  listen,
  type StartedServer,
  startTestIssuer,
  type TestIssuer,
} from '../src/testing/index';

const probe: GatewayPlugin = {
  name: 'probe',
  routes: [
    defineRoute({
      method: 'POST',
      path: '/echo',
      operationId: 'echo',
      summary: 'Echoes what the Fetch Request says after the kernel read the body',
      auth: 'none',
      body: z.object({ text: z.string() }),
      responses: { 200: { description: 'echo' } },
      async handler({ request, body }) {
        return {
          status: 200,
          body: { parsed: body.text, raw: await request.text(), type: request.headers.get('content-type') },
        };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/stream',
      operationId: 'stream',
      summary: 'A streamed text answer',
      auth: 'none',
      responses: { 200: { description: 'lines' } },
      async handler() {
        let i = 0;
        const body = new ReadableStream<Uint8Array>({
          pull(c) {
            if (i === 3) c.close();
            else c.enqueue(new TextEncoder().encode(`line ${i++}\n`));
          },
        });
        return new Response(body, { headers: { 'content-type': 'text/plain' } });
      },
    }),
  ],
};

/** A raw HTTP/1.1 exchange (the answer's status line, headers and body as sent). */
function raw(server: StartedServer, request: string): Promise<string> {
  const { port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = new Socket();
    socket.connect(Number(port), '127.0.0.1', () => socket.end(request));
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.on('error', reject);
  });
}

let idp: TestIssuer;
let gov: Governance;
let server: StartedServer;
beforeAll(async () => {
  idp = await startTestIssuer();
  gov = createTestGovernance(idp, { plugins: [probe] });
  server = await listen((req, res) => {
    gov.handleNode(req, res).catch(() => res.destroy());
  });
});
afterAll(async () => {
  await server.close();
  await gov.close();
  await idp.close();
});

describe('handleNode', () => {
  it('writes a JSON answer with its Content-Length, not chunked', async () => {
    const answer = await raw(
      server,
      'GET /api/v1/openapi.json HTTP/1.1\r\nHost: gw\r\nConnection: close\r\n\r\n',
    );
    const [head = '', body = ''] = answer.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 200 /);
    expect(head.toLowerCase()).not.toContain('transfer-encoding');
    const length = /\r\ncontent-length: (\d+)/i.exec(head)?.[1];
    expect(Number(length)).toBe(Buffer.byteLength(body, 'latin1'));
    expect(JSON.parse(Buffer.from(body, 'latin1').toString('utf8')).openapi).toMatch(/^3\.1/);
    expect(head).toMatch(/\r\nx-request-id: [0-9a-f-]{36}/i);
  });

  it('an error answer too: 404 with the spec body and its Content-Length', async () => {
    const r = await fetch(`${server.url}/api/v1/nothing-here`);
    const text = await r.text();
    expect(r.status).toBe(404);
    expect(Number(r.headers.get('content-length'))).toBe(Buffer.byteLength(text));
    expect(JSON.parse(text).error).toBe('NOT_FOUND');
  });

  it('a handler reading the Fetch Request after the kernel read the body gets the same bytes', async () => {
    const sent = '{ "text": "héllo" }';
    const r = await fetch(`${server.url}/api/v1/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: sent,
    });
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ parsed: 'héllo', raw: sent, type: 'application/json' });
  });

  it("streams a handler's own Response", async () => {
    const r = await fetch(`${server.url}/api/v1/stream`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/plain');
    expect(await r.text()).toBe('line 0\nline 1\nline 2\n');
  });

  it('a Host that makes no URL is a 400 with the spec body, never a 500', async () => {
    const answer = await raw(server, 'GET /api/v1/status HTTP/1.1\r\nHost: a b\r\nConnection: close\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(answer.split('\r\n\r\n')[1] ?? '').error).toBe('invalid_type');
  });

  it('the same answers through handle() and handleNode()', async () => {
    const viaFetch = await gov.handle(new Request('http://gw/api/v1/openapi.json'));
    const viaNode = await fetch(`${server.url}/api/v1/openapi.json`);
    expect(await viaNode.json()).toEqual(await viaFetch.json());
    expect(viaNode.headers.get('content-type')).toBe(viaFetch.headers.get('content-type'));
  });
});

describe('client address (trustProxy)', () => {
  const headers = (h: Record<string, string>) => (name: string) => h[name] ?? null;

  it('off: the peer, whatever the headers say', () => {
    const address = createClientAddress(undefined);
    expect(address('127.0.0.1', headers({ 'x-forwarded-for': '203.0.113.1' }))).toBe('127.0.0.1');
    expect(createClientAddress(false)('10.0.0.1', headers({ 'x-forwarded-for': '1.2.3.4' }))).toBe(
      '10.0.0.1',
    );
  });

  it('CIDR lists, names, hop counts and functions, as Express reads them', () => {
    const xff = headers({ 'x-forwarded-for': '198.51.100.1, 203.0.113.7, 10.1.2.3' });
    expect(createClientAddress('loopback, 10.0.0.0/8')('127.0.0.1', xff)).toBe('203.0.113.7');
    expect(createClientAddress(['loopback', '10.0.0.0/8', '203.0.113.0/24'])('127.0.0.1', xff)).toBe(
      '198.51.100.1',
    );
    expect(createClientAddress(2)('127.0.0.1', xff)).toBe('203.0.113.7');
    expect(createClientAddress(true)('127.0.0.1', xff)).toBe('198.51.100.1');
    expect(createClientAddress((a) => a === '127.0.0.1')('127.0.0.1', xff)).toBe('10.1.2.3');
    // an untrusted peer: its headers are not read
    expect(createClientAddress('loopback')('192.0.2.1', xff)).toBe('192.0.2.1');
    // IPv4-mapped loopback peers are loopback
    expect(createClientAddress('loopback')('::ffff:127.0.0.1', xff)).toBe('10.1.2.3');
    expect(() => createClientAddress('not-an-address')).toThrow();
  });

  it('RFC 7239 Forwarded: for= nodes with ports, brackets, quotes and obfuscated names', () => {
    expect(forwardedFor('for=192.0.2.60;proto=http;by=203.0.113.43')).toEqual(['192.0.2.60']);
    expect(forwardedFor('for="[2001:db8:cafe::17]:4711", For=198.51.100.17:80')).toEqual([
      '2001:db8:cafe::17',
      '198.51.100.17',
    ]);
    expect(forwardedFor('for=_hidden, proto=https, for="a,b"')).toEqual(['_hidden', 'unknown', 'a,b']);
    const address = createClientAddress('loopback', 'forwarded');
    expect(address('127.0.0.1', headers({ forwarded: 'for=198.51.100.17;proto=https' }))).toBe(
      '198.51.100.17',
    );
    // an obfuscated node stops the walk: it is what the proxy said the client is
    expect(address('127.0.0.1', headers({ forwarded: 'for=_hidden' }))).toBe('_hidden');
    expect(() => createClientAddress('loopback', 'x-real-ip' as 'forwarded')).toThrow(/forwardedHeader/);
  });
});

describe('a body left unread by an early answer (413): drained within bounds, then closed', () => {
  /**
   * Sends a POST whose declared body is much larger than what it writes (`write` bytes, then it
   * waits: a stalled client) or, with `write: 'endless'`, writes without end. Resolves what came
   * back and whether the server closed the connection.
   */
  function upload(url: string, write: number | 'endless'): Promise<{ answer: string; closed: boolean }> {
    const { port } = new URL(url);
    return new Promise((resolve) => {
      const chunks: Buffer[] = [];
      const socket = new Socket();
      const chunk = Buffer.alloc(16 * 1024, 0x20);
      const done = () => resolve({ answer: Buffer.concat(chunks).toString('latin1'), closed: true });
      socket.on('data', (c: Buffer) => chunks.push(c));
      socket.on('close', done);
      socket.on('error', () => {});
      socket.connect(Number(port), '127.0.0.1', () => {
        socket.write(
          'POST /api/v1/echo HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\nContent-Length: 1000000000\r\n\r\n',
        );
        if (write !== 'endless') {
          socket.write(Buffer.alloc(write, 0x20));
          return;
        }
        const pump = () => {
          while (!socket.destroyed && socket.writable)
            if (!socket.write(chunk)) return void socket.once('drain', pump);
        };
        pump();
      });
    });
  }

  async function serve(kind: 'node' | 'fetch', drain: { drainBytes?: number; drainMs?: number }) {
    const g = createTestGovernance(idp, { plugins: [probe], limits: { bodyBytes: 1024, ...drain } });
    const s = await listen((req, res) => {
      if (kind === 'node') g.handleNode(req, res).catch(() => res.destroy());
      else
        g.handle(toFetchRequest(req, res))
          .then((r) => sendFetchResponse(res, r, { bytes: drain.drainBytes, ms: drain.drainMs }))
          .catch(() => res.destroy());
    });
    return { s, g };
  }

  for (const kind of ['node', 'fetch'] as const) {
    it(`${kind}: a client that stops sending gets its 413, and the connection closes at the time bound`, async () => {
      const { s, g } = await serve(kind, { drainMs: 0 });
      try {
        const { answer, closed } = await upload(s.url, 4096);
        expect(answer).toMatch(/^HTTP\/1\.1 413 /);
        expect(answer.toLowerCase()).toContain('\r\nconnection: close\r\n');
        expect(answer).toContain('"error":"payload_too_large"');
        expect(closed).toBe(true);
      } finally {
        await s.close();
        await g.close();
      }
    });
    it(`${kind}: a client that never stops sending is cut off at the byte bound`, async () => {
      const { s, g } = await serve(kind, { drainBytes: 256 * 1024 });
      try {
        const { closed } = await upload(s.url, 'endless');
        expect(closed).toBe(true);
      } finally {
        await s.close();
        await g.close();
      }
    });
  }
});
