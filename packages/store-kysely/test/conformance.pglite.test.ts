import { describeAuditStoreConformance, describePolicyStoreConformance } from '@agentgov/core/testing';
import { afterAll } from 'vitest';
import { closePGlite, describePGlite, pgliteStores } from './helpers';

afterAll(closePGlite);

describePGlite('kysely/pglite conformance', () => {
  describeAuditStoreConformance('kysely/pglite', async () => {
    const s = await pgliteStores();
    return { store: s.audit, cleanup: s.cleanup };
  });
  describePolicyStoreConformance('kysely/pglite', async () => {
    const s = await pgliteStores();
    return { store: s.policies, cleanup: s.cleanup };
  });
});
