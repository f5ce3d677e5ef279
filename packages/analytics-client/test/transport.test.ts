import { describe, expect, it, vi } from 'vitest';
import { AnalyticsApiError, AnalyticsClient, backoffDelay, resolveRetry, serverMessage } from '../src';
import { fixtureClient, loadFixture, recordingFetch } from './helpers';

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
const fail = async (p: Promise<unknown>) => {
  const e = await p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(AnalyticsApiError);
  return e as AnalyticsApiError;
};

describe('request shape', () => {
  it('uses the default base URL and an accept header', async () => {
    const { fetch, requests } = recordingFetch(loadFixture('stats'));
    await new AnalyticsClient({ fetch }).getStats();
    expect(requests[0]?.url.href).toBe('http://127.0.0.1:3000/api/stats');
    expect(requests[0]?.headers.get('accept')).toBe('application/json');
    expect(requests[0]?.body).toBeUndefined();
  });

  it('keeps a base path prefix and custom headers, and encodes path segments and query values', async () => {
    const { fetch, requests } = recordingFetch(
      loadFixture('session_timeline_unknown'),
      loadFixture('sessions'),
    );
    const client = new AnalyticsClient({
      fetch,
      baseUrl: 'https://proxy.example/monitor/',
      headers: { 'x-k': 'v' },
    });
    await client.getTimeline('a/b c?');
    expect(requests[0]?.url.href).toBe('https://proxy.example/monitor/api/sessions/a%2Fb%20c%3F/timeline');
    expect(requests[0]?.headers.get('x-k')).toBe('v');
    await client.listSessions({ project: 'my proj&x=1', from: new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 678)) });
    expect(requests[1]?.url.search).toBe('?project=my+proj%26x%3D1&from=2026-01-02T03%3A04%3A05Z');
    expect(requests[1]?.url.searchParams.get('project')).toBe('my proj&x=1');
  });

  it('derives the WebSocket URL from the base URL', () => {
    expect(new AnalyticsClient({ fetch: vi.fn() }).wsUrl).toBe('ws://127.0.0.1:3000/ws');
    expect(new AnalyticsClient({ fetch: vi.fn(), baseUrl: 'https://h:8443/p/' }).wsUrl).toBe(
      'wss://h:8443/p/ws',
    );
  });

  it('rejects tags with commas before sending', async () => {
    const t = fixtureClient([loadFixture('session_PATCH')]);
    await expect(t.client.updateSession('x', { tags: ['ok', 'a,b'] })).rejects.toMatchObject({
      name: 'AnalyticsValidationError',
      field: 'tags.1',
    });
    expect(t.requests).toHaveLength(0);
  });
});

