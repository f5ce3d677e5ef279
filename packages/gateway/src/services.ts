/**
 * What the kernel's own routes (auth, connectors, tenants, status, metrics) use, assembled once by
 * createGovernance. Every port here is guarded: a backing service that throws answers 503.
 */
import type {
  ActivityTracker,
  AuditSink,
  Clock,
  Connector,
  ConnectorStore,
  GatewayPlugin,
  InstanceRegistry,
  OrgDirectory,
  Principal,
  RunAudited,
  SecretStore,
  SessionStore,
  TenantStore,
} from '@agentgov/core';
import type { Authenticator } from './auth/authenticate';
import type { OidcClient } from './auth/oidc';
import type { SessionManager } from './auth/sessions';

/** The stores the kernel itself owns (every domain brings its own through its plugin). */
export interface KernelStores {
  sessions: SessionStore;
  tenants: TenantStore;
  connectors: ConnectorStore;
  instances: InstanceRegistry;
}

export interface KernelServices {
  stores: KernelStores;
  directory: OrgDirectory;
  secrets: SecretStore;
  /**
   * `secrets` as a tenant's configuration reads it: `tenantSecrets` over the connectors (one per
   * kernel, so each reference's holder is asked once per process).
   */
  tenantSecrets: SecretStore;
  /** Where the kernel's own audited writes go (connectors). */
  audit: AuditSink;
  /** When given, each audited kernel write and its entry commit in one transaction. */
  transaction?: RunAudited;
  /** The OIDC client, when the issuer signs callers in (absent with an `authenticate` function). */
  oidc?: OidcClient;
  /** The principal of a request (the spec's 401 errors when none): OIDC or the application's function. */
  authenticate: Authenticator;
  sessions: SessionManager;
  activity: ActivityTracker;
  clock: Clock;
  instanceId: string;
  basePath: string;
  plugins: readonly GatewayPlugin[];
  /** Window of `activeUsers` in /metrics, in ms. */
  activeUsersWindowMs: number;
  /** Records what a principal's claims tell: its tenant, its place in the org tree, its activity. */
  learn(principal: Principal): Promise<void>;
  /** Probe of the database (default: a cheap tenant-store read). */
  probeDatabase(): Promise<boolean>;
  /** Probe of one connector (default: its secret reference resolves and its status is not `error`). */
  probeConnector(c: Connector): Promise<boolean>;
}
