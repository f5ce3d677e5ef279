import type { AuditService } from '@agentgov/audit';
import type {
  AuditSink,
  AuditStore,
  Clock,
  ConnectorStore,
  DecisionEngine,
  InstanceRegistry,
  OrgDirectory,
  Policy,
  PolicyStore,
  SecretStore,
  SessionStore,
  TenantStore,
} from '@agentgov/core';
import type { PolicyService } from '@agentgov/policy';
import type { OidcClient } from './auth/oidc';
import type { SessionManager } from './auth/sessions';
import type { ActivityTracker } from './instances';

/** Everything the plugins' handlers use, assembled by createGovernance. Stores are guarded (failure → 503). */
export interface GatewayContext {
  stores: {
    policies: PolicyStore;
    audit: AuditStore;
    sessions: SessionStore;
    tenants: TenantStore;
    connectors: ConnectorStore;
    instances: InstanceRegistry;
  };
  directory: OrgDirectory;
  decisionEngine: DecisionEngine;
  secrets: SecretStore;
  clock: Clock;
  audit: AuditSink;
  /** Reads of the audit log: query, get, streamed export (from @agentgov/audit). */
  auditService: AuditService;
  policies: PolicyService;
  oidc: OidcClient;
  sessions: SessionManager;
  activity: ActivityTracker;
  instanceId: string;
  basePath: string;
  /** Probe of the database (default: a cheap tenant-store read). */
  probeDatabase(): Promise<boolean>;
  /** Probe of one connector (default: its secret reference resolves and its status is not `error`). */
  probeConnector(c: import('@agentgov/core').Connector): Promise<boolean>;
  onPolicyChange?: ((tenantId: string, policy: Policy) => void) | undefined;
}
