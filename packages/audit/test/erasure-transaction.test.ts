/**
 * Issue 12 item 2: a GDPR erasure's `data_access` entry and the rewriting of the user's records
 * commit together. The rewrite fails after the entry was appended: neither may remain.
 */
import {
  auditedTransactions,
  InMemoryAuditStore,
  InMemoryConnectorStore,
  InMemoryOrgDirectory,
  InMemoryPolicyStore,
  InMemoryTenantStore,
  InMemoryUnitOfWork,
  type UnitOfWork,
} from '@agentgov/core';
import { describe, expect, it } from 'vitest';
import { createAuditLog, createAuditService, verifyTenant } from '../src/index';
import { entryInput, secrets } from './helpers';

function setup(failRewrite: { on: boolean }) {
  const store = new InMemoryAuditStore();
  const s = secrets();
  const memory = new InMemoryUnitOfWork({
    policies: new InMemoryPolicyStore(),
    audit: store,
    connectors: new InMemoryConnectorStore(),
    tenants: new InMemoryTenantStore(),
    directory: new InMemoryOrgDirectory(),
  });
  // The transaction's audit store refuses the rewrite when asked to (a database error mid-way).
  const uow: UnitOfWork = {
    transaction: (work, options) =>
      memory.transaction(
        (tx) =>
          work({
            ...tx,
            audit: Object.assign(Object.create(tx.audit), tx.audit, {
              anonymize: async (t: string, u: string, r: string) => {
                if (failRewrite.on) throw new Error('the rewrite failed');
                return tx.audit.anonymize(t, u, r);
              },
            }),
          }),
        options,
      ),
  };
  const log = createAuditLog({ store, secrets: s });
  const service = createAuditService({
    store,
    secrets: s,
    log,
    transaction: auditedTransactions(uow, (txStore) => createAuditLog({ store: txStore, secrets: s })),
  });
  return { store, log, service, secrets: s };
}

describe('GDPR erasure in one transaction (issue 12 item 2)', () => {
  it('a failing rewrite leaves neither the erasure entry nor any rewritten record', async () => {
    const fail = { on: true };
    const { store, log, service, secrets: s } = setup(fail);
    (await log.append(entryInput({ userId: 'alice' })))._unsafeUnwrap();
    const actor = { tenantId: 't1', userId: 'dpo', requestId: 'r-erase' };
    const r = await service.anonymizeUser(actor, 'alice');
    expect(r.isErr()).toBe(true);
    expect(await store.count('t1')).toBe(1);
    expect((await store.query('t1', { userId: 'alice' }, { offset: 0, limit: 10 })).total).toBe(1);
    fail.on = false;
    const done = (await service.anonymizeUser(actor, 'alice'))._unsafeUnwrap();
    expect(done.recordsAnonymized).toBe(1);
    expect(await store.count('t1')).toBe(2);
    expect((await verifyTenant(store, 't1', { secrets: s, deep: true })).ok).toBe(true);
  });
});
