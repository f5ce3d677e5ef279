/**
 * A2ATransport's default HTTP client (undici, keep-alive) against the general path (`fetch`,
 * injected): for the same server answers, the same status and body text, the same errors
 * (connection refused, reset before or during the body, timeout, the caller's abort), and the same
 * results of the transport's own calls (card, SendMessage: ok, JSON-RPC error, non-JSON, 500).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { AgentCard } from '@a2a-js/sdk';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2AHttpClient, type HttpResponse } from '../src/a2a/http-client';
import { A2ATransport, buildGovernedCard, toWireMessage } from '../src/a2a/index';
import { makeWorld, type World } from './harness';

/** What the server does with a request: answer (status, headers, body) or cut the connection. */
type Script =
  | { kind: 'answer'; status: number; headers: Record<string, string>; body: Buffer }
  | { kind: 'reset-before-head' }
  | { kind: 'reset-mid-body'; body: Buffer }
  | { kind: 'silent' };

const scripts = new Map<string, Script>();
let card: unknown;
let server: http.Server;
let base: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    req.resume();
    req.on('end', () => {
      if (path === '/.well-known/agent-card.json') return void res.end(JSON.stringify(card));
      if (path.endsWith('/final')) return void res.end('followed');
      const script = scripts.get(path.split('/')[2] ?? '') ?? { kind: 'silent' };
      if (script.kind === 'silent') return;
      if (script.kind === 'reset-before-head') return void req.socket.destroy();
      if (script.kind === 'reset-mid-body') {
        res.writeHead(200, { 'content-length': String(script.body.length + 10) });
        res.write(script.body);
        setImmediate(() => req.socket.destroy());
        return;
      }
      res.writeHead(script.status, script.headers);
      res.end(script.body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

/** A closed port: listened on once, then closed. */
async function refusedUrl(): Promise<string> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return `http://127.0.0.1:${port}/`;
}

/** A result or an error, as far as a caller can tell them apart. */
async function outcome<T>(p: Promise<T>): Promise<unknown> {
  try {
    return { ok: await p };
  } catch (e) {
    const err = e as Error & { code?: string; detail?: unknown; cause?: { code?: string; message?: string } };
    return {
      error: {
        name: err.name,
        message: err.message,
        code: err.code,
        detail: err.detail,
        ...(err.cause ? { cause: { code: err.cause.code, message: err.cause.message } } : {}),
      },
    };
  }
}

const readAll = (res: HttpResponse) => res.text().then((text) => ({ status: res.status, ok: res.ok, text }));

/** The same call through the default client and through an injected fetch. */
async function both(path: string, init: Parameters<A2AHttpClient['call']>[1], timeoutMs = 10_000) {
  const fast = new A2AHttpClient({ timeoutMs });
  const general = new A2AHttpClient({ timeoutMs, fetch: (...a) => fetch(...a) });
  try {
    const url = new URL(path, base);
    return [await outcome(fast.call(url, init, readAll)), await outcome(general.call(url, init, readAll))];
  } finally {
    await fast.close();
  }
}

const bodyBytes = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 60 }).map((s) => Buffer.from(s)),
  fc.string({ unit: 'grapheme', maxLength: 20 }).map((s) => Buffer.from(`\uFEFF${s}`)),
  fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b)),
  fc.jsonValue().map((v) => Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, result: v }))),
  fc.constant(Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32042, message: 'no' } }))),
);
const script: fc.Arbitrary<Script> = fc.oneof(
  fc.record({
    kind: fc.constant('answer' as const),
    status: fc.constantFrom(200, 201, 202, 204, 302, 400, 401, 404, 409, 500, 503),
    headers: fc.constantFrom<Record<string, string>>(
      {},
      { 'content-type': 'application/json' },
      { 'content-type': 'text/plain; charset=latin1' },
    ),
    body: bodyBytes,
  }),
  bodyBytes.map((b) => ({
    kind: 'answer' as const,
    status: 200,
    headers: { 'content-encoding': 'gzip' },
    body: gzipSync(b),
  })),
  fc.constantFrom(
    { kind: 'answer' as const, status: 307, headers: { location: 'x/final' }, body: Buffer.from('moved') },
    { kind: 'answer' as const, status: 301, headers: { location: 'x/final' }, body: Buffer.from('moved') },
  ),
  fc.constant({ kind: 'reset-before-head' as const }),
  bodyBytes.map((body) => ({ kind: 'reset-mid-body' as const, body })),
);

