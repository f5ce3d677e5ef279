/**
 * UnitOfWork conformance: writes through a transaction's stores commit together or not at all;
 * transactions naming one lock never overlap; a rolled-back audit append leaves the chain as it
 * was and the next append links to the old head.
 */
import { expect } from 'vitest';
import { defineConformanceSuite } from '../testing/conformance';
import { appendEntries, makeAuditEntry, makeConnector, makePolicy } from '../testing/fixtures';
import type { TransactionStores, UnitOfWork } from './port';

const A = 'tenant-a';

/** The unit of work and the same stores outside any transaction (to look at what was committed). */
export interface UnitOfWorkSubject {
  uow: UnitOfWork;
  stores: Omit<TransactionStores, 'directory'>;
}

class Boom extends Error {}

export const unitOfWorkCases = {
  'commit: every write of the work is visible afterwards': async ({ uow, stores }: UnitOfWorkSubject) => {
    const policy = makePolicy({ tenantId: A });
    const connector = makeConnector({ tenantId: A });
    const entry = makeAuditEntry({ tenantId: A });
    const out = await uow.transaction(async (tx) => {
      await tx.policies.insert(policy);
      await tx.connectors.insert(connector);
      await tx.tenants.ensure({ id: A }, new Date('2025-01-01T00:00:00Z'));
      await appendEntries(tx.audit, A, [entry]);
      expect(await tx.policies.get(A, policy.id)).toEqual(policy);
      return 'done';
    });
    expect(out).toBe('done');
    expect(await stores.policies.get(A, policy.id)).toEqual(policy);
    expect(await stores.connectors.get(A, connector.id)).toEqual(connector);
    expect((await stores.tenants.get(A))?.id).toBe(A);
    expect((await stores.audit.get(A, entry.id))?.seq).toBe(1);
  },
  'rollback: a throwing work leaves nothing behind, the error comes out': async ({
    uow,
    stores,
  }: UnitOfWorkSubject) => {
    const kept = makePolicy({ tenantId: A, name: 'kept' });
    await stores.policies.insert(kept);
    const [first] = await appendEntries(stores.audit, A, [makeAuditEntry({ tenantId: A })]);
    const policy = makePolicy({ tenantId: A });
    const connector = makeConnector({ tenantId: A });
    const entry = makeAuditEntry({ tenantId: A });
    await expect(
      uow.transaction(async (tx) => {
        await tx.policies.insert(policy);
        await tx.policies.update({ ...kept, name: 'changed', status: 'deprecated' });
        await tx.connectors.insert(connector);
        await tx.tenants.ensure({ id: 'tenant-new' }, new Date('2025-01-01T00:00:00Z'));
        await appendEntries(tx.audit, A, [entry]);
        throw new Boom('after the writes');
      }),
    ).rejects.toBeInstanceOf(Boom);
    expect(await stores.policies.get(A, policy.id)).toBeUndefined();
    expect(await stores.policies.get(A, kept.id)).toEqual(kept);
    expect(await stores.connectors.get(A, connector.id)).toBeUndefined();
    expect(await stores.tenants.get('tenant-new')).toBeUndefined();
    expect(await stores.audit.get(A, entry.id)).toBeUndefined();
    expect(await stores.audit.head(A)).toEqual({ seq: 1, hash: first?.hash });
    // the chain goes on from the old head
    const [next] = await appendEntries(stores.audit, A, [makeAuditEntry({ tenantId: A })]);
    expect(next?.seq).toBe(2);
    expect(next?.prevHash).toBe(first?.hash);
  },
  'rollback: an audit append that fails inside the work undoes the write before it': async ({
    uow,
    stores,
  }: UnitOfWorkSubject) => {
    const policy = makePolicy({ tenantId: A });
    await expect(
      uow.transaction(async (tx) => {
        await tx.policies.insert(policy);
        await tx.audit.append(A, () => {
          throw new Boom('the audit entry cannot be built');
        });
      }),
    ).rejects.toBeInstanceOf(Boom);
    expect(await stores.policies.get(A, policy.id)).toBeUndefined();
    expect(await stores.audit.head(A)).toBeUndefined();
  },
  'lock: transactions naming the same lock never overlap; other locks do not wait': async ({
    uow,
  }: UnitOfWorkSubject) => {
    let inside = 0;
    let most = 0;
    const order: string[] = [];
    const work = (name: string) => async (tx: TransactionStores) => {
      inside++;
      most = Math.max(most, inside);
      await tx.policies.count(A);
      await new Promise((r) => setTimeout(r, 20));
      await tx.policies.insert(makePolicy({ tenantId: A, name }));
      order.push(name);
      inside--;
    };
    await Promise.all(['one', 'two', 'three'].map((n) => uow.transaction(work(n), { lock: 'policies:a' })));
    expect(most).toBe(1);
    expect(order).toHaveLength(3);
  },
  'audit: appends inside a transaction and outside it keep one gap-free chain': async ({
    uow,
    stores,
  }: UnitOfWorkSubject) => {
    const inside = Array.from({ length: 3 }, (_, i) =>
      uow.transaction(async (tx) => {
        await appendEntries(tx.audit, A, [makeAuditEntry({ tenantId: A })]);
        if (i === 1) throw new Boom('rolled back');
      }),
    );
    const outside = Array.from({ length: 3 }, () =>
      appendEntries(stores.audit, A, [makeAuditEntry({ tenantId: A })]),
    );
    const settled = await Promise.allSettled([...inside, ...outside]);
    expect(settled.filter((s) => s.status === 'rejected')).toHaveLength(1);
    const { records } = await stores.audit.query(A, {}, { offset: 0, limit: 100 });
    expect(records.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5]);
    for (let i = 1; i < records.length; i++) expect(records[i]?.prevHash).toBe(records[i - 1]?.hash);
  },
};

export type UnitOfWorkCase = keyof typeof unitOfWorkCases;

export const describeUnitOfWorkConformance = defineConformanceSuite<UnitOfWorkSubject, UnitOfWorkCase>(
  'UnitOfWork',
  unitOfWorkCases,
);
