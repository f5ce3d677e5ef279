/** AuditStore conformance, part 3: GDPR anonymization, tenants, counts and checkpoints. */
import { expect } from 'vitest';
import { expectRejects } from '../testing/conformance';
import { appendEntries, makeAuditEntry, makeCheckpoint, sha256Hex } from '../testing/fixtures';
import { type AuditCheckpoint, type AuditRecord, type AuditStore, latestCheckpointOf } from './port';

const A = 'tenant-a';
const B = 'tenant-b';

export const auditMaintenanceCases = {
  'anonymize: replaces entry.userId and committed actionDetail paths only': async (store: AuditStore) => {
    const commit = (paths: string[]) => () => Object.fromEntries(paths.map((p) => [p, sha256Hex(p)]));
    const e1 = makeAuditEntry({
      tenantId: A,
      userId: 'alice',
      actionType: 'agent_exchange',
      actionDetail: {
        initiatorUserId: 'alice',
        responderUserId: 'bob',
        approver: { userId: 'alice' },
        note: 'alice',
      },
    });
    const e2 = makeAuditEntry({
      tenantId: A,
      userId: 'bob',
      actionDetail: { initiatorUserId: 'bob', responderUserId: 'alice', uncommitted: 'alice' },
    });
    const e3 = makeAuditEntry({ tenantId: A, userId: 'bob', actionDetail: { responderUserId: 'carol' } });
    const e4 = makeAuditEntry({ tenantId: A, userId: 'alice' });
    const [r1] = await appendEntries(
      store,
      A,
      [e1],
      commit([
        'userId',
        'actionDetail.initiatorUserId',
        'actionDetail.responderUserId',
        'actionDetail.approver.userId',
      ]),
    );
    const [r2] = await appendEntries(
      store,
      A,
      [e2],
      commit(['userId', 'actionDetail.initiatorUserId', 'actionDetail.responderUserId']),
    );
    const [r3] = await appendEntries(store, A, [e3], commit(['userId', 'actionDetail.responderUserId']));
    const [r4] = await appendEntries(store, A, [e4], commit([]));
    const [rb] = await appendEntries(
      store,
      B,
      [makeAuditEntry({ tenantId: B, userId: 'alice', actionDetail: { initiatorUserId: 'alice' } })],
      commit(['userId', 'actionDetail.initiatorUserId']),
    );
    const headBefore = await store.head(A);

    const n = await store.anonymize(A, 'alice', 'anon-7f3a');
    expect(n).toBe(3);

    const g1 = (await store.get(A, e1.id)) as AuditRecord;
    const x1 = structuredClone(r1 as AuditRecord);
    x1.entry.userId = 'anon-7f3a';
    x1.entry.actionDetail = {
      initiatorUserId: 'anon-7f3a',
      responderUserId: 'bob',
      approver: { userId: 'anon-7f3a' },
      note: 'alice',
    };
    expect(g1).toEqual(x1);
    const x2 = structuredClone(r2 as AuditRecord);
    x2.entry.actionDetail = { initiatorUserId: 'bob', responderUserId: 'anon-7f3a', uncommitted: 'alice' };
    expect(await store.get(A, e2.id)).toEqual(x2);
    expect(await store.get(A, e3.id)).toEqual(r3);
    const x4 = structuredClone(r4 as AuditRecord);
    x4.entry.userId = 'anon-7f3a';
    expect(await store.get(A, e4.id)).toEqual(x4);
    expect(await store.get(B, rb?.entry.id ?? '')).toEqual(rb);
    expect(await store.head(A)).toEqual(headBefore);
    expect((await store.query(A, { userId: 'alice' }, { offset: 0, limit: 10 })).total).toBe(0);
    expect((await store.query(A, { userId: 'anon-7f3a' }, { offset: 0, limit: 10 })).total).toBe(2);
    expect(await store.anonymize(A, 'alice', 'anon-7f3a')).toBe(0);
    expect(await store.anonymize(A, 'nobody', 'anon')).toBe(0);
  },
  'tenants: tenants with records, ordered by id': async (store: AuditStore) => {
    expect(await store.tenants()).toEqual([]);
    for (const t of ['tenant-c', A, 'tenant-b'])
      await appendEntries(store, t, [makeAuditEntry({ tenantId: t })]);
    await expectRejects(
      store.append('tenant-empty', () => {
        throw new Error('nothing');
      }),
    );
    expect(await store.tenants()).toEqual([A, 'tenant-b', 'tenant-c']);
  },
  'count: per tenant and across tenants': async (store: AuditStore) => {
    expect(await store.count()).toBe(0);
    expect(await store.count(A)).toBe(0);
    await appendEntries(store, A, [makeAuditEntry({ tenantId: A }), makeAuditEntry({ tenantId: A })]);
    await appendEntries(store, B, [makeAuditEntry({ tenantId: B })]);
    expect(await store.count(A)).toBe(2);
    expect(await store.count(B)).toBe(1);
    expect(await store.count('tenant-none')).toBe(0);
    expect(await store.count()).toBe(3);
  },
  'checkpoints: round-trip, ordered by treeSize, tenant-scoped': async (store: AuditStore) => {
    expect(await store.checkpoints(A)).toEqual([]);
    const cps: AuditCheckpoint[] = [8, 2, 32, 16].map((treeSize) =>
      makeCheckpoint({ tenantId: A, treeSize }),
    );
    for (const cp of cps) await store.saveCheckpoint(cp);
    await store.saveCheckpoint(makeCheckpoint({ tenantId: B, treeSize: 4 }));
    expect(await store.checkpoints(A)).toEqual([...cps].sort((a, b) => a.treeSize - b.treeSize));
    expect((await store.checkpoints(B)).map((c) => c.treeSize)).toEqual([4]);
    const got = await store.checkpoints(A);
    (got[0] as AuditCheckpoint).rootHash = 'changed';
    expect((await store.checkpoints(A))[0]?.rootHash).toBe(cps[1]?.rootHash);
    // The latest alone (the store's own lookup when it has one): the largest treeSize.
    expect(await latestCheckpointOf(store, A)).toEqual(cps[2]);
    expect(await latestCheckpointOf(store, B)).toMatchObject({ tenantId: B, treeSize: 4 });
    expect(await latestCheckpointOf(store, 'tenant-none')).toBeUndefined();
    if (store.latestCheckpoint) expect(await store.latestCheckpoint(A)).toEqual(cps[2]);
  },
  'checkpoints: a duplicate treeSize of one tenant is rejected': async (store: AuditStore) => {
    const cp = makeCheckpoint({ tenantId: A, treeSize: 10 });
    await store.saveCheckpoint(cp);
    await expectRejects(
      store.saveCheckpoint(makeCheckpoint({ tenantId: A, treeSize: 10, rootHash: 'b'.repeat(64) })),
    );
    expect(await store.checkpoints(A)).toEqual([cp]);
    await store.saveCheckpoint(makeCheckpoint({ tenantId: B, treeSize: 10 }));
    expect(await store.checkpoints(B)).toHaveLength(1);
  },
} satisfies Record<string, (store: AuditStore) => Promise<void>>;
