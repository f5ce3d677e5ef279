/**
 * The log's group commit (append-queue.ts, which replaced the policy gateway's own): the appends
 * of a tenant made in one turn of the event loop, or while its previous write is in flight, share
 * one `store.append`; each caller gets its own entry, only once it is written; an invalid input
 * fails only its caller; the callers of a failed write are written again one by one (each gets
 * its own outcome); a caller with a signal is written alone; call order is chain order.
 */
import {
  type AuditRecord,
  type AuditStore,
  type ChainHead,
  GovernanceError,
  InMemoryAuditStore,
  ValidationError,
} from '@agentgov/core';
import { describe, expect, it } from 'vitest';
import { createAuditLog } from '../src/log';
import { entryInput, secrets } from './helpers';

type Build = (head: ChainHead | undefined) => AuditRecord[] | Promise<AuditRecord[]>;

/** An in-memory store that counts its `append` calls (records per call) and can hold them. */
function countingStore() {
  const memory = new InMemoryAuditStore();
  const calls: string[][] = [];
  let gate: Promise<void> | undefined;
  let release = () => {};
  let refused: { requestId: string; error: Error } | undefined;
  const store: AuditStore = Object.create(memory, {
    append: {
      value: async (tenantId: string, build: Build, options?: { signal?: AbortSignal }) => {
        const call: string[] = [];
        calls.push(call);
        if (gate) await gate;
        const records = await memory.append(
          tenantId,
          async (head) => {
            const built = await build(head);
            for (const r of built) call.push(r.entry.requestId);
            // The database refusing a record: the whole call fails, nothing of it written.
            if (
              refused &&
              built.some((r) => refused?.requestId === '*' || r.entry.requestId === refused?.requestId)
            )
              throw refused.error;
            return built;
          },
          options,
        );
        return records;
      },
    },
  });
  return {
    store,
    memory,
    calls,
    hold() {
      gate = new Promise((r) => {
        release = () => {
          gate = undefined;
          r();
        };
      });
    },
    release: () => release(),
    /** Every call holding a record of this request id (any, with '*') fails; undefined: none. */
    refuse(requestId: string | undefined, error = new Error('refused')) {
      refused = requestId === undefined ? undefined : { requestId, error };
    },
  };
}

async function chain(memory: InMemoryAuditStore, tenantId: string): Promise<string[]> {
  const out: string[] = [];
  for await (const r of memory.scan(tenantId)) out.push(r.entry.requestId);
  return out;
}

const logOn = (store: AuditStore) => createAuditLog({ store, secrets: secrets() });

