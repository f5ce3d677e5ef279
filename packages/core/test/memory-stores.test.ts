/** Every conformance suite of `@agentgov/core/testing` against the in-memory implementations. */
import {
  EnvSecretStore,
  InMemoryAuditStore,
  InMemoryBriefingStore,
  InMemoryClassificationStore,
  InMemoryConnectorStore,
  InMemoryExchangeStore,
  InMemoryInstanceRegistry,
  InMemoryOrgDirectory,
  InMemoryPolicyStore,
  InMemoryScheduledRunStore,
  InMemorySecretStore,
  InMemorySessionStore,
  InMemoryTaskStore,
  InMemoryTenantStore,
} from '@agentgov/core';
import {
  describeAuditStoreConformance,
  describeBriefingStoreConformance,
  describeClassificationStoreConformance,
  describeConnectorStoreConformance,
  describeExchangeStoreConformance,
  describeInstanceRegistryConformance,
  describeOrgDirectoryConformance,
  describePolicyStoreConformance,
  describeScheduledRunStoreConformance,
  describeSecretStoreConformance,
  describeSessionStoreConformance,
  describeTaskStoreConformance,
  describeTenantStoreConformance,
} from '@agentgov/core/testing';

const memory =
  <S>(create: () => S) =>
  async () => ({ store: create() });

describeTenantStoreConformance(
  'memory',
  memory(() => new InMemoryTenantStore()),
);
describePolicyStoreConformance(
  'memory',
  memory(() => new InMemoryPolicyStore()),
);
describeAuditStoreConformance(
  'memory',
  memory(() => new InMemoryAuditStore()),
);
describeExchangeStoreConformance(
  'memory',
  memory(() => new InMemoryExchangeStore()),
);
describeConnectorStoreConformance(
  'memory',
  memory(() => new InMemoryConnectorStore()),
);
describeTaskStoreConformance(
  'memory',
  memory(() => new InMemoryTaskStore()),
);
describeBriefingStoreConformance(
  'memory',
  memory(() => new InMemoryBriefingStore()),
);
describeClassificationStoreConformance(
  'memory',
  memory(() => new InMemoryClassificationStore()),
);
describeSessionStoreConformance(
  'memory',
  memory(() => new InMemorySessionStore()),
);
describeSecretStoreConformance(
  'memory',
  memory(() => new InMemorySecretStore()),
);
describeSecretStoreConformance(
  'env',
  memory(() => new EnvSecretStore({})),
);
describeOrgDirectoryConformance(
  'memory',
  memory(() => new InMemoryOrgDirectory()),
);
describeScheduledRunStoreConformance(
  'memory',
  memory(() => new InMemoryScheduledRunStore()),
);
describeInstanceRegistryConformance(
  'memory',
  memory(() => new InMemoryInstanceRegistry()),
);
