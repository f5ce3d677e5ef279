import { expect } from 'vitest';
import { defineConformanceSuite, UNICODE_SAMPLES } from '../testing/conformance';
import type { IdempotencyStore } from './port';
import type { IdempotencyScope, StoredResponse } from './schema';

const T0 = Date.parse('2025-11-12T10:00:00.000Z');
const at = (seconds: number): Date => new Date(T0 + seconds * 1000);
const scope = (over: Partial<IdempotencyScope> = {}): IdempotencyScope => ({
  tenantId: 'acme',
  principalId: 'ea-1',
  key: '8e03978e-40d5-43e8-bc93-6894a57f9324',
  ...over,
});
const response = (over: Partial<StoredResponse> = {}): StoredResponse => ({
  status: 201,
  headers: { 'content-type': 'application/json' },
  body: '{"id":"p-1","name":"Zoë"}',
  ...over,
});

const cases = {
  'begin: a fresh key is started; a second begin sees it in flight with the first fingerprint': async (
    store: IdempotencyStore,
  ) => {
    expect(await store.begin(scope(), 'fp-1', at(0), at(60))).toEqual({ state: 'started' });
    expect(await store.begin(scope(), 'fp-1', at(1), at(61))).toEqual({
      state: 'in_flight',
      fingerprint: 'fp-1',
    });
    expect(await store.begin(scope(), 'fp-2', at(2), at(62))).toEqual({
      state: 'in_flight',
      fingerprint: 'fp-1',
    });
  },
  'complete: the response is replayed with its fingerprint (status, headers, unicode body)': async (
    store: IdempotencyStore,
  ) => {
    const stored = response({
      status: 422,
      headers: { 'content-type': 'application/json; charset=utf-8', location: '/api/v1/policies/p-1' },
      body: JSON.stringify({ error: 'x', message: UNICODE_SAMPLES.join(' ') }),
    });
    await store.begin(scope(), 'fp-1', at(0), at(60));
    await store.complete(scope(), stored, at(86_400));
    expect(await store.begin(scope(), 'fp-1', at(10), at(70))).toEqual({
      state: 'completed',
      fingerprint: 'fp-1',
      response: stored,
    });
    // A different fingerprint sees the same record: the caller decides (422).
    expect(await store.begin(scope(), 'fp-other', at(11), at(71))).toMatchObject({
      state: 'completed',
      fingerprint: 'fp-1',
    });
  },
  'scope: the same key of another tenant or principal is independent': async (store: IdempotencyStore) => {
    await store.begin(scope(), 'fp-1', at(0), at(60));
    await store.complete(scope(), response(), at(86_400));
    expect(await store.begin(scope({ tenantId: 'globex' }), 'fp-1', at(1), at(61))).toEqual({
      state: 'started',
    });
    expect(await store.begin(scope({ principalId: 'u-alice' }), 'fp-1', at(1), at(61))).toEqual({
      state: 'started',
    });
    expect(await store.begin(scope({ key: 'K'.repeat(255) }), 'fp-1', at(1), at(61))).toEqual({
      state: 'started',
    });
    expect(await store.begin(scope(), 'fp-1', at(2), at(62))).toMatchObject({ state: 'completed' });
  },
  'expiry: an in-flight lock past lockUntil and a response past expiresAt count as absent': async (
    store: IdempotencyStore,
  ) => {
    await store.begin(scope(), 'fp-1', at(0), at(60));
    expect(await store.begin(scope(), 'fp-2', at(60), at(120))).toEqual({ state: 'started' });
    expect(await store.begin(scope(), 'fp-3', at(61), at(121))).toEqual({
      state: 'in_flight',
      fingerprint: 'fp-2',
    });
    await store.complete(scope(), response(), at(1_000));
    expect(await store.begin(scope(), 'fp-2', at(999), at(1_059))).toMatchObject({ state: 'completed' });
    expect(await store.begin(scope(), 'fp-4', at(1_000), at(1_060))).toEqual({ state: 'started' });
  },
  'release: drops an in-flight record, never a completed one': async (store: IdempotencyStore) => {
    await store.begin(scope(), 'fp-1', at(0), at(60));
    await store.release(scope());
    expect(await store.begin(scope(), 'fp-2', at(1), at(61))).toEqual({ state: 'started' });
    await store.complete(scope(), response(), at(86_400));
    await store.release(scope());
    expect(await store.begin(scope(), 'fp-2', at(2), at(62))).toMatchObject({
      state: 'completed',
      fingerprint: 'fp-2',
    });
    await store.release(scope({ key: 'never-used' })); // a no-op
  },
  'deleteExpired: removes records expired at or before now and counts them': async (
    store: IdempotencyStore,
  ) => {
    await store.begin(scope({ key: 'a' }), 'fp', at(0), at(60));
    await store.begin(scope({ key: 'b' }), 'fp', at(0), at(100));
    await store.begin(scope({ key: 'c' }), 'fp', at(0), at(60));
    await store.complete(scope({ key: 'c' }), response(), at(200));
    expect(await store.deleteExpired(at(100))).toBe(2);
    expect(await store.begin(scope({ key: 'c' }), 'fp', at(100), at(160))).toMatchObject({
      state: 'completed',
    });
    expect(await store.deleteExpired(at(100))).toBe(0);
    expect(await store.begin(scope({ key: 'a' }), 'fp', at(100), at(160))).toEqual({ state: 'started' });
  },
  'concurrency: of concurrent begins for one key exactly one is started': async (store: IdempotencyStore) => {
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => store.begin(scope(), `fp-${i}`, at(0), at(60))),
    );
    const started = results.filter((r) => r.state === 'started');
    expect(started).toHaveLength(1);
    const winner = results.indexOf(started[0] as (typeof results)[number]);
    for (const r of results.filter((r) => r.state !== 'started')) {
      expect(r).toEqual({ state: 'in_flight', fingerprint: `fp-${winner}` });
    }
  },
  'copy: mutating a stored or returned response does not change the store': async (
    store: IdempotencyStore,
  ) => {
    const stored = response();
    await store.begin(scope(), 'fp-1', at(0), at(60));
    await store.complete(scope(), stored, at(86_400));
    stored.headers['x-evil'] = '1';
    const got = await store.begin(scope(), 'fp-1', at(1), at(61));
    expect(got).toEqual({ state: 'completed', fingerprint: 'fp-1', response: response() });
    if (got.state === 'completed') got.response.headers['x-evil'] = '2';
    expect(await store.begin(scope(), 'fp-1', at(2), at(62))).toEqual({
      state: 'completed',
      fingerprint: 'fp-1',
      response: response(),
    });
  },
} satisfies Record<string, (store: IdempotencyStore) => Promise<void>>;

export type IdempotencyStoreCaseName = keyof typeof cases;
export const describeIdempotencyStoreConformance = defineConformanceSuite<
  IdempotencyStore,
  IdempotencyStoreCaseName
>('IdempotencyStore', cases);