describe('errors and retries', () => {
  it('retries GET on 503 with exponential backoff, then succeeds', async () => {
    const t = fixtureClient(
      [() => json(503, { error: 'busy' }), () => json(502, { error: 'bad gateway' }), loadFixture('search')],
      {
        retry: { retries: 3, minDelayMs: 100, maxDelayMs: 1000, jitter: 'none' },
      },
    );
    expect(await t.client.search('login')).toHaveLength(3);
    expect(t.requests).toHaveLength(3);
    expect(t.sleeps).toEqual([100, 200]);
  });

  it('applies full jitter within the capped exponential', () => {
    const policy = resolveRetry({ minDelayMs: 100, maxDelayMs: 1000, factor: 2 });
    expect(backoffDelay(1, policy, () => 0.999)).toBe(99);
    expect(backoffDelay(4, policy, () => 0.5)).toBe(400);
    expect(backoffDelay(30, policy, () => 0.5)).toBe(500); // capped at 1000 before jitter
    expect(backoffDelay(2, policy, () => 0)).toBe(0);
  });

  it('never retries POST or PATCH, even on 5xx or network errors', async () => {
    const t = fixtureClient([() => json(503, { error: 'busy' })]);
    const e = await fail(t.client.createBudget({ name: 'x', period: 'daily', amountUsd: 1 }));
    expect(e).toMatchObject({ kind: 'http', status: 503, serverMessage: 'busy', attempts: 1 });
    const n = fixtureClient([
      () => {
        throw new TypeError('fetch failed');
      },
    ]);
    expect((await fail(n.client.updateSession('x', { notes: 'n' }))).kind).toBe('network');
    expect(n.requests).toHaveLength(1);
  });

  it('retries PUT and DELETE on network errors', async () => {
    let calls = 0;
    const t = fixtureClient([
      () => {
        calls++;
        if (calls < 3) throw new TypeError('fetch failed', { cause: new Error('ECONNRESET') });
        return json(200, { status: 'deleted' });
      },
    ]);
    await t.client.deleteBudget(1);
    expect(calls).toBe(3);
    expect(t.sleeps).toHaveLength(2);
  });

  it('does not retry a 500: a malformed full-text query fails the same way every time', async () => {
    const t = fixtureClient([loadFixture('search_bad_fts'), loadFixture('search')]);
    const e = await fail(t.client.search('"unterminated'));
    expect(e).toMatchObject({ kind: 'http', status: 500, attempts: 1, isTransient: false });
    expect(t.requests).toHaveLength(1);
    expect(t.sleeps).toEqual([]);
  });

  it('never retries 4xx', async () => {
    const t = fixtureClient([loadFixture('session_detail_404')]);
    const e = await fail(t.client.getSession('nope'));
    expect(e.isNotFound).toBe(true);
    expect(t.requests).toHaveLength(1);
    expect(t.sleeps).toEqual([]);
  });

  it('reports a network error with its cause after exhausting retries', async () => {
    const cause = new TypeError('fetch failed');
    const t = fixtureClient([
      () => {
        throw cause;
      },
    ]);
    const e = await fail(t.client.listTags());
    expect(e).toMatchObject({ kind: 'network', attempts: 3, endpoint: 'GET /api/tags' });
    expect(e.cause).toBe(cause);
    expect(e.status).toBeUndefined();
  });

  it('times out a hanging request and says so', async () => {
    const hang = (req: { url: URL }, signal?: AbortSignal | null) =>
      new Promise<Response>((_, reject) => {
        signal?.addEventListener('abort', () => reject(signal.reason));
        void req;
      });
    const client = new AnalyticsClient({
      fetch: (input, init) => hang({ url: new URL(String(input)) }, init?.signal),
      timeoutMs: 20,
      retry: false,
    });
    const e = await fail(client.getStats());
    expect(e.kind).toBe('timeout');
    expect(e.message).toMatch(/timed out/);
  });

  it('distinguishes the caller aborting, before and during a request, and does not retry it', async () => {
    let seen = 0;
    const controller = new AbortController();
    const client = new AnalyticsClient({
      fetch: (_input, init) =>
        new Promise<Response>((_, reject) => {
          seen++;
          init?.signal?.addEventListener('abort', () => reject(init.signal?.reason));
          // The caller gives up while the request is in flight (not after a delay it may not have reached).
          controller.abort(new Error('user gave up'));
        }),
      timeoutMs: 0,
    });
    const pending = client.listSessions({}, { signal: controller.signal });
    const e = await fail(pending);
    expect(e.kind).toBe('aborted');
    expect(seen).toBe(1);
    const already = AbortSignal.abort();
    expect((await fail(client.listSessions({}, { signal: already }))).kind).toBe('aborted');
    expect(seen).toBe(1);
  });

  it('aborts during the backoff sleep', async () => {
    const controller = new AbortController();
    let fetched = 0;
    const client = new AnalyticsClient({
      fetch: async () => {
        fetched++;
        return json(502, { error: 'bad gateway' });
      },
      retry: { retries: 5, minDelayMs: 10_000, jitter: 'none' },
      // Aborted once the 10 s backoff sleep has begun (a timer queued when the retry is announced
      // runs after the sleep starts), whatever the machine's speed.
      hooks: { onRetry: () => void setTimeout(() => controller.abort(), 0) },
    });
    const e = await fail(client.getStats({}, { signal: controller.signal }));
    expect(e.kind).toBe('aborted');
    expect(e.attempts).toBe(1);
    expect(fetched).toBe(1);
  });

  it('flags a 2xx body of the wrong shape as invalid_response with the zod issue as cause', async () => {
    const t = fixtureClient([() => json(200, { sessions: [{ id: 42 }], total: 1 })]);
    const e = await fail(t.client.listSessions());
    expect(e.kind).toBe('invalid_response');
    expect(e.cause).toBeInstanceOf(Error);
    expect(String((e.cause as Error).message)).toContain('id');
    expect(t.requests).toHaveLength(1);
  });

  it('passes unknown fields through into extra instead of failing', async () => {
    const t = fixtureClient([
      () =>
        json(200, {
          budgets: [{ id: 1, name: 'b', amount_usd: 2, period: 'daily', created_at: 'x', owner: { a: 1 } }],
          v: 2,
        }),
    ]);
    const [b] = await t.client.listBudgets();
    expect(b?.extra).toEqual({ created_at: 'x', owner: { a: 1 } });
    expect(b?.project).toBeNull();
  });

  it('redacts secret-looking query values in errors', async () => {
    const t = fixtureClient([() => new Response('nope', { status: 401 })], { baseUrl: 'http://host:1/' });
    const e = await fail(t.client.request('GET', '/api/x', { query: { api_key: 'SECRET', q: 'ok' } }));
    expect(e.request.url).not.toContain('SECRET');
    expect(e.message).not.toContain('SECRET');
    expect(e.request.path).toBe('/api/x?api_key=%5Bredacted%5D&q=ok');
    expect(e.serverMessage).toBe('nope');
  });

  it('redacts credentials a cause quotes in its message (the error message is safe to log)', async () => {
    const cause = new TypeError(
      'Request cannot be constructed from a URL that includes credentials: http://user:pw@proxy:8080/x',
    );
    const t = fixtureClient([
      () => {
        throw cause;
      },
    ]);
    const e = await fail(t.client.listTags({ retry: false }));
    expect(e.message).not.toMatch(/user|pw@/);
    expect(e.message).toContain('credentials: http://[redacted]@proxy:8080/x');
    expect(e.cause).toBe(cause);
  });

  it('cuts a JSON error text at 200 characters, like a plain-text one', () => {
    const long = 'x'.repeat(300);
    expect(serverMessage(JSON.stringify({ error: long }))).toBe(`${'x'.repeat(200)}…`);
    expect(serverMessage(long)).toBe(`${'x'.repeat(200)}…`);
    expect(serverMessage(JSON.stringify({ error: 'short' }))).toBe('short');
    expect(serverMessage('<html>oops</html>')).toBeUndefined();
  });
});

