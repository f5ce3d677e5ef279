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
import type { SqlStores } from '../src/index';
import { describePostgres, postgresStores } from './helpers';

/** A factory giving one store of a fresh, migrated schema on PostgreSQL. */
const on =
  (url: string) =>
  <S>(pick: (s: SqlStores) => S) =>
  async () => {
    const s = await postgresStores(url);
    return { store: pick(s), cleanup: s.cleanup };
  };

await describePostgres('kysely/postgres conformance', (url) => {
  const name = 'kysely/postgres';
  const at = on(url);
  describeAuditStoreConformance(
    name,
    at((s) => s.audit),
  );
  describePolicyStoreConformance(
    name,
    at((s) => s.policies),
  );
  describeTenantStoreConformance(
    name,
    at((s) => s.tenants),
  );
  describeConnectorStoreConformance(
    name,
    at((s) => s.connectors),
  );
  describeSessionStoreConformance(
    name,
    at((s) => s.sessions),
  );
  describeExchangeStoreConformance(
    name,
    at((s) => s.exchanges),
  );
  describeTaskStoreConformance(
    name,
    at((s) => s.tasks),
  );
  describeBriefingStoreConformance(
    name,
    at((s) => s.briefings),
  );
  describeClassificationStoreConformance(
    name,
    at((s) => s.classifications),
  );
  describeOrgDirectoryConformance(
    name,
    at((s) => s.directory),
  );
  describeInstanceRegistryConformance(
    name,
    at((s) => s.instances),
  );
});
