/**
 * Idempotency-Key on a real HTTP server (node:http, port 0): a retried POST replays the first
 * response without running the handler again; the same key with another body is 422, during the
 * first request 409; the key is per principal; a 5xx is not kept; no header changes nothing; a
 * malformed key is 400 invalid_type. The kernel's store is swapped for a SQL one in store tests.
 */
import { definePlugin, defineRoute, errorOf, InMemoryIdempotencyStore } from '@agentgov/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Governance } from '../src/index';
import { sendFetchResponse, toFetchRequest } from '../src/index';
import {
  createTestGovernance,
  listen,
  type StartedServer,
  startTestIssuer,
  type TestIssuer,
} from '../src/testing/index';

let idp: TestIssuer;
let gov: Governance;
let server: StartedServer;
let calls = 0;
let gate: Promise<void> | undefined;
const store = new InMemoryIdempotencyStore();

const counter = definePlugin({
  name: 'counter',
  routes: [
    defineRoute({
      method: 'POST',
      path: '/things',
      operationId: 'createThing',
      summary: 'creates a thing (counts calls)',
      auth: 'required',
      body: z.object({ name: z.string(), fail: z.enum(['none', 'conflict', 'crash']).optional() }),
      responses: {},
      async handler({ body }) {
        calls++;
        if (gate) await gate;
        if (body.fail === 'conflict') throw errorOf('POLICY_ALREADY_ACTIVE', 'already there', { n: calls });
        if (body.fail === 'crash') throw new Error('boom');
        return {
          status: 201,
          body: { id: `thing-${calls}`, name: body.name },
          headers: { location: `/things/${calls}` },
        };
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/things/{id}',
      operationId: 'deleteThing',
      summary: 'deletes a thing (counts calls)',
      auth: 'required',
      params: z.object({ id: z.string() }),
      responses: {},
      async handler({ params }) {
        calls++;
        return { status: 200, body: { id: params.id, deleted: calls } };
      },
    }),
  ],
});

beforeAll(async () => {
  idp = await startTestIssuer();
  gov = createTestGovernance(idp, { plugins: [counter], idempotency: store, onError: () => {} });
  server = await listen(async (req, res) => {
    await sendFetchResponse(res, await gov.handle(toFetchRequest(req, res)));
  });
});
afterAll(async () => {
  await server?.close();
  await gov?.close();
  await idp?.close();
});

const token = (sub = 'ea-1') => idp.signIdToken({ sub, roles: ['enterprise_admin'], tenant_id: 'acme' });

async function post(body: unknown, key: string | undefined, sub?: string): Promise<Response> {
  return fetch(`${server.url}/api/v1/things`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${await token(sub)}`,
      'content-type': 'application/json',
      ...(key === undefined ? {} : { 'idempotency-key': key }),
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

describe('Idempotency-Key over HTTP', () => {
  it('a retried POST replays the first response (status, body, Location) without a second write', async () => {
    const before = calls;
    const first = await post({ name: 'a' }, '"retry-1"');
    expect(first.status).toBe(201);
    const firstBody = await first.json();
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    // Same key (bare this time) and the same JSON with other whitespace and key order.
    const again = await post('{ "name" : "a" }', 'retry-1');
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(again.headers.get('x-request-id')).toBeTruthy();
    expect(await again.json()).toEqual(firstBody);
    expect(calls).toBe(before + 1);
  });

  it('the same key with another body is 422 idempotency_key_reused (nothing written)', async () => {
    await post({ name: 'b' }, 'reuse-1');
    const before = calls;
    const res = await post({ name: 'other' }, 'reuse-1');
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({
      error: 'idempotency_key_reused',
      message: expect.any(String),
      detail: [{ key: 'reuse-1' }],
    });
    expect(calls).toBe(before);
  });

  it('a retry while the first request runs is 409 idempotency_key_in_use', async () => {
    let open!: () => void;
    gate = new Promise((resolve) => {
      open = resolve;
    });
    const before = calls;
    const first = post({ name: 'slow' }, 'slow-1');
    // Wait until the first request is inside its handler (holding the key).
    while (calls === before) await new Promise((r) => setTimeout(r, 5));
    const second = await post({ name: 'slow' }, 'slow-1');
    expect(second.status).toBe(409);
    expect(await second.json()).toMatchObject({ error: 'idempotency_key_in_use' });
    open();
    gate = undefined;
    expect((await first).status).toBe(201);
    const third = await post({ name: 'slow' }, 'slow-1');
    expect(third.headers.get('idempotent-replayed')).toBe('true');
  });

  it('keys are per principal, 4xx answers are kept, 5xx answers are not', async () => {
    const a = await post({ name: 'p' }, 'shared-key', 'ea-1');
    const b = await post({ name: 'p' }, 'shared-key', 'ea-2');
    expect((await a.json()).id).not.toBe((await b.json()).id);

    const conflict = await post({ name: 'c', fail: 'conflict' }, 'conflict-1');
    expect(conflict.status).toBe(409);
    const conflictBody = await conflict.json();
    const replayed = await post({ name: 'c', fail: 'conflict' }, 'conflict-1');
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(await replayed.json()).toEqual(conflictBody);

    const before = calls;
    expect((await post({ name: 'x', fail: 'crash' }, 'crash-1')).status).toBe(500);
    expect((await post({ name: 'x', fail: 'crash' }, 'crash-1')).status).toBe(500);
    expect(calls).toBe(before + 2);
  });

  it('DELETE is keyed too; without the header every request runs; a malformed key is 400', async () => {
    const del = async (key?: string) =>
      fetch(`${server.url}/api/v1/things/t-9`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${await token()}`, ...(key ? { 'idempotency-key': key } : {}) },
      });
    const d1 = await (await del('del-1')).json();
    expect(await (await del('del-1')).json()).toEqual(d1);
    expect((await (await del()).json()).deleted).not.toBe((await (await del()).json()).deleted);

    for (const bad of ['has space', 'k'.repeat(256), '"unterminated']) {
      const res = await post({ name: 'z' }, bad);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({
        error: 'invalid_type',
        detail: [{ field: 'Idempotency-Key' }],
      });
    }
  });

  it('every header character: a valid key runs, anything else is 400 invalid_type — never a 5xx', async () => {
    const bearer = `Bearer ${await token('fuzz')}`;
    const allowed = (c: number) => c >= 0x21 && c <= 0x7e && c !== 0x22 && c !== 0x5c;
    for (let c = 0x20; c <= 0xff; c++) {
      const key = `k${String.fromCharCode(c)}${c}`;
      const res = await gov.handle(
        new Request('http://gw/api/v1/things', {
          method: 'POST',
          headers: { authorization: bearer, 'content-type': 'application/json', 'idempotency-key': key },
          body: JSON.stringify({ name: `c${c}` }),
        }),
      );
      expect(res.status, key).toBe(allowed(c) ? 201 : 400);
      if (res.status === 400) expect(await res.json()).toMatchObject({ error: 'invalid_type' });
    }
  });
});
