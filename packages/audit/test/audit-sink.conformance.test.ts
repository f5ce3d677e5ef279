/**
 * The AuditSink conformance suite (`@agentgov/core/testing`) against the hash-chained AuditLog on
 * an in-memory AuditStore. The sink's entries of a tenant are read back with `store.scan`.
 */
import { createAuditLog, generateAuditKeys } from '@agentgov/audit';
import { type AuditEntry, InMemoryAuditStore, InMemorySecretStore } from '@agentgov/core';
import { describeAuditSinkConformance } from '@agentgov/core/testing';

const keys = await generateAuditKeys();

describeAuditSinkConformance('AuditLog on InMemoryAuditStore', async () => {
  const store = new InMemoryAuditStore();
  const secrets = new InMemorySecretStore({
    'audit-commitment-key': keys.commitmentKey,
    'audit-signing-key': keys.signingKey,
  });
  const log = createAuditLog({ store, secrets });
  return {
    store: {
      sink: log,
      entries: async (tenantId: string) => {
        const out: AuditEntry[] = [];
        for await (const record of store.scan(tenantId)) out.push(record.entry);
        return out;
      },
    },
  };
});
