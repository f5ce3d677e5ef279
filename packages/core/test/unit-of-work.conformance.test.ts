/** The in-memory unit of work against the UnitOfWork conformance suite (all or nothing, locks). */
import {
  InMemoryAuditStore,
  InMemoryConnectorStore,
  InMemoryOrgDirectory,
  InMemoryPolicyStore,
  InMemoryTenantStore,
  InMemoryUnitOfWork,
} from '../src/index';
import { describeUnitOfWorkConformance } from '../src/testing/index';

describeUnitOfWorkConformance('in-memory', async () => {
  const stores = {
    policies: new InMemoryPolicyStore(),
    audit: new InMemoryAuditStore(),
    connectors: new InMemoryConnectorStore(),
    tenants: new InMemoryTenantStore(),
  };
  const uow = new InMemoryUnitOfWork({ ...stores, directory: new InMemoryOrgDirectory() });
  return { store: { uow, stores } };
});
