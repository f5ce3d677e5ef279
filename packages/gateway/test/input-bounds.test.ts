/**
 * Issue 12 item 3: every input is bounded before any route runs (no I/O): depth, size, NUL, lone
 * surrogates, date years outside 0001–9999 → 400 invalid_type with the spec's body.
 */
import { definePlugin, defineRoute, type ValidationError } from '@agentgov/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkInputBounds } from '../src/input-bounds';
import { createTestGovernance } from '../src/testing/index';
import { fileIssuer } from './issuer';

const idp = await fileIssuer();

const seen: unknown[] = [];
const echo = definePlugin({
  name: 'echo',
  routes: [
    defineRoute({
      method: 'POST',
      path: '/echo/{id}',
      operationId: 'echo',
      summary: 'Echo',
      auth: 'required',
      params: z.object({ id: z.string() }),
      query: z.object({ from: z.string().optional() }).passthrough(),
      body: z.object({}).passthrough(),
      responses: { 200: { description: 'ok' } },
      async handler({ body }) {
        seen.push(body);
        return { status: 200, body: {} };
      },
    }),
  ],
});

const nested = (depth: number): unknown => (depth === 0 ? 'leaf' : { a: nested(depth - 1) });

describe('input bounds (issue 12 item 3)', () => {
  it.each([
    ['nested 17 deep', { context: nested(17) }, ''],
    ['a NUL character', { name: 'a\u0000b' }, ''],
    ['a NUL character in a key', { 'k\u0000': 1 }, ''],
    ['a lone high surrogate', { name: 'x\uD800y' }, ''],
    ['a lone low surrogate', { name: '\uDC00' }, ''],
    ['a string over 64 KiB', { additional: { blob: 'x'.repeat(70_000) } }, ''],
    ['more than 5 000 values', { additional: Array.from({ length: 6_000 }, (_, i) => i) }, ''],
    ['a date in year 0000', { at: '0000-01-01T00:00:00Z' }, ''],
    ['an expanded year', { at: '+010000-01-01T00:00:00Z' }, ''],
    ['a query date in year 0000', {}, '?from=0000-01-01'],
    ['a query NUL', {}, '?from=%00'],
  ])('%s → 400 invalid_type, the route never runs', async (_name, body, query) => {
    const gov = createTestGovernance(idp, { plugins: [echo] });
    try {
      const token = await idp.signIdToken({ sub: 'u', roles: ['user'], tenant_id: 't' });
      seen.length = 0;
      const r = await gov.handle(
        new Request(`http://gw/api/v1/echo/x${query}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }),
      );
      expect(r.status).toBe(400);
      expect(await r.json()).toMatchObject({ error: 'invalid_type', message: expect.any(String) });
      expect(seen).toEqual([]);
    } finally {
      await gov.close();
    }
  });

  it('ordinary input passes (16 deep, surrogate pairs, years 0001 and 9999)', async () => {
    const gov = createTestGovernance(idp, { plugins: [echo] });
    try {
      const token = await idp.signIdToken({ sub: 'u', roles: ['user'], tenant_id: 't' });
      const body = { deep: nested(15), emoji: '🚀 ünï', a: '0001-01-01', b: '9999-12-31T23:59:59Z' };
      const r = await gov.handle(
        new Request('http://gw/api/v1/echo/x?from=2025-01-01', {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }),
      );
      expect(r.status).toBe(200);
    } finally {
      await gov.close();
    }
  });
});

describe('checkInputBounds names the refused input by its path', () => {
  const refused = (input: unknown): unknown => {
    try {
      checkInputBounds(input, '(body)');
    } catch (error) {
      return (error as ValidationError).detail;
    }
    throw new Error('accepted');
  };

  it.each([
    ['a key under an array item', { a: [{ ok: 1 }, { b: 'x\u0000' }] }, 'a[1].b'],
    ['a top-level string', 'x\uD800', '(body)'],
    ['an array item', ['ok', 'bad\uDC00'], '[1]'],
    ['a date with a year 0000', { when: { at: '0000-01-01' } }, 'when.at'],
    ['an expanded year', { at: '+010000-01-01' }, 'at'],
    ['a key itself', { 'k\u0000': 1 }, 'k\u0000'],
  ])('%s', (_what, input, field) => {
    expect(JSON.stringify(refused(input))).toContain(JSON.stringify(field));
  });

  it('accepts surrogate pairs, signs and digits that are not dates', () => {
    expect(() => checkInputBounds({ a: '🚀', b: '-1', c: '+x', d: '2025', e: '' }, '(body)')).not.toThrow();
  });
});
