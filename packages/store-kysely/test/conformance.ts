/** Every core conformance suite against the SQL stores of one backend (a fresh schema per case). */
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
  describeSessionStoreConformance,
  describeTaskStoreConformance,
  describeTenantStoreConformance,
  describeToolCallInboxConformance,
  describeWorkTrackingStoreConformance,
} from '@agentgov/core/testing';
import { KyselyScheduledRunStore, type SqlStores } from '../src/index';

export function describeSqlStoresConformance(
  name: string,
  open: () => Promise<SqlStores & { cleanup: () => Promise<void> }>,
): void {
  /** A factory giving one store of a fresh, migrated schema. */
  const on =
    <S>(pick: (s: SqlStores) => S) =>
    async () => {
      const s = await open();
      return { store: pick(s), cleanup: s.cleanup };
    };
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
  describeScheduledRunStoreConformance(
    name,
    on((s) => new KyselyScheduledRunStore(s.db)),
  );
  describeWorkTrackingStoreConformance(
    name,
    on((s) => s.workTracking),
  );
  describeToolCallInboxConformance(
    name,
    on((s) => s.toolCalls),
  );
}