describe('A2AHttpClient: the default client gives what fetch gives', () => {
  it('for any answer of the server: status, ok, body text or the same error', async () => {
    await fc.assert(
      fc.asyncProperty(script, fc.constantFrom('GET' as const, 'POST' as const), async (s, method) => {
        const id = String(scripts.size);
        scripts.set(id, s);
        const init = method === 'GET' ? { method } : { method, body: '{"jsonrpc":"2.0"}' };
        const [fast, general] = await both(`s/${id}/`, init);
        expect(fast).toEqual(general);
      }),
      { numRuns: 150 },
    );
  });

  it('connection refused, timeout and the caller’s abort: the same errors', async () => {
    const refused = await refusedUrl();
    const a = new A2AHttpClient({});
    const b = new A2AHttpClient({ fetch: (...x) => fetch(...x) });
    const [fast, general] = [
      await outcome(a.call(refused, {}, readAll)),
      await outcome(b.call(refused, {}, readAll)),
    ];
    expect(fast).toEqual(general);
    expect(fast).toMatchObject({
      error: { name: 'TypeError', message: 'fetch failed', cause: { code: 'ECONNREFUSED' } },
    });

    scripts.set('silent', { kind: 'silent' });
    const [slowFast, slowGeneral] = await both('s/silent/', {}, 30);
    expect(slowFast).toEqual(slowGeneral);
    expect(slowFast).toMatchObject({ error: { name: 'TimeoutError' } });

    for (const c of [a, b]) {
      const controller = new AbortController();
      const call = outcome(c.call(new URL('s/silent/', base), { signal: controller.signal }, readAll));
      controller.abort(new Error('stop'));
      expect(await call).toEqual({ error: { name: 'Error', message: 'stop' } });
      const early = c.call(
        new URL('s/silent/', base),
        { signal: AbortSignal.abort(new Error('already')) },
        readAll,
      );
      expect(await outcome(early)).toEqual({ error: { name: 'Error', message: 'already' } });
    }
    await a.close();
  });
});

describe('A2ATransport: the default client and an injected fetch give the same results', () => {
  let w: World;
  beforeAll(async () => {
    w = await makeWorld();
    const peer = await w.nodes.bob.peerInfo();
    card = AgentCard.toJSON(
      await buildGovernedCard({ peer, url: `${base}s/rpc/`, signingKey: w.keyPairs.bob.signingKey }),
    );
  });
  const transports = (url: () => string, timeoutMs?: number) =>
    [undefined, (...a: Parameters<typeof fetch>) => fetch(...a)].map(
      (f) =>
        new A2ATransport({
          signingKey: w.keyPairs.alice.signingKey,
          keys: w.keys,
          resolve: url,
          ...(f ? { fetch: f } : {}),
          ...(timeoutMs ? { timeoutMs } : {}),
        }),
    );
  const jws = `e30.${Buffer.from(JSON.stringify({ contextId: 'c1', envelope: { exchangeId: 'x1' } })).toString('base64url')}.sig`;
  const reply = toWireMessage({
    messageId: 'm1',
    contextId: 'c1',
    role: 'ROLE_AGENT',
    content: { text: 'hi', items: [] },
    metadata: { envelope: 'a.b.c', kind: 'reply' },
  });
  const json = (status: number, v: unknown): Script => ({
    kind: 'answer',
    status,
    headers: { 'content-type': 'application/json' },
    body: Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)),
  });
  const answers: Record<string, Script> = {
    ok: json(200, { jsonrpc: '2.0', id: 1, result: { message: reply } }),
    rpcError: json(200, {
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32042, message: 'no', data: { reason: 'r' } },
    }),
    notJson: json(200, '<html>oops</html>'),
    status500: json(500, 'Internal Server Error'),
    silent: { kind: 'silent' },
  };

  for (const [name, answer] of Object.entries(answers)) {
    it(`SendMessage answered ${name}`, async () => {
      scripts.set('rpc', answer);
      const results = [];
      for (const t of transports(() => base, 50)) {
        const peer = await t.peer('agent-bob');
        if (!peer) throw new Error('no peer');
        results.push(await outcome(t.deliver(peer, { jws, message: { text: 'q', items: [] } })));
        await t.close();
      }
      expect(results[0]).toEqual(results[1]);
    });
  }

  it("SendMessage carries the context of the sender's claims when given, else the JWS's own", async () => {
    scripts.set('rpc', answers.ok as Script);
    const contexts: unknown[] = [];
    const t = new A2ATransport({
      signingKey: w.keyPairs.alice.signingKey,
      keys: w.keys,
      resolve: () => base,
      fetch: (input, init) => {
        const body = typeof init?.body === 'string' ? init.body : '';
        if (body.includes('"SendMessage"'))
          contexts.push(
            (JSON.parse(body) as { params: { message: { contextId: unknown } } }).params.message.contextId,
          );
        return fetch(input, init);
      },
    });
    const peer = await t.peer('agent-bob');
    if (!peer) throw new Error('no peer');
    const message = { text: 'q', items: [] };
    expect((await t.deliver(peer, { jws, message })).status).toBe('answered');
    const claims = { contextId: 'c2', envelope: { exchangeId: 'x1' } };
    expect((await t.deliver(peer, { jws, message, claims })).status).toBe('answered');
    expect(contexts).toEqual(['c1', 'c2']);
    await t.close();
  });

  it('the card: unreadable (500), not JSON, connection refused, timeout', async () => {
    const refused = await refusedUrl();
    for (const [url, timeoutMs] of [
      [`${base}s/c500/`, undefined],
      [`${base}s/cnotjson/`, undefined],
      [refused, undefined],
      [`${base}s/silent/`, 30],
    ] as const) {
      scripts.set('c500', json(500, 'nope'));
      scripts.set('cnotjson', json(200, 'nope'));
      const [fast, general] = await Promise.all(
        transports(() => url, timeoutMs).map((t) => outcome(t.peer('agent-bob'))),
      );
      expect(fast).toEqual(general);
      expect(fast).toHaveProperty('error');
    }
  });
});
