/**
 * Issue 12 item 2: a policy write and its `policy_change` entry commit together or not at all.
 * The audit sink of the transaction fails after the store write (as the real audit validator did
 * for a lone UTF-16 surrogate in the name): nothing may stay behind, the change hook must not run.
 */
import {
  type AuditEntryInput,
  type AuditSink,
  type AuditStore,
  auditedTransactions,
  GovernanceError,
  InMemoryAuditStore,
  InMemoryConnectorStore,
  InMemoryOrgDirectory,
  InMemoryPolicyStore,
  InMemoryTenantStore,
  InMemoryUnitOfWork,
} from '@agentgov/core';
import { appendEntries, makeAuditEntry } from '@agentgov/core/testing';
import { err, ok } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import { PolicyService, type Principal } from '../src/index';

const root: Principal = { userId: 'root', tenantId: 'acme', roles: ['enterprise_admin'] };

const refuseAll = { on: false };
/** A sink over the transaction's audit store that refuses (after appending) names saying so, or all. */
const sinkOver = (store: AuditStore): AuditSink =>
  ({
    async append(input: AuditEntryInput) {
      const entry = makeAuditEntry({ ...input, timestamp: new Date().toISOString() });
      await appendEntries(store, input.tenantId, [entry]);
      if (refuseAll.on || String((input.actionDetail as { name?: unknown }).name).includes('refused'))
        return err(new GovernanceError('invalid_type', 'the audit entry is invalid'));
      return ok(entry);
    },
  }) as AuditSink;

function setup() {
  const policies = new InMemoryPolicyStore();
  const audit = new InMemoryAuditStore();
  const directory = InMemoryOrgDirectory.fromDefinitions({
    tenant: 'acme',
    orgs: { eng: { users: ['dana'] } },
  });
  const uow = new InMemoryUnitOfWork({
    policies,
    audit,
    connectors: new InMemoryConnectorStore(),
    tenants: new InMemoryTenantStore(),
    directory,
  });
  const changes: string[] = [];
  const service = new PolicyService({
    store: policies,
    directory,
    audit: sinkOver(audit),
    transaction: auditedTransactions(uow, sinkOver),
    onChange: (_t, p) => changes.push(p.id),
  });
  return { policies, audit, service, changes };
}

const body = (name: string, content = 'enabled: true') => ({
  scope: 'enterprise',
  scopeId: 'acme',
  domain: 'agent-to-agent',
  name,
  version: '1.0.0',
  content,
  changeReason: 'because',
});

describe('PolicyService writes in one transaction (issue 12 item 2)', () => {
  it('create: the audit entry fails → 503, no policy, no entry, no change hook', async () => {
    const { policies, audit, service, changes } = setup();
    const r = await service.create(root, body('refused policy'));
    expect(r._unsafeUnwrapErr().code).toBe('service_unavailable');
    expect(r._unsafeUnwrapErr().message).toContain('was not written');
    expect(await policies.count('acme')).toBe(0);
    expect(await audit.count('acme')).toBe(0);
    expect(changes).toEqual([]);
  });

  it('update and deprecate: a failing audit entry leaves the stored policy as it was', async () => {
    const { policies, audit, service, changes } = setup();
    const c0 = await service.create(root, body('fine'));
    if (c0.isErr()) throw c0.error;
    const created = c0.value;
    expect(await audit.count('acme')).toBe(1);
    refuseAll.on = true;
    try {
      const updated = await service.update(root, created.id, {
        content: 'enabled: false',
        changeReason: 'x',
      });
      expect(updated._unsafeUnwrapErr().code).toBe('service_unavailable');
      const deprecated = await service.deprecate(root, created.id);
      expect(deprecated._unsafeUnwrapErr().code).toBe('service_unavailable');
    } finally {
      refuseAll.on = false;
    }
    expect(await policies.get('acme', created.id)).toEqual(created);
    expect(await audit.count('acme')).toBe(1);
    expect(changes).toEqual([created.id]);
  });

  it('a successful write commits the policy and its entry; the chain goes on after a rollback', async () => {
    const { policies, audit, service } = setup();
    await service.create(root, body('refused first'));
    const p = (await service.create(root, body('second')))._unsafeUnwrap();
    expect(await policies.get('acme', p.id)).toEqual(p);
    const { records } = await audit.query('acme', {}, { offset: 0, limit: 10 });
    expect(records.map((r) => r.seq)).toEqual([1]);
  });
});

describe('empty policy content (issue 12 item 6)', () => {
  it.each(['', '   ', '\n\n', '# only a comment\n'])(
    'content %j is refused with 400 invalid_type',
    async (content) => {
      const { policies, service } = setup();
      const r = await service.create(root, body('empty', content));
      expect(r._unsafeUnwrapErr().code).toBe('invalid_type');
      expect(await policies.count('acme')).toBe(0);
      const c = await service.create(root, body('fine'));
      if (c.isErr()) throw c.error;
      const u = await service.update(root, c.value.id, { content, changeReason: 'emptied' });
      expect(u._unsafeUnwrapErr().code).toBe('invalid_type');
      expect((await policies.get('acme', c.value.id))?.content).toBe('enabled: true');
    },
  );
});
