/**
 * The governance service as the HTTP suite runs it: the gateway kernel with the policy and audit
 * plugins, on in-memory stores, trusting the loopback test issuer. The same composition as the
 * reference server's (examples/server), minus the database.
 */
import { createAuditLog, ensureAuditKeysOrThrow } from '@agentgov/audit';
import { auditRoutes } from '@agentgov/audit/gateway';
import {
  auditedTransactions,
  type Clock,
  createUlidFactory,
  type DecisionEngine,
  InMemoryAuditStore,
  InMemoryBriefingStore,
  InMemoryClassificationStore,
  InMemoryConnectorStore,
  InMemoryExchangeStore,
  InMemoryInstanceRegistry,
  InMemoryOrgDirectory,
  InMemoryPolicyStore,
  InMemorySecretStore,
  InMemorySessionStore,
  InMemoryTaskStore,
  InMemoryTenantStore,
  InMemoryToolCallInbox,
  InMemoryTracker,
  InMemoryUnitOfWork,
  InMemoryWorkTrackingStore,
  type PolicyStore,
  systemClock,
} from '@agentgov/core';
import { createGovernance, type Governance, type GovernanceConfig } from '@agentgov/gateway';
import { type TestIssuer, testOidcConfig } from '@agentgov/gateway/testing';
import { interchangeRoutes } from '@agentgov/interchange/gateway';
import { ToolGovernor } from '@agentgov/mcp';
import { mcpRoutes } from '@agentgov/mcp/gateway';
import { policyRoutes } from '@agentgov/policy/gateway';
import { staticIntegrations } from '@agentgov/work-tracking';
import { workTrackingRoutes } from '@agentgov/work-tracking/gateway';

/** The code-host webhook secret of tenant acme (secret store ref `codehost-webhook`). */
export const WEBHOOK_SECRET = 'http-suite-webhook-secret';

export interface TestServiceOverrides {
  clock?: Clock;
  /** Decision engine instead of the built-in one. */
  engine?: DecisionEngine;
  /** Policy store instead of a fresh in-memory one (e.g. one whose database is down). */
  policyStore?: PolicyStore;
  /** Any kernel setting (stores, probes, rate limiter, limits…). */
  kernel?: Partial<GovernanceConfig>;
}

export async function createTestService(
  idp: Pick<TestIssuer, 'issuer' | 'clientId' | 'clientSecret' | 'redirectUri'>,
  over: TestServiceOverrides = {},
): Promise<Governance> {
  const clock = over.clock ?? systemClock;
  const secrets = new InMemorySecretStore();
  await ensureAuditKeysOrThrow(secrets);
  const directory = new InMemoryOrgDirectory();
  const auditStore = new InMemoryAuditStore();
  const ids = createUlidFactory(clock);
  const log = createAuditLog({ store: auditStore, secrets, clock, ids });
  const memory = {
    tenants: new InMemoryTenantStore(),
    connectors: new InMemoryConnectorStore(),
    policies: new InMemoryPolicyStore(),
    audit: auditStore,
    directory,
  };
  // Audited writes commit with their entry, as on a database (an overriding policy store, e.g. one
  // whose database is down, is used directly, without the transaction).
  const transaction = auditedTransactions(new InMemoryUnitOfWork(memory), (store) =>
    createAuditLog({ store, secrets, clock, ids }),
  );
  await secrets.set('codehost-webhook', WEBHOOK_SECRET);
  const tracker = new InMemoryTracker();
  tracker.addTicket('ENG-12');
  const policy = policyRoutes({
    store: over.policyStore ?? memory.policies,
    directory,
    audit: log,
    clock,
    ...(over.policyStore ? {} : { transaction }),
    ...(over.engine ? { engine: over.engine } : {}),
  });
  return createGovernance({
    stores: { ...memory, sessions: new InMemorySessionStore(), instances: new InMemoryInstanceRegistry() },
    directory,
    secrets,
    audit: log,
    transaction,
    clock,
    oidc: testOidcConfig(idp),
    plugins: [
      policy,
      auditRoutes({ store: auditStore, secrets, directory, clock, log, transaction }),
      interchangeRoutes({ store: new InMemoryExchangeStore(), audit: log, directory, clock }),
      // MCP tool calls: the approvals inbox and the endpoint's challenge (no upstream needed).
      mcpRoutes({
        governor: new ToolGovernor({
          upstreams: [],
          engine: policy.engine,
          audit: log,
          inbox: new InMemoryToolCallInbox(),
          clock,
        }),
        oidc: testOidcConfig(idp),
        resource: 'http://127.0.0.1/api/v1/mcp',
        audit: log,
        directory,
        clock,
      }),
      workTrackingRoutes({
        store: new InMemoryWorkTrackingStore(),
        tasks: new InMemoryTaskStore(),
        briefings: new InMemoryBriefingStore(),
        classifications: new InMemoryClassificationStore(),
        secrets,
        integrations: staticIntegrations({
          acme: {
            codehost: { webhookSecretRef: 'codehost-webhook', users: { Codertocat: 'u-alice' } },
            tracker: { projectKeys: ['ENG'] },
          },
        }),
        trackerClient: async () => tracker,
        engine: policy.engine,
        audit: log,
        directory,
        clock,
      }),
    ],
    ...over.kernel,
  });
}
