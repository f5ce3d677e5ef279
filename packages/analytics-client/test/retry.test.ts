/**
 * Retries against a real loopback server: which answers are retried (network errors, 429, 502, 503,
 * 504) and which are not (500, 4xx, POST/PATCH unless opted in), `Retry-After` in both forms, the
 * jittered backoff, the total deadline, per-call signal and timeout. Waits are recorded by an injected
 * sleep (no real backoff), the clock is injected where dates matter.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { AnalyticsApiError, parseRetryAfter } from '../src';
import { hangUp, type Loopback, reply, startLoopback } from './loopback';

const TAGS = { tags: [{ tag: 'a', count: 1 }] };
const BUDGET = { id: 7, name: 'b', project_path: '', period: 'daily', amount_usd: 1, enabled: true };
const NOW = Date.parse('2026-11-23T12:00:00Z');

let lb: Loopback | undefined;
afterEach(async () => {
  await lb?.close();
  lb = undefined;
});
/**
 * Per-attempt timeouts under the test's control (the client's `timeoutSignal`): an attempt times
 * out when `expire()` is called — from a handler, once the server holds the request — never
 * because a busy machine was slower than a real timer. `requested` lists each attempt's timeout.
 */
function manualTimeouts() {
  const pending = new Set<AbortController>();
  const requested: number[] = [];
  return {
    requested,
    signal: (ms: number): AbortSignal => {
      requested.push(ms);
      const c = new AbortController();
      pending.add(c);
      return c.signal;
    },
    expire: (): void => {
      for (const c of pending) c.abort(new DOMException('The operation timed out.', 'TimeoutError'));
      pending.clear();
    },
  };
}

const start = async (...handlers: Parameters<typeof startLoopback>) => {
  lb = await startLoopback(...handlers);
  return lb;
};
const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => {
      expect(e).toBeInstanceOf(AnalyticsApiError);
      return e as AnalyticsApiError;
    },
  );

describe('what is retried', () => {
  for (const status of [502, 503, 504]) {
    it(`retries ${status} with jittered exponential backoff, then succeeds`, async () => {
      const s = await start(reply(status, { error: 'x' }), reply(status, { error: 'x' }), reply(200, TAGS));
      const client = s.client({ retry: { minDelayMs: 100, maxDelayMs: 1000 }, random: () => 0.5 });
      expect(await client.listTags()).toEqual([{ name: 'a', count: 1, extra: {} }]);
      expect(s.seen).toHaveLength(3);
      expect(s.sleeps).toEqual([50, 100]); // 100·2^(n-1) scaled by random() = 0.5
    });
  }

  it('retries a dropped connection (network error) and reports the last one after the retries', async () => {
    const s = await start(hangUp);
    const e = await failure(s.client({ retry: { retries: 2 } }).listTags());
    expect(e).toMatchObject({ kind: 'network', attempts: 3, isTransient: true });
    expect(s.seen).toHaveLength(3);
    expect(s.sleeps).toHaveLength(2);
  });

  it('does not retry 500, 400, 404 or 409', async () => {
    for (const status of [500, 400, 404, 409]) {
      const s = await start(reply(status, { error: `e${status}` }));
      const e = await failure(s.client().listTags());
      expect(e).toMatchObject({ kind: 'http', status, attempts: 1, serverMessage: `e${status}` });
      expect(s.seen).toHaveLength(1);
      expect(s.sleeps).toEqual([]);
      await s.close();
      lb = undefined;
    }
  });

  it('never retries POST or PATCH unless the caller opts in with nonIdempotent', async () => {
    const s = await start(reply(503, { error: 'busy' }));
    const client = s.client();
    const input = { name: 'b', period: 'daily', amountUsd: 1 } as const;
    expect(await failure(client.createBudget(input))).toMatchObject({ status: 503, attempts: 1 });
    expect(await failure(client.updateSession('s', { notes: 'n' }))).toMatchObject({ attempts: 1 });
    expect(await failure(client.syncGit())).toMatchObject({ attempts: 1 });
    expect(s.seen.map((r) => r.method)).toEqual(['POST', 'PATCH', 'POST']);
    // Opted in per call: retried like a GET.
    expect(await failure(client.createBudget(input, { retry: { nonIdempotent: true } }))).toMatchObject({
      attempts: 3,
    });
    expect(s.seen).toHaveLength(6);
  });

  it('retries an opted-in POST to success', async () => {
    const s = await start(reply(502, { error: 'x' }), reply(201, BUDGET));
    const client = s.client({ retry: { nonIdempotent: true } });
    const b = await client.createBudget({ name: 'b', period: 'daily', amountUsd: 1 });
    expect(b.id).toBe(7);
    expect(s.seen.map((r) => r.body)).toEqual([s.seen[0]?.body, s.seen[0]?.body]);
  });

  it('retries PUT and DELETE (idempotent) on 503', async () => {
    const s = await start(
      reply(503, {}),
      reply(200, BUDGET),
      reply(503, {}),
      reply(200, { status: 'deleted' }),
    );
    const client = s.client();
    await client.updateBudget(7, { name: 'b', period: 'daily', amountUsd: 1 });
    await client.deleteBudget(7);
    expect(s.seen.map((r) => r.method)).toEqual(['PUT', 'PUT', 'DELETE', 'DELETE']);
  });

  it("merges per-call retry options over the client's, field by field", async () => {
    const s = await start(reply(503, {}));
    const client = s.client({ retry: { retries: 1, minDelayMs: 40, jitter: 'none' } });
    await failure(
      client.createBudget({ name: 'b', period: 'daily', amountUsd: 1 }, { retry: { nonIdempotent: true } }),
    );
    expect(s.seen).toHaveLength(2); // the client's 1 retry, now for a POST
    expect(s.sleeps).toEqual([40]); // the client's delay
    await failure(client.listTags({ retry: { retries: 2 } }));
    expect(s.sleeps).toEqual([40, 40, 80]);
  });

  it('retry: false and retries: 0 disable retries', async () => {
    const s = await start(reply(503, {}));
    expect(await failure(s.client({ retry: false }).listTags())).toMatchObject({ attempts: 1 });
    expect(await failure(s.client().listTags({ retry: { retries: 0 } }))).toMatchObject({ attempts: 1 });
    expect(s.seen).toHaveLength(2);
  });
});

