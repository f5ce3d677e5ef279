/**
 * Where the reference server's data lives: with a database (PGlite or PostgreSQL), every store is
 * the database's (`@agentgov/store-kysely`) and audited writes commit with their entry through its
 * unit of work; with `DATABASE_URL=memory:`, in-process stores sharing one in-memory unit of work.
 * Also the count of active sessions in the database, for the `agentgov_sessions_active` gauge.
 */
import {
  type AuditStore,
  type ConnectorStore,
  InMemoryAuditStore,
  InMemoryConnectorStore,
  InMemoryInstanceRegistry,
  InMemoryOrgDirectory,
  InMemoryPolicyStore,
  InMemorySessionStore,
  InMemoryTenantStore,
  InMemoryUnitOfWork,
  type OrgDirectory,
  type PolicyStore,
  type UnitOfWork,
} from '@agentgov/core';
import type { KernelStores } from '@agentgov/gateway';
import type { SqlStores } from '@agentgov/store-kysely';
import { ConfigError } from './config';

/** The stores the server assembles from: the database's when there is one, else in memory. */
export function serverStores(sqlStores: SqlStores | undefined): {
  stores: KernelStores;
  policyStore: PolicyStore;
  auditStore: AuditStore;
  directory: OrgDirectory;
  unitOfWork: UnitOfWork;
} {
  if (sqlStores) {
    const { sessions, tenants, connectors, instances } = sqlStores;
    return {
      stores: { sessions, tenants, connectors, instances },
      policyStore: sqlStores.policies,
      auditStore: sqlStores.audit,
      directory: sqlStores.directory,
      unitOfWork: sqlStores.unitOfWork,
    };
  }
  const memory = {
    tenants: new InMemoryTenantStore(),
    connectors: new InMemoryConnectorStore(),
    policies: new InMemoryPolicyStore(),
    audit: new InMemoryAuditStore(),
    directory: new InMemoryOrgDirectory(),
  };
  return {
    stores: { ...memory, sessions: new InMemorySessionStore(), instances: new InMemoryInstanceRegistry() },
    policyStore: memory.policies,
    auditStore: memory.audit,
    directory: memory.directory,
    unitOfWork: new InMemoryUnitOfWork(memory),
  };
}

/** Sessions not yet expired, for the `agentgov_sessions_active` gauge (sessions in the database). */
export async function countActiveSessions(stores: SqlStores): Promise<number> {
  const row = await stores.db
    .selectFrom('sessions')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('expires_at', '>', new Date().toISOString())
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/**
 * Binds the secret references the operator gave each tenant (AGENTGOV_SECRET_OWNERS) before any
 * connector names one: no other tenant's connector ever resolves them. A reference another tenant
 * already holds (its connector named it first) stops the start, saying which.
 */
export async function bindSecretOwners(
  connectors: Pick<ConnectorStore, 'bindSecretRefs'>,
  owners: Readonly<Record<string, readonly string[]>>,
): Promise<void> {
  for (const [tenant, refs] of Object.entries(owners)) {
    const held = await connectors.bindSecretRefs(tenant, refs);
    if (held.length > 0)
      throw new ConfigError(
        `AGENTGOV_SECRET_OWNERS: ${held.join(', ')} of ${tenant} already belong to another tenant (its connector named them first); give ${tenant} other references`,
      );
  }
}
