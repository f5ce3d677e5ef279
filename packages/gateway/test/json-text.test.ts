/**
 * The kernel makes the JSON text of a deep-frozen plain body once (a record a store hands out
 * frozen, the same object for every read) and answers it again as it is; a body that can still
 * change — a frozen object holding a mutable one, a getter, a Date — is serialized anew each time.
 */
import { defineRoute, InMemoryPolicyStore } from '@agentgov/core';
import { makePolicy } from '@agentgov/core/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTestGovernance, OFFLINE_ISSUER } from '../src/testing/index';

let answer: unknown;

const gov = createTestGovernance(OFFLINE_ISSUER, {
  plugins: [
    {
      name: 'probe',
      routes: [
        defineRoute({
          method: 'GET',
          path: '/answer',
          operationId: 'answer',
          summary: 'Answers the body the test set',
          auth: 'none',
          responses: { 200: { description: 'the body' } },
          handler: async () => ({ status: 200, body: answer }),
        }),
      ],
    },
  ],
});

const get = async (): Promise<string> => {
  const res = await gov.handle(new Request('http://gw/api/v1/answer'));
  expect(res.status).toBe(200);
  return res.text();
};

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the JSON text of a frozen body', () => {
  it('is made once for a record a store hands out frozen', async () => {
    const store = new InMemoryPolicyStore();
    const policy = makePolicy({ tenantId: 'acme' });
    await store.insert(policy);
    answer = await store.get('acme', policy.id);
    expect(await store.get('acme', policy.id)).toBe(answer);
    const stringify = vi.spyOn(JSON, 'stringify');
    const first = await get();
    const second = await get();
    expect(JSON.parse(first)).toEqual(policy);
    expect(second).toBe(first);
    expect(stringify.mock.calls.filter(([value]) => value === answer)).toHaveLength(1);
  });

  it('is made anew for a frozen body that can still change', async () => {
    const inner = { n: 1 };
    answer = Object.freeze({ inner });
    expect(JSON.parse(await get())).toEqual({ inner: { n: 1 } });
    inner.n = 2;
    expect(JSON.parse(await get())).toEqual({ inner: { n: 2 } });

    let n = 1;
    answer = Object.freeze(
      Object.defineProperty({}, 'n', {
        get: () => n,
        enumerable: true,
      }),
    );
    expect(JSON.parse(await get())).toEqual({ n: 1 });
    n = 2;
    expect(JSON.parse(await get())).toEqual({ n: 2 });

    const at = new Date(0);
    answer = Object.freeze({ at: Object.freeze(at) });
    expect(JSON.parse(await get())).toEqual({ at: '1970-01-01T00:00:00.000Z' });
    at.setTime(1000);
    expect(JSON.parse(await get())).toEqual({ at: '1970-01-01T00:00:01.000Z' });

    let label = 'a';
    answer = Object.freeze({ toJSON: () => label });
    expect(JSON.parse(await get())).toBe('a');
    label = 'b';
    expect(JSON.parse(await get())).toBe('b');
  });
});