describe('export streams', () => {
  it('falls back to a default file name without Content-Disposition and streams a cancellable body', async () => {
    const t = fixtureClient([
      () => new Response('[]', { status: 200, headers: { 'content-type': 'application/json' } }),
    ]);
    const file = await t.client.export();
    expect(file.fileName).toBe('claude-monitor-export.json');
    expect(file.body).toBeInstanceOf(ReadableStream);
    await file.body.cancel();
  });

  it('uses an RFC 8187 filename* when present', async () => {
    const t = fixtureClient([
      () =>
        new Response('x', {
          status: 200,
          headers: {
            'content-disposition': `attachment; filename="r.html"; filename*=UTF-8''r%C3%A9port.html`,
          },
        }),
    ]);
    expect((await t.client.export({ format: 'html' })).fileName).toBe('réport.html');
  });

  it('asks for the media type of the requested format (Accept), and JSON elsewhere', async () => {
    const t = fixtureClient([
      loadFixture('export_csv'),
      loadFixture('export_html'),
      loadFixture('export_json'),
    ]);
    for (const format of ['csv', 'html', 'json'] as const)
      await (await t.client.export({ format })).body.cancel();
    await t.client.exportSessions().catch(() => undefined);
    await t.client.export({ format: 'csv' }, { headers: { accept: '*/*' } }).then((f) => f.body.cancel());
    expect(t.requests.map((r) => r.headers.get('accept'))).toEqual([
      'application/zip',
      'text/html',
      'application/json',
      'application/json',
      '*/*',
    ]);
  });
});
