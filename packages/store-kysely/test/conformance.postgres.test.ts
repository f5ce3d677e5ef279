import { describeAuditStoreConformance, describePolicyStoreConformance } from '@agentgov/core/testing';
import { describePostgres, postgresStores } from './helpers';

await describePostgres('kysely/postgres conformance', (url) => {
  describeAuditStoreConformance('kysely/postgres', async () => {
    const s = await postgresStores(url);
    return { store: s.audit, cleanup: s.cleanup };
  });
  describePolicyStoreConformance('kysely/postgres', async () => {
    const s = await postgresStores(url);
    return { store: s.policies, cleanup: s.cleanup };
  });
});
