/**
 * The group commit of `POST /decisions`' audit entries: the entries of one event-loop turn go in
 * one `appendBatch` per tenant, each caller settles with its own entry only once the batch is
 * written, an invalid entry fails only its own caller, and a sink without `appendBatch` appends
 * each entry as before.
 */
import {
  type AuditEntry,
  type AuditEntryInput,
  type AuditSink,
  GovernanceError,
  InMemoryAuditSink,
  ValidationError,
} from '@agentgov/core';
import { err, ok, type Result } from 'neverthrow';
import { describe, expect, it, vi } from 'vitest';
import { groupCommit } from '../src/gateway/group-commit';

const entryOf = (requestId: string, tenantId = 'acme'): AuditEntryInput => ({
  tenantId,
  userId: 'alice',
  actionType: 'policy_decision',
  policyApplied: 'builtin:agent-to-agent',
  policyResult: 'allow',
  outcome: 'success',
  requestId,
});

/** A sink with appendBatch over an InMemoryAuditSink; `gate` holds each batch until released. */
function batchSink(refuse?: (e: AuditEntryInput) => boolean) {
  const memory = new InMemoryAuditSink();
  const batches: string[][] = [];
  let release: () => void = () => {};
  let gate = Promise.resolve();
  const sink = {
    append: vi.fn(async (e: AuditEntryInput): Promise<Result<AuditEntry, GovernanceError>> => {
      if (refuse?.(e)) return err(ValidationError.invalid('requestId', 'refused'));
      return memory.append(e);
    }),
    async appendBatch(inputs: readonly AuditEntryInput[]): Promise<Result<AuditEntry[], GovernanceError>> {
      batches.push(inputs.map((e) => e.requestId ?? ''));
      await gate;
      if (inputs.some((e) => refuse?.(e))) return err(ValidationError.invalid('0.requestId', 'refused'));
      const out: AuditEntry[] = [];
      for (const e of inputs) out.push((await memory.append(e))._unsafeUnwrap());
      return ok(out);
    },
    hold() {
      gate = new Promise((r) => {
        release = r;
      });
    },
    release: () => release(),
  };
  return { sink, memory, batches };
}

describe('group commit of decision entries', () => {
  it('writes the entries of one turn in one batch per tenant, each caller getting its own entry', async () => {
    const { sink, memory, batches } = batchSink();
    const append = groupCommit(sink);
    const results = await Promise.all([
      append(entryOf('r1')),
      append(entryOf('r2')),
      append(entryOf('b1', 'beta')),
      append(entryOf('r3')),
    ]);
    expect(batches).toEqual([['r1', 'r2', 'r3']]);
    expect(sink.append).toHaveBeenCalledTimes(1); // beta's lone entry
    expect(results.map((r) => r._unsafeUnwrap().requestId)).toEqual(['r1', 'r2', 'b1', 'r3']);
    expect(memory.entries.map((e) => e.requestId).sort()).toEqual(['b1', 'r1', 'r2', 'r3']);
  });

  it('settles a caller only once its batch is written', async () => {
    const { sink, memory } = batchSink();
    sink.hold();
    const append = groupCommit(sink);
    let settled = 0;
    const both = [append(entryOf('r1')), append(entryOf('r2'))].map((p) => p.then(() => settled++));
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(0);
    expect(memory.entries).toHaveLength(0);
    sink.release();
    await Promise.all(both);
    expect(settled).toBe(2);
    expect(memory.entries).toHaveLength(2);
  });

  it('appends each entry alone when the batch is refused for an invalid one: only its caller fails', async () => {
    const { sink, memory } = batchSink((e) => e.requestId === 'bad');
    const append = groupCommit(sink);
    const [a, bad, b] = await Promise.all([
      append(entryOf('r1')),
      append(entryOf('bad')),
      append(entryOf('r2')),
    ]);
    expect(a._unsafeUnwrap().requestId).toBe('r1');
    expect(b._unsafeUnwrap().requestId).toBe('r2');
    const refused = bad._unsafeUnwrapErr();
    expect(refused).toBeInstanceOf(ValidationError);
    // The error of its own append, not the batch's (`0.requestId`).
    expect((refused as ValidationError).field).toBe('requestId');
    expect(memory.entries.map((e) => e.requestId)).toEqual(['r1', 'r2']);
  });

  it("makes any other failure of a batch each of its callers' failure", async () => {
    const down = new GovernanceError('service_unavailable', 'the store is down');
    const sink = {
      append: vi.fn(async () => err(down)),
      appendBatch: vi.fn(async () => err(down)),
    } as unknown as AuditSink;
    const append = groupCommit(sink);
    const results = await Promise.all([append(entryOf('r1')), append(entryOf('r2'))]);
    for (const r of results) expect(r._unsafeUnwrapErr()).toBe(down);
    const thrown = new Error('boom');
    const throwing = {
      append: vi.fn(),
      appendBatch: vi.fn(async () => Promise.reject(thrown)),
    } as unknown as AuditSink;
    const appendThrowing = groupCommit(throwing);
    const settled = await Promise.allSettled([appendThrowing(entryOf('r1')), appendThrowing(entryOf('r2'))]);
    expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected']);
  });

  it('appends entry by entry on a sink without appendBatch', async () => {
    const memory = new InMemoryAuditSink();
    const append = vi.spyOn(memory, 'append');
    const commit = groupCommit(memory);
    await Promise.all([commit(entryOf('r1')), commit(entryOf('r2'))]);
    expect(append).toHaveBeenCalledTimes(2);
    expect(memory.entries.map((e) => e.requestId)).toEqual(['r1', 'r2']);
  });
});