describe('Retry-After', () => {
  it('waits the seconds a 429 asks for instead of the backoff', async () => {
    const s = await start(reply(429, { error: 'slow down' }, { 'retry-after': '3' }), reply(200, TAGS));
    await s.client({ retry: { minDelayMs: 10 } }).listTags();
    expect(s.sleeps).toEqual([3000]);
    expect(s.seen).toHaveLength(2);
  });

  it('waits until an HTTP date', async () => {
    const at = new Date(NOW + 7000).toUTCString();
    const s = await start(reply(429, {}, { 'retry-after': at }), reply(200, TAGS));
    await s.client({ now: () => NOW }).listTags();
    expect(s.sleeps).toEqual([7000]);
  });

  it('honours Retry-After on 503 too, and falls back to the backoff when it is unparsable', async () => {
    const s = await start(
      reply(503, {}, { 'retry-after': '1' }),
      reply(429, {}, { 'retry-after': 'soon' }),
      reply(200, TAGS),
    );
    await s.client({ retry: { minDelayMs: 100, jitter: 'none' } }).listTags();
    expect(s.sleeps).toEqual([1000, 200]);
  });

  it('gives up at once when Retry-After is longer than maxRetryAfterMs, and exposes it', async () => {
    const s = await start(reply(429, { error: 'quota' }, { 'retry-after': '3600' }));
    const e = await failure(s.client({ retry: { maxRetryAfterMs: 60_000 } }).listTags());
    expect(e).toMatchObject({ status: 429, attempts: 1, retryAfterMs: 3_600_000, serverMessage: 'quota' });
    expect(e.response?.headers.get('retry-after')).toBe('3600');
    expect(s.sleeps).toEqual([]);
  });

  it('parses both forms and rejects garbage', () => {
    expect(parseRetryAfter('120', NOW)).toBe(120_000);
    expect(parseRetryAfter(' 0 ', NOW)).toBe(0);
    expect(parseRetryAfter(new Date(NOW + 1500).toUTCString(), NOW)).toBe(1000); // second precision
    expect(parseRetryAfter('Sun, 06 Nov 1994 08:49:37 GMT', NOW)).toBe(0); // in the past
    for (const bad of [null, undefined, '', '-1', '1.5', 'soon', '12abc']) {
      expect(parseRetryAfter(bad, NOW)).toBeUndefined();
    }
  });
});

describe('deadline, signal and timeout', () => {
  it('does not start a retry whose wait would end after the total deadline', async () => {
    let now = NOW;
    const s = await start(reply(503, {}, { 'retry-after': '5' }));
    const sleep = async (ms: number) => {
      s.sleeps.push(ms);
      now += ms; // the injected clock follows the injected sleep
    };
    const client = s.client({ now: () => now, sleep, retry: { retries: 5, deadlineMs: 12_000 } });
    const e = await failure(client.listTags());
    // Waits of 5 s at t=0 and t=5 s fit in 12 s; a third would end at 15 s.
    expect(s.sleeps).toEqual([5000, 5000]);
    expect(e).toMatchObject({ status: 503, attempts: 3 });
  });

  it('shortens the last attempt to the time left and fails with a timeout at the deadline', async () => {
    const timeouts = manualTimeouts();
    let now = NOW;
    // The server holds the request while the injected clock reaches the deadline; the attempt's timer fires then.
    const s = await start(() => {
      now += 150;
      timeouts.expire();
    });
    const client = s.client({
      timeoutMs: 10_000,
      retry: { deadlineMs: 150 },
      now: () => now,
      timeoutSignal: timeouts.signal,
    });
    const e = await failure(client.listTags());
    expect(e).toMatchObject({ kind: 'timeout', attempts: 1 });
    // The attempt's timeout was shortened from 10 s to the 150 ms left; no retry after the deadline.
    expect(timeouts.requested).toEqual([150]);
    expect(s.seen).toHaveLength(1);
    expect(s.sleeps).toEqual([]);
  });

  it('applies a per-call timeout, retrying the timed-out GET', async () => {
    const timeouts = manualTimeouts();
    const s = await start(timeouts.expire, timeouts.expire, reply(200, TAGS));
    const tags = await s
      .client({ timeoutMs: 30_000, timeoutSignal: timeouts.signal })
      .listTags({ timeoutMs: 80 });
    expect(tags).toHaveLength(1);
    expect(s.seen).toHaveLength(3);
    expect(timeouts.requested).toEqual([80, 80, 80]);
    expect(s.sleeps).toHaveLength(2);
  });

  it('aborts through the per-call signal, without retrying', async () => {
    const controller = new AbortController();
    // Cancelled while the server holds the request (not after a real delay the request may not have made).
    const s = await start(() => controller.abort(new Error('user cancelled')));
    const pending = s.client().listTags({ signal: controller.signal });
    const e = await failure(pending);
    expect(e).toMatchObject({ kind: 'aborted', attempts: 1 });
    expect(s.seen).toHaveLength(1);
  });
});
