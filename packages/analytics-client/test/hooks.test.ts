/**
 * Hooks and escape hatches against a real loopback server: onRequest/onResponse/onRetry/onError,
 * the raw Response next to the parsed value (`withResponse`), a custom fetch, default and per-call
 * headers.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  AnalyticsApiError,
  type ErrorHookContext,
  type FetchLike,
  type RequestHookContext,
  type ResponseHookContext,
  type RetryHookContext,
} from '../src';
import { hangUp, type Loopback, reply, startLoopback } from './loopback';

const TAGS = { tags: [{ tag: 'a', count: 1 }] };
const STATS = { today: { sessions: 1 }, total: { sessions: 2 }, active_sessions: 0 };

let lb: Loopback | undefined;
afterEach(async () => {
  await lb?.close();
  lb = undefined;
});
const start = async (...handlers: Parameters<typeof startLoopback>) => {
  lb = await startLoopback(...handlers);
  return lb;
};

describe('hooks', () => {
  it('calls onRequest, onResponse and onRetry for each attempt, in order, with timing and the redacted request', async () => {
    const s = await start(reply(503, { error: 'busy' }, { 'retry-after': '1' }), reply(200, TAGS));
    const log: string[] = [];
    const responses: ResponseHookContext[] = [];
    const retries: RetryHookContext[] = [];
    const client = s.client({
      hooks: {
        onRequest: (c: RequestHookContext) => {
          log.push(`request ${c.attempt} ${c.endpoint}`);
        },
        onResponse: (c) => {
          log.push(`response ${c.attempt} ${c.response.status}`);
          responses.push(c);
        },
        onRetry: (c) => {
          log.push(`retry ${c.attempt} after ${c.delayMs}`);
          retries.push(c);
        },
        onError: () => {
          log.push('error');
        },
      },
    });
    await client.request('GET', '/api/tags', { query: { token: 'secret-value' } });
    expect(log).toEqual([
      'request 1 GET /api/tags',
      'response 1 503',
      'retry 1 after 1000',
      'request 2 GET /api/tags',
      'response 2 200',
    ]);
    expect(responses[0]?.durationMs).toBeGreaterThanOrEqual(0);
    expect(retries[0]?.error).toMatchObject({ status: 503, retryAfterMs: 1000 });
    expect(retries[0]?.request.url).not.toContain('secret-value');
    expect(retries[0]?.url.searchParams.get('token')).toBe('secret-value');
  });

  it('lets onRequest add a header (e.g. a trace id) that the server receives, per attempt', async () => {
    const s = await start(reply(502, {}), reply(200, TAGS));
    const client = s.client({
      hooks: {
        onRequest: (c) => {
          c.headers.set('x-trace-id', `trace-${c.attempt}`);
        },
      },
    });
    await client.listTags();
    expect(s.seen.map((r) => r.headers['x-trace-id'])).toEqual(['trace-1', 'trace-2']);
  });

  it('lets onResponse read a clone of the body without taking it from the client', async () => {
    const s = await start(reply(200, TAGS));
    let seenBody = '';
    const client = s.client({
      hooks: {
        onResponse: async (c) => {
          seenBody = await c.response.clone().text();
        },
      },
    });
    expect(await client.listTags()).toHaveLength(1);
    expect(JSON.parse(seenBody)).toEqual(TAGS);
  });

  it('calls onError once when the call fails for good (after the retries)', async () => {
    const s = await start(hangUp);
    const errors: ErrorHookContext[] = [];
    const retries: number[] = [];
    const client = s.client({
      retry: { retries: 1 },
      hooks: { onError: (c) => void errors.push(c), onRetry: (c) => void retries.push(c.attempt) },
    });
    const e = await client.listTags().catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AnalyticsApiError);
    expect(retries).toEqual([1]);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.error).toBe(e);
    expect(errors[0]?.attempt).toBe(2);
  });

  it('fails the call with a hook exception, unchanged and not retried', async () => {
    const s = await start(reply(200, TAGS));
    const boom = new Error('metrics backend down');
    const client = s.client({
      hooks: {
        onRequest: () => {
          throw boom;
        },
      },
    });
    await expect(client.listTags()).rejects.toBe(boom);
    expect(s.seen).toHaveLength(0);
  });
});

describe('escape hatches', () => {
  it('withResponse resolves with the parsed value and the raw Response of the call', async () => {
    const s = await start((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': `r-${req.url.pathname}` });
      res.end(JSON.stringify(req.url.pathname === '/api/tags' ? TAGS : STATS));
    });
    const client = s.client();
    const [tags, stats] = await Promise.all([client.withResponse.listTags(), client.withResponse.getStats()]);
    expect(tags.data).toEqual([{ name: 'a', count: 1, extra: {} }]);
    expect(tags.response.headers.get('x-request-id')).toBe('r-/api/tags');
    expect(stats.data.total.sessions).toBe(2);
    expect(stats.response.headers.get('x-request-id')).toBe('r-/api/stats');
    expect(stats.response.status).toBe(200);
    // The plain client is unchanged.
    expect(await client.listTags()).toHaveLength(1);
  });

  it('withResponse works for downloads and the request() escape hatch, and errors keep their response', async () => {
    const s = await start(
      (_req, res) => {
        res.writeHead(200, {
          'content-type': 'text/html',
          'content-disposition': 'attachment; filename="r.html"',
        });
        res.end('<html></html>');
      },
      reply(200, { anything: 1 }),
      reply(404, { error: 'session not found' }, { 'x-request-id': 'nf' }),
    );
    const client = s.client();
    const download = await client.withResponse.export({ format: 'html' });
    expect(download.data.fileName).toBe('r.html');
    expect(download.response.headers.get('content-type')).toBe('text/html');
    await download.data.body.cancel();
    const raw = await client.withResponse.request('GET', '/api/custom');
    expect(raw).toMatchObject({ data: { anything: 1 } });
    expect(raw.response.status).toBe(200);
    const e = (await client.withResponse.getSession('x').catch((x: unknown) => x)) as AnalyticsApiError;
    expect(e.response?.headers.get('x-request-id')).toBe('nf');
    expect(e.response?.status).toBe(404);
  });

  it('uses a custom fetch, default headers and per-call headers (the call wins)', async () => {
    const s = await start(reply(200, TAGS));
    const calls: string[] = [];
    const fetch: FetchLike = (input, init) => {
      calls.push(String(input));
      return globalThis.fetch(input, init);
    };
    const client = s.client({ fetch, headers: { authorization: 'Bearer default', 'x-team': 'a' } });
    await client.listTags();
    await client.listTags({ headers: { authorization: 'Bearer call' } });
    expect(calls).toEqual([`${s.baseUrl}/api/tags`, `${s.baseUrl}/api/tags`]);
    expect(s.seen.map((r) => [r.headers.authorization, r.headers['x-team'], r.headers.accept])).toEqual([
      ['Bearer default', 'a', 'application/json'],
      ['Bearer call', 'a', 'application/json'],
    ]);
  });

  it('never copies headers into errors', async () => {
    const s = await start(reply(400, { error: 'bad' }));
    const client = s.client({ headers: { authorization: 'Bearer s3cret' } });
    const e = (await client.listTags().catch((x: unknown) => x)) as AnalyticsApiError;
    expect(JSON.stringify({ ...e, message: e.message, request: e.request })).not.toContain('s3cret');
  });
});
