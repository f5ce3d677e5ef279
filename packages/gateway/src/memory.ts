import { ensureAuditKeys } from '@agentgov/audit';
import {
  InMemoryAuditStore,
  InMemoryConnectorStore,
  InMemoryInstanceRegistry,
  InMemoryOrgDirectory,
  InMemoryPolicyStore,
  InMemorySecretStore,
  InMemorySessionStore,
  InMemoryTenantStore,
} from '@agentgov/core';
import type { GovernanceStores } from './governance';

/** Every store of `createGovernance` in memory (tests, demos, `DATABASE_URL=memory:`). */
export function createMemoryStores(): GovernanceStores {
  return {
    policies: new InMemoryPolicyStore(),
    audit: new InMemoryAuditStore(),
    sessions: new InMemorySessionStore(),
    tenants: new InMemoryTenantStore(),
    connectors: new InMemoryConnectorStore(),
    instances: new InMemoryInstanceRegistry(),
  };
}

/** Stores, an empty org directory and a secret store holding freshly generated audit keys. */
export async function createMemoryDependencies(secrets: Record<string, string> = {}): Promise<{
  stores: GovernanceStores;
  directory: InMemoryOrgDirectory;
  secrets: InMemorySecretStore;
}> {
  const store = new InMemorySecretStore(secrets);
  await ensureAuditKeys(store);
  return { stores: createMemoryStores(), directory: new InMemoryOrgDirectory(), secrets: store };
}
