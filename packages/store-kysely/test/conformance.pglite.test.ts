import {
  describeAuditStoreConformance,
  describeBriefingStoreConformance,
  describeClassificationStoreConformance,
  describeConnectorStoreConformance,
  describeExchangeStoreConformance,
  describeInstanceRegistryConformance,
  describeOrgDirectoryConformance,
  describePolicyStoreConformance,
  describeSessionStoreConformance,
  describeTaskStoreConformance,
  describeTenantStoreConformance,
} from '@agentgov/core/testing';
import { afterAll } from 'vitest';
import type { SqlStores } from '../src/index';
import { closePGlite, describePGlite, pgliteStores } from './helpers';

afterAll(closePGlite);

/** A factory giving one store of a fresh, migrated schema on the file's PGlite instance. */
const on =
  <S>(pick: (s: SqlStores) => S) =>
  async () => {
    const s = await pgliteStores();
    return { store: pick(s), cleanup: s.cleanup };
  };

describePGlite('kysely/pglite conformance', () => {
  const name = 'kysely/pglite';
  describeAuditStoreConformance(
    name,
    on((s) => s.audit),
  );
  describePolicyStoreConformance(
    name,
    on((s) => s.policies),
  );
  describeTenantStoreConformance(
    name,
    on((s) => s.tenants),
  );
  describeConnectorStoreConformance(
    name,
    on((s) => s.connectors),
  );
  describeSessionStoreConformance(
    name,
    on((s) => s.sessions),
  );
  describeExchangeStoreConformance(
    name,
    on((s) => s.exchanges),
  );
  describeTaskStoreConformance(
    name,
    on((s) => s.tasks),
  );
  describeBriefingStoreConformance(
    name,
    on((s) => s.briefings),
  );
  describeClassificationStoreConformance(
    name,
    on((s) => s.classifications),
  );
  describeOrgDirectoryConformance(
    name,
    on((s) => s.directory),
  );
  describeInstanceRegistryConformance(
    name,
    on((s) => s.instances),
  );
});
