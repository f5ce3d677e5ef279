/**
 * The governed A2A server's limits, tried from outside (found in review): a task id that is not a
 * string, or JSON nested deeper than anything a governed agent reads, is a JSON-RPC error — never
 * a 500 with the engine's words — and the server forgets tasks (`RetainingTaskStore`): an ended
 * task after its retention, any task past its maximum age, and never more than its cap.
 */
import { type Task, TaskState } from '@a2a-js/sdk';
import { ServerCallContext, type User } from '@a2a-js/sdk/server';
import { ManualClock } from '@agentgov/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RetainingTaskStore } from '../src/a2a/task-store';
import { governedHeaders, postJsonRpc, type ServedAgents, serveAgents } from './a2a-harness';
import { answerWith, itemsAt, makeWorld, type World } from './harness';

let w: World;
let served: ServedAgents<'alice' | 'bob'>;
beforeAll(async () => {
  w = await makeWorld({ stores: 'separate' });
  served = await serveAgents(w, ['alice', 'bob'], { node: { answer: answerWith(itemsAt('public')) } });
});
afterAll(async () => {
  await served?.close();
});

const bob = () => served.servers.bob.url;

describe('the gate answers malformed reads with JSON-RPC errors, never a 500', () => {
  it('GetTask with an id that is not a string (one that even throws when made a string) → -32602', async () => {
    for (const id of [{ toString: null, valueOf: null }, 42, ['t'], null]) {
      const r = await postJsonRpc(
        bob(),
        { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id } },
        await governedHeaders(w, 'alice', 'bob', 'GetTask'),
      );
      expect(r.status, JSON.stringify(id)).toBe(200);
      expect(r.body.error).toEqual({ code: -32602, message: 'Invalid params: id must be a string' });
    }
  });

  it('a request id that is no string, number or null → -32600 with a null id (JSON-RPC 2.0)', async () => {
    for (const id of [{ a: 1 }, ['x'], true]) {
      const r = await postJsonRpc(
        bob(),
        { jsonrpc: '2.0', id, method: 'GetTask', params: { id: 't' } },
        await governedHeaders(w, 'alice', 'bob', 'GetTask'),
      );
      expect(r.status, JSON.stringify(id)).toBe(200);
      expect(r.body).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'Invalid Request' },
      });
    }
    for (const id of ['s', 5, null]) {
      const r = await postJsonRpc(
        bob(),
        { jsonrpc: '2.0', id, method: 'GetTask', params: { id: 't' } },
        await governedHeaders(w, 'alice', 'bob', 'GetTask'),
      );
      expect(r.body).toMatchObject({ id, error: { message: 'Task not found' } });
    }
  });

  it('JSON nested 3,000 deep → -32600 (no stack overflow, no engine words); 64 deep is read as usual', async () => {
    const deep = `${'['.repeat(3000)}${']'.repeat(3000)}`;
    const text = `{"jsonrpc":"2.0","id":7,"method":"SendMessage","params":{"message":{"metadata":{"x":${deep}}}}}`;
    const r = await postJsonRpc(bob(), text, await governedHeaders(w, 'alice', 'bob', 'SendMessage'));
    expect(r.status).toBe(200);
    expect(r.body.error).toEqual({ code: -32600, message: 'Invalid Request: nested deeper than 64 levels' });
    expect(r.text).not.toMatch(/stack|RangeError|Maximum call/i);
    // At the limit the request is read and answered by the gate as any other (here: no envelope).
    const shallow = `{"jsonrpc":"2.0","id":8,"method":"GetTask","params":{"id":"t","x":${'['.repeat(60)}${']'.repeat(60)}}}`;
    const ok = await postJsonRpc(bob(), shallow, await governedHeaders(w, 'alice', 'bob', 'GetTask'));
    expect(ok.body.error?.message).toBe('Task not found');
  });
});

class Caller implements User {
  constructor(readonly userName: string) {}
  get isAuthenticated() {
    return true;
  }
}
const as = (name: string, tenant = 'acme') => new ServerCallContext({ user: new Caller(name), tenant });
const task = (id: string, state: TaskState, at: string): Task =>
  ({
    id,
    contextId: `ctx-${id}`,
    status: { state, timestamp: at },
    history: [],
    artifacts: [],
    metadata: {},
  }) as unknown as Task;