describe('group commit of appends', () => {
  it('writes the appends of one checkpoint in one store call per tenant, each caller getting its own entry', async () => {
    const { store, memory, calls } = countingStore();
    const log = logOn(store);
    (await log.append(entryInput({ requestId: 'warm' })))._unsafeUnwrap(); // loads the keys
    calls.length = 0;
    const results = await Promise.all([
      log.append(entryInput({ requestId: 'r1' })),
      log.append(entryInput({ requestId: 'r2' })),
      log.append(entryInput({ requestId: 'b1', tenantId: 'beta' })),
      log.appendBatch([entryInput({ requestId: 'r3' }), entryInput({ requestId: 'r4' })]),
      log.append(entryInput({ requestId: 'r5' })),
    ]);
    expect(calls).toEqual([['r1', 'r2', 'r3', 'r4', 'r5'], ['b1']]);
    expect(results.map((r) => r._unsafeUnwrap())).toMatchObject([
      { requestId: 'r1' },
      { requestId: 'r2' },
      { requestId: 'b1' },
      [{ requestId: 'r3' }, { requestId: 'r4' }],
      { requestId: 'r5' },
    ]);
    expect(await chain(memory, 't1')).toEqual(['warm', 'r1', 'r2', 'r3', 'r4', 'r5']);
  });

  it('groups the appends of one turn made in separate callbacks (requests read in one turn), on a store that answers at once', async () => {
    const { store, memory, calls } = countingStore();
    const log = logOn(store);
    (await log.append(entryInput({ requestId: 'warm' })))._unsafeUnwrap();
    calls.length = 0;
    // Three callbacks of one check phase, each appending from its own macrotask (as three HTTP
    // requests read in one poll phase do): no write is in flight between them.
    const results = await new Promise<Promise<unknown>[]>((resolve) => {
      const out: Promise<unknown>[] = [];
      for (const id of ['c1', 'c2', 'c3'])
        setImmediate(() => {
          out.push(log.append(entryInput({ requestId: id })));
          if (out.length === 3) resolve(out);
        });
    });
    await Promise.all(results);
    expect(calls).toEqual([['c1', 'c2', 'c3']]);
    expect(await chain(memory, 't1')).toEqual(['warm', 'c1', 'c2', 'c3']);
  });

  it('keeps call order also while the keys are first read', async () => {
    const { store, memory } = countingStore();
    const log = logOn(store);
    const ids = ['a', 'b', 'c', 'd'];
    // 'c' is not plain JSON (a Date): the original path, which needs no key to validate.
    await Promise.all(
      ids.map((id) =>
        log.append(entryInput({ requestId: id, actionDetail: id === 'c' ? { at: new Date(0) } : {} })),
      ),
    );
    expect(await chain(memory, 't1')).toEqual(ids);
  });

  it('settles a caller only once its write returned, and groups the appends made meanwhile', async () => {
    const counting = countingStore();
    const log = logOn(counting.store);
    (await log.append(entryInput({ requestId: 'warm' })))._unsafeUnwrap();
    counting.calls.length = 0;
    counting.hold();
    let settled = 0;
    const first = log.append(entryInput({ requestId: 'r1' })).then(() => settled++);
    await new Promise((r) => setImmediate(r));
    // r1's write is in flight: these wait, and go together.
    const later = [log.append(entryInput({ requestId: 'r2' })), log.append(entryInput({ requestId: 'r3' }))];
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(0);
    expect(await chain(counting.memory, 't1')).toEqual(['warm']);
    counting.release();
    await Promise.all([first, ...later]);
    expect(settled).toBe(1);
    expect(counting.calls).toEqual([['r1'], ['r2', 'r3']]);
  });

  it('fails an invalid input alone: the others of its checkpoint are written', async () => {
    const { store, memory } = countingStore();
    const log = logOn(store);
    const [a, bad, b] = await Promise.all([
      log.append(entryInput({ requestId: 'r1' })),
      log.append(entryInput({ requestId: 'bad', userId: 'anon:x' })),
      log.append(entryInput({ requestId: 'r2' })),
    ]);
    expect(a._unsafeUnwrap().requestId).toBe('r1');
    expect(b._unsafeUnwrap().requestId).toBe('r2');
    const refused = bad._unsafeUnwrapErr();
    expect(refused).toBeInstanceOf(ValidationError);
    expect((refused as ValidationError).field).toBe('userId'); // its own append's field, not a batch's
    expect(await chain(memory, 't1')).toEqual(['r1', 'r2']);
  });

  it('writes the callers of a failed group again one by one: a refused record fails only its caller', async () => {
    const counting = countingStore();
    const log = logOn(counting.store);
    (await log.append(entryInput({ requestId: 'warm' })))._unsafeUnwrap();
    counting.calls.length = 0;
    counting.refuse('bad', new GovernanceError('invalid_type', 'the database refused a record'));
    const [a, bad, b] = await Promise.all([
      log.append(entryInput({ requestId: 'r1' })),
      log.append(entryInput({ requestId: 'bad' })),
      log.append(entryInput({ requestId: 'r2' })),
    ]);
    expect(a._unsafeUnwrap().requestId).toBe('r1');
    expect(b._unsafeUnwrap().requestId).toBe('r2');
    expect(bad._unsafeUnwrapErr().message).toBe('the database refused a record');
    expect(counting.calls).toEqual([['r1', 'bad', 'r2'], ['r1'], ['bad'], ['r2']]);
    expect(await chain(counting.memory, 't1')).toEqual(['warm', 'r1', 'r2']);
  });

  it('fails each caller when the store is down, and goes on with the next group', async () => {
    const counting = countingStore();
    const log = logOn(counting.store);
    (await log.append(entryInput({ requestId: 'warm' })))._unsafeUnwrap();
    counting.refuse('*', new GovernanceError('service_unavailable', 'the store is down'));
    const failed = await Promise.all([
      log.append(entryInput({ requestId: 'r1' })),
      log.append(entryInput({ requestId: 'r2' })),
    ]);
    for (const r of failed) expect(r._unsafeUnwrapErr().code).toBe('service_unavailable');
    counting.refuse(undefined);
    (await log.append(entryInput({ requestId: 'r3' })))._unsafeUnwrap();
    expect(await chain(counting.memory, 't1')).toEqual(['warm', 'r3']);
  });

  it('writes a caller with a signal alone: its abort fails only its own append', async () => {
    const counting = countingStore();
    const log = logOn(counting.store);
    (await log.append(entryInput({ requestId: 'warm' })))._unsafeUnwrap();
    counting.calls.length = 0;
    const aborted = AbortSignal.abort();
    const [a, cut, b] = await Promise.all([
      log.append(entryInput({ requestId: 'r1' })),
      log.append(entryInput({ requestId: 'cut' }), { signal: aborted }),
      log.append(entryInput({ requestId: 'r2' })),
    ]);
    expect(a.isOk() && b.isOk()).toBe(true);
    expect(cut.isErr()).toBe(true);
    expect(counting.calls).toEqual([['r1'], [], ['r2']]);
    expect(await chain(counting.memory, 't1')).toEqual(['warm', 'r1', 'r2']);
  });
});
