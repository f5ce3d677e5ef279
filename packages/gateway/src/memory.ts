import {
  InMemoryConnectorStore,
  InMemoryInstanceRegistry,
  InMemorySessionStore,
  InMemoryTenantStore,
} from '@agentgov/core';
import type { KernelStores } from './services';

/** The kernel's stores in memory (tests, demos, `DATABASE_URL=memory:`). */
export function createMemoryStores(): KernelStores {
  return {
    sessions: new InMemorySessionStore(),
    tenants: new InMemoryTenantStore(),
    connectors: new InMemoryConnectorStore(),
    instances: new InMemoryInstanceRegistry(),
  };
}