describe('RetainingTaskStore: the server forgets', () => {
  it('an ended task after retainMs, any task after maxAgeMs; what goes is reported (onEvict)', async () => {
    const clock = new ManualClock('2026-11-27T09:00:00.000Z');
    const evicted: string[] = [];
    const store = new RetainingTaskStore({
      clock,
      retainMs: 60_000,
      maxAgeMs: 600_000,
      onEvict: (id) => evicted.push(id),
    });
    const alice = as('alice');
    await store.save(task('done', TaskState.TASK_STATE_COMPLETED, clock.now().toISOString()), alice);
    await store.save(task('waiting', TaskState.TASK_STATE_INPUT_REQUIRED, clock.now().toISOString()), alice);
    clock.advance(59_000);
    expect((await store.load('done', alice))?.id).toBe('done');
    clock.advance(1_000);
    expect(await store.load('done', alice)).toBeUndefined();
    expect((await store.load('waiting', alice))?.id).toBe('waiting');
    // The waiting task ends later: its retention starts then.
    clock.advance(100_000);
    await store.save(task('waiting', TaskState.TASK_STATE_REJECTED, clock.now().toISOString()), alice);
    clock.advance(30_000);
    expect((await store.load('waiting', alice))?.id).toBe('waiting');
    await store.save(task('stuck', TaskState.TASK_STATE_INPUT_REQUIRED, clock.now().toISOString()), alice);
    clock.advance(30_000);
    expect(await store.load('waiting', alice)).toBeUndefined();
    clock.advance(600_000);
    expect(await store.load('stuck', alice)).toBeUndefined();
    expect(evicted).toEqual(['done', 'waiting', 'stuck']);
    expect(store.size).toBe(0);
  });

  it('never more than maxTasks: the oldest ended ones go first, then the oldest', async () => {
    const clock = new ManualClock('2026-11-27T09:00:00.000Z');
    const evicted: string[] = [];
    const store = new RetainingTaskStore({ clock, maxTasks: 3, onEvict: (id) => evicted.push(id) });
    const c = as('alice');
    const at = clock.now().toISOString();
    await store.save(task('w1', TaskState.TASK_STATE_INPUT_REQUIRED, at), c);
    await store.save(task('e1', TaskState.TASK_STATE_COMPLETED, at), c);
    await store.save(task('w2', TaskState.TASK_STATE_INPUT_REQUIRED, at), c);
    await store.save(task('e2', TaskState.TASK_STATE_COMPLETED, at), c);
    expect(evicted).toEqual(['e1']);
    await store.save(task('w3', TaskState.TASK_STATE_INPUT_REQUIRED, at), c);
    expect(evicted).toEqual(['e1', 'e2']);
    await store.save(task('w4', TaskState.TASK_STATE_INPUT_REQUIRED, at), c);
    expect(evicted).toEqual(['e1', 'e2', 'w1']);
    expect(store.size).toBe(3);
  });

  it('a task is its caller’s: another caller or tenant neither loads nor lists it; lists page newest first', async () => {
    const clock = new ManualClock('2026-11-27T09:00:00.000Z');
    const store = new RetainingTaskStore({ clock });
    for (let i = 0; i < 5; i++)
      await store.save(
        task(`t${i}`, TaskState.TASK_STATE_COMPLETED, `2026-11-27T09:00:0${i}.000Z`),
        as('alice'),
      );
    expect(await store.load('t1', as('bob'))).toBeUndefined();
    expect(await store.load('t1', as('alice', 'globex'))).toBeUndefined();
    expect((await store.list({ pageSize: 10 } as never, as('bob'))).tasks).toEqual([]);
    const first = await store.list({ pageSize: 2 } as never, as('alice'));
    expect(first.tasks.map((t) => t.id)).toEqual(['t4', 't3']);
    expect(first.totalSize).toBe(5);
    const second = await store.list({ pageSize: 2, pageToken: first.nextPageToken } as never, as('alice'));
    expect(second.tasks.map((t) => t.id)).toEqual(['t2', 't1']);
    const last = await store.list({ pageSize: 2, pageToken: second.nextPageToken } as never, as('alice'));
    expect(last.tasks.map((t) => t.id)).toEqual(['t0']);
    expect(last.nextPageToken).toBe('');
  });
});
