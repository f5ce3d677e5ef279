/**
 * Path parameters under a schema of length-bounded strings (`IdParams`) are checked without zod
 * when they are valid, and by zod — the same 400 body as ever — when they are not; any other
 * schema is zod's alone.
 */
import { defineRoute, IdParams } from '@agentgov/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { createTestGovernance, OFFLINE_ISSUER } from '../src/testing/index';

const Slug = z.object({ slug: z.string().regex(/^[a-z]+$/) });
const seen: unknown[] = [];

const gov = createTestGovernance(OFFLINE_ISSUER, {
  plugins: [
    {
      name: 'probe',
      routes: [
        defineRoute({
          method: 'GET',
          path: '/things/{id}',
          operationId: 'thing',
          summary: 'One thing',
          auth: 'none',
          params: IdParams,
          responses: { 200: { description: 'its params' } },
          handler: async ({ params }) => {
            seen.push(params);
            return { status: 200, body: params };
          },
        }),
        defineRoute({
          method: 'GET',
          path: '/slugs/{slug}',
          operationId: 'slug',
          summary: 'One slug',
          auth: 'none',
          params: Slug,
          responses: { 200: { description: 'its params' } },
          handler: async ({ params }) => ({ status: 200, body: params }),
        }),
      ],
    },
  ],
});

const get = async (path: string) => {
  const res = await gov.handle(new Request(`http://gw/api/v1${path}`));
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

afterEach(() => {
  vi.restoreAllMocks();
});

describe('path parameters', () => {
  it('takes valid length-bounded strings without zod, and a new object per request', async () => {
    const parse = vi.spyOn(IdParams, 'safeParse');
    expect(await get('/things/abc')).toEqual({ status: 200, body: { id: 'abc' } });
    expect(await get('/things/a%20b')).toEqual({ status: 200, body: { id: 'a b' } });
    expect(parse).not.toHaveBeenCalled();
    expect(seen.at(-1)).not.toBe(seen.at(-2));
  });

  it('refuses an out-of-bounds one with the body zod names', async () => {
    const parse = vi.spyOn(IdParams, 'safeParse');
    const long = 'x'.repeat(256);
    const refused = await get(`/things/${long}`);
    expect(parse).toHaveBeenCalledTimes(1);
    const expected = IdParams.safeParse({ id: long });
    expect(expected.success).toBe(false);
    expect(refused).toMatchObject({ status: 400, body: { error: 'invalid_type' } });
    expect(JSON.stringify(refused.body)).toContain('id');
  });

  it('leaves any other schema to zod', async () => {
    const parse = vi.spyOn(Slug, 'safeParse');
    expect(await get('/slugs/abc')).toEqual({ status: 200, body: { slug: 'abc' } });
    expect((await get('/slugs/ABC')).status).toBe(400);
    expect(parse).toHaveBeenCalledTimes(2);
  });
});
