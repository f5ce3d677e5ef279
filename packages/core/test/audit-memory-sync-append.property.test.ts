/**
 * InMemoryAuditStore.append runs synchronously when nothing holds the tenant's lock and `build`
 * returns its records at once; otherwise it takes the lock. Whatever the mix of operations —
 * synchronous and asynchronous builds, failing builds, anonymizations, awaited one by one or all
 * started at once — the chains and every call's outcome are those of a store on which every
 * build is asynchronous (always the locked path).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type AuditRecord, type ChainHead, InMemoryAuditStore } from '../src/index';

type Op =
  | { kind: 'append'; tenant: string; users: string[]; sync: boolean; fail: boolean }
  | { kind: 'anonymize'; tenant: string; user: string };

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('append' as const),
      tenant: fc.constantFrom('t1', 't2'),
      users: fc.array(fc.constantFrom('alice', 'bob'), { minLength: 0, maxLength: 3 }),
      sync: fc.boolean(),
      fail: fc.integer({ min: 0, max: 4 }).map((n) => n === 0),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('anonymize' as const),
      tenant: fc.constantFrom('t1', 't2'),
      user: fc.constantFrom('alice', 'bob'),
    }),
  },
);

function records(tenant: string, users: string[], head: ChainHead | undefined): AuditRecord[] {
  let seq = head?.seq ?? 0;
  let prevHash = head?.hash ?? '0'.repeat(64);
  return users.map((userId) => {
    seq += 1;
    const record = {
      entry: { tenantId: tenant, userId, actionDetail: { n: seq } },
      seq,
      prevHash,
      hash: `${tenant}-${seq}-${userId}-${prevHash.slice(0, 8)}`,
      commitments: { userId: `c-${userId}` },
    } as unknown as AuditRecord;
    prevHash = record.hash;
    return record;
  });
}

/** Runs the ops (all at once, or one after the other); every build asynchronous when `locked`. */
async function run(ops: Op[], together: boolean, locked: boolean) {
  const store = new InMemoryAuditStore();
  const start = (o: Op): Promise<unknown> => {
    if (o.kind === 'anonymize') return store.anonymize(o.tenant, o.user, 'anon:x');
    const build = (head: ChainHead | undefined) => {
      if (o.fail) throw new Error('build failed');
      return records(o.tenant, o.users, head);
    };
    return store.append(o.tenant, o.sync && !locked ? build : async (head) => build(head));
  };
  const settle = (p: Promise<unknown>) =>
    p.then(
      (v) => ({ ok: v }),
      (e: Error) => ({ error: e.message }),
    );
  const outcomes = together
    ? await Promise.all(ops.map((o) => settle(start(o))))
    : await ops.reduce<Promise<unknown[]>>(
        async (acc, o) => [...(await acc), await settle(start(o))],
        Promise.resolve([]),
      );
  const chains: Record<string, AuditRecord[]> = {};
  for (const t of ['t1', 't2']) {
    chains[t] = [];
    for await (const r of store.scan(t)) chains[t].push(r);
  }
  return { outcomes, chains };
}

describe('InMemoryAuditStore synchronous append', () => {
  it('gives the chains and outcomes of the locked path, one by one or all at once', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 12 }), fc.boolean(), async (ops, together) => {
        expect(await run(ops, together, false)).toEqual(await run(ops, together, true));
      }),
      { numRuns: 200 },
    );
  });

  it('has appended synchronously, before the returned promise is awaited', async () => {
    const store = new InMemoryAuditStore();
    const appended = store.append('t1', (head) => records('t1', ['alice'], head));
    const counted = store.count('t1'); // counts now, synchronously
    await appended;
    await expect(counted).resolves.toBe(1);
  });
});
