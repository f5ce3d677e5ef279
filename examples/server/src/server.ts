/**
 * Assembles the reference server from its configuration: database (PGlite, PostgreSQL or
 * memory), Redis when configured, decision engine (built-in or OPA), OIDC issuer (external or
 * the in-process development issuer), the gateway kernel with the domain plugins it serves
 * (policy, audit, work tracking), and the chosen framework adapter. `startServer` is what
 * `main.ts` runs and what the tests start in-process.
 *
 * The whole assembly reads top to bottom in one place; the parts with logic of their own are
 * modules: the stores (./stores.ts), the MCP extension (./mcp.ts), the HTTP front (./http-front.ts),
 * the request log, checkpoints, data-directory lock and secrets.
 */

import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { type AuditService, createAuditLog, DEFAULT_COMMITMENT_KEY_REF } from '@agentgov/audit';
import { auditRoutes } from '@agentgov/audit/gateway';
import { consoleRoutes } from '@agentgov/console/gateway';
import {
  auditedTransactions,
  browserHost,
  createUlidFactory,
  DEFAULT_OIDC_SCOPES,
  DEV_OIDC_SCOPES,
  DEV_WEBHOOK_TENANT,
  type DecisionEngine,
  EnvSecretStore,
  guardPort,
  InMemoryBriefingStore,
  InMemoryClassificationStore,
  InMemoryExchangeStore,
  InMemoryScheduledRunStore,
  InMemoryTaskStore,
  InMemoryWorkTrackingStore,
  type SecretStore,
  systemClock,
} from '@agentgov/core';
import {
  createGovernance,
  createNodeServer,
  type Governance,
  MemoryRateLimiter,
  type OidcConfig,
} from '@agentgov/gateway';
import { prometheusMetrics } from '@agentgov/gateway/observability';
import { interchangeRoutes } from '@agentgov/interchange/gateway';
import {
  BuiltinDecisionEngine,
  EffectivePolicyResolver,
  OpaDecisionEngine,
  tlsFetch,
} from '@agentgov/policy';
import { policyRoutes } from '@agentgov/policy/gateway';
import { KyselyScheduledRunStore, openStore, type SqlStores } from '@agentgov/store-kysely';
import type { RedisStores } from '@agentgov/store-redis';
import { connectorIntegrations } from '@agentgov/work-tracking';
import { workTrackingRoutes } from '@agentgov/work-tracking/gateway';
import { apiReference } from './api-reference';
import { scheduleCheckpoints } from './checkpoints';
import { isLoopbackHttp, type ServerConfig } from './config';
import { openDataDir } from './data-lock';
import { DEV_ACCOUNTS, type DevIssuer, startDevIssuer } from './dev-issuer';
import { serverSecrets } from './dev-secrets';
import { frameworkListener } from './http-front';
import { listen } from './listen';
import { mcpPluginFromEnv } from './mcp';
import { PGLITE_TEMPLATE_DIR } from './pglite-template';
import { connectRedis } from './redis';
import { createServerLogger, type StartupPhase, startupResponder } from './request-log';
import { bindSecretOwners, countActiveSessions, serverStores } from './stores';

export interface RunningServer {
  /** Base URL, e.g. http://127.0.0.1:8080 */
  url: string;
  governance: Governance;
  /** The audit log's reads, verification and erasure (what the audit plugin serves). */
  auditService: AuditService;
  /** The in-process development issuer, when no OIDC_ISSUER is configured. */
  devIssuer: DevIssuer | undefined;
  /** The MCP endpoint's resource (the audience of its access tokens), when AGENTGOV_MCP_CONFIG is set. */
  mcpResource: string | undefined;
  /** Audit key refs generated for development (empty when the environment provides them). */
  generatedSecrets: string[];
  /** Stops accepting connections, lets in-flight requests finish, then closes everything. */
  close(): Promise<void>;
}

export async function startServer(
  config: ServerConfig,
  options: {
    env?: Record<string, string | undefined>;
    log?: (line: string) => void;
    /** What the start-up is doing, one line per step (main.ts prints them): it can take a while. */
    progress?: (step: string) => void;
  } = {},
): Promise<RunningServer> {
  const progress = options.progress ?? (() => {});
  const env = options.env ?? process.env;
  const cleanups: (() => Promise<unknown>)[] = [];
  const cleanup = async () => {
    for (const fn of cleanups.reverse()) await fn().catch(() => {});
  };
  const log = options.log ?? (() => {});
  // pino JSON lines to `log`: the kernel's request lines, checkpoints, warnings.
  const logger = createServerLogger(log, config.logLevel);
  try {
    // --- listen first: a taken port is reported before anything is opened; requests that
    // arrive before the service is assembled get 503 (/api/v1/readyz says which phase).
    let phase: StartupPhase = 'starting';
    let ready: http.RequestListener = startupResponder(() => phase, logger, {
      plugins: config.opaUrl ? ['policyEngine', 'opa', 'workTracking'] : ['policyEngine', 'workTracking'],
    });
    // HTTPS with AGENTGOV_TLS_CERT/KEY; client certificates per AGENTGOV_TLS_CLIENT_AUTH (./tls-config.ts).
    const listenTls = config.tls.listen;
    const server = createNodeServer((req, res) => ready(req, res), listenTls);
    await listen(server, config.port, config.host); // ./listen.ts: a HOST it cannot use, named
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const { port } = server.address() as AddressInfo;
    const url = `${listenTls ? 'https' : 'http'}://${browserHost(config.host)}:${port}`;
    progress(`port ${port} on ${config.host} bound (requests get 503 until the start-up completes)`);
    const redirectUri = config.oidc.redirectUri ?? `${url}/api/v1/auth/callback`;

    // --- database
    let sqlStores: SqlStores | undefined;
    phase = 'migrating';
    if (config.database.kind === 'pglite') cleanups.push(await openDataDir(config.database.dataDir));
    // The development OIDC issuer starts while the database opens (its start-up is mostly loading
    // its modules, the database's is WebAssembly work): awaited below, closed with the rest.
    const issuerStarting = config.oidc.issuer
      ? undefined
      : startDevIssuer({
          clientId: config.oidc.clientId,
          clientSecret: config.oidc.clientSecret,
          redirectUri,
          host: '127.0.0.1',
          ...(config.database.kind === 'pglite'
            ? { keyFile: path.join(config.database.dataDir, 'dev-issuer-key.json') }
            : {}),
        });
    // Handled here too, so that a failure while the database opens is not an unhandled rejection.
    const issuerOrNot = issuerStarting?.catch(() => undefined);
    cleanups.push(async () => (await issuerOrNot)?.close());
    if (config.database.kind === 'pglite') {
      progress(`opening the embedded database in ${config.database.dataDir}…`);
      sqlStores = await openStore({
        database: config.database.dataDir,
        migrate: false,
        pgliteTemplateDir: PGLITE_TEMPLATE_DIR,
      });
    } else if (config.database.kind === 'postgres') {
      progress('connecting to PostgreSQL…');
      sqlStores = await openStore({
        database: config.database.url,
        migrate: false,
        ...(config.tls.database ? { tls: config.tls.database } : {}),
      });
    }
    if (sqlStores) {
      cleanups.push(() => (sqlStores as SqlStores).close());
      progress('migrating the database…');
      const { applied } = await sqlStores.migrate();
      if (applied.length > 0) progress(`  ${applied.length} migration(s) applied`);
    }
    phase = 'starting';
    // Everything lives in the database when there is one; `memory:` keeps it all in-process.
    // Audited writes (policies, connectors, erasure) commit with their entry: `unitOfWork`.
    let { stores, policyStore, auditStore, directory, unitOfWork } = serverStores(sqlStores);
    await bindSecretOwners(stores.connectors, config.secretOwners);

    // --- Redis: shared rate limits, sessions and activity across processes
    let redis: RedisStores | undefined;
    if (config.redisUrl) {
      progress('connecting to Redis…');
      const shared = await connectRedis(config.redisUrl, { tls: config.tls.redis, logger }); // ./redis.ts
      redis = shared;
      cleanups.push(() => shared.close());
      stores.sessions = shared.sessions;
      // Without a shared database, heartbeats are shared through Redis instead.
      if (!sqlStores) stores.instances = shared.instances;
    }

    // One rate limiter for the routes and the MCP proxy's per-user call limits (shared by every
    // process through Redis when there is one).
    const rateLimiter = redis?.rateLimiter ?? new MemoryRateLimiter();

    // --- secrets (environment first, development audit keys otherwise)
    progress('loading the audit keys…');
    const { secrets, generated } = await serverSecrets(new EnvSecretStore(env), sqlStores?.db, auditStore);

    // --- OIDC
    let devIssuer: DevIssuer | undefined;
    if (issuerStarting) {
      progress('starting the development OIDC issuer…');
      devIssuer = await issuerStarting;
    }
    const issuer = config.oidc.issuer ?? (devIssuer as DevIssuer).issuer;
    const oidcClient: OidcConfig = {
      issuer,
      clientId: config.oidc.clientId,
      clientSecret: config.oidc.clientSecret,
      redirectUri,
      // Plain HTTP is accepted only for an issuer on loopback (the development issuer, tests).
      ...(isLoopbackHttp(issuer) ? { allowInsecureRequests: true } : {}),
    };

    // --- the development accounts are placed in the org tree up front
    if (devIssuer) {
      for (const a of DEV_ACCOUNTS)
        await directory.place(a.tenant_id, a.sub, { orgUnit: a.org_unit, team: a.team });
    }

    // --- Prometheus (GET /api/v1/metrics/prometheus): the decision engine and the audit store
    // are wrapped to count decisions and time appends.
    const prometheus = prometheusMetrics({
      ...(config.metricsToken ? { token: config.metricsToken } : {}),
      ...(sqlStores && !redis ? { sessionsActive: () => countActiveSessions(sqlStores as SqlStores) } : {}),
    });
    auditStore = prometheus.observeAuditStore(auditStore);
    // The built-in engine is built here (not by the policy plugin) so that it can be observed.
    const resolver = config.opaUrl
      ? undefined
      : new EffectivePolicyResolver({
          store: guardPort(policyStore, 'policy store'),
          directory: guardPort(directory, 'org directory'),
          maxAgeMs: 5_000,
        });
    const decisionEngine: DecisionEngine = prometheus.observeDecisionEngine(
      resolver
        ? new BuiltinDecisionEngine(resolver)
        : new OpaDecisionEngine({
            url: config.opaUrl as string,
            ...(config.tls.opa ? { fetch: tlsFetch(config.tls.opa) } : {}),
          }),
    );

    // --- the service: the gateway kernel and the domains it serves, listed explicitly
    const ids = createUlidFactory(systemClock);
    const audit = createAuditLog({ store: auditStore, secrets, ids });
    // A transaction's audit log must not read the key through another database session while the
    // transaction holds PGlite's only one: it gets the commitment key read once, here.
    const commitmentKey = await secrets.get(DEFAULT_COMMITMENT_KEY_REF);
    const txSecrets: SecretStore = {
      get: (ref) => (ref === DEFAULT_COMMITMENT_KEY_REF ? Promise.resolve(commitmentKey) : secrets.get(ref)),
    };
    const transaction = auditedTransactions(unitOfWork, (store) =>
      createAuditLog({ store: prometheus.observeAuditStore(store), secrets: txSecrets, ids }),
    );
    const auditPlugin = auditRoutes({ store: auditStore, secrets, directory, log: audit, transaction });
    let actionsChanged: ((tenantId: string) => void) | undefined; // set once the MCP plugin is made
    const policyPlugin = policyRoutes({
      store: policyStore,
      directory,
      audit,
      transaction,
      engine: decisionEngine,
      // The org tree is learned from sign-ins: an org nobody of it has signed in from yet is
      // still a valid target (its parent is the enterprise).
      acceptUnseenOrgs: true,
      onChange: (tenantId, policy) => {
        resolver?.invalidate(tenantId);
        if (policy.domain === 'actions') actionsChanged?.(tenantId); // MCP sessions list again
      },
    });
    // Exchanges the assistants recorded, for the humans involved and the admins (list, read,
    // approve, reject); the org tree scopes an org_admin's reads to their org.
    const interchangePlugin = interchangeRoutes({
      store: sqlStores?.exchanges ?? new InMemoryExchangeStore(),
      audit,
      directory,
    });
    // Governed MCP tool calls (extension, optional): AGENTGOV_MCP_CONFIG (./mcp.ts).
    const mcpPlugin = await mcpPluginFromEnv(env, {
      engine: policyPlugin.engine,
      audit,
      directory,
      rateLimiter,
      inbox: sqlStores?.toolCalls,
      oidc: oidcClient,
    });
    if (mcpPlugin) actionsChanged = (tenantId) => mcpPlugin.toolsChanged(tenantId);
    // Work tracking: integrations are the tenant's codehost/tracker connectors (POST /connectors),
    // webhook secrets and the tracker token come from the secret store, never from their config.
    const workTrackingPlugin = workTrackingRoutes({
      store: sqlStores?.workTracking ?? new InMemoryWorkTrackingStore(),
      tasks: sqlStores?.tasks ?? new InMemoryTaskStore(),
      briefings: sqlStores?.briefings ?? new InMemoryBriefingStore(),
      classifications: sqlStores?.classifications ?? new InMemoryClassificationStore(),
      secrets,
      integrations: connectorIntegrations(stores.connectors),
      connectors: stores.connectors,
      // A tenant's connectors read only the secret references that tenant holds, and reach only
      // the networks the operator lets them (AGENTGOV_CONNECTOR_EGRESS / _NETWORKS).
      secretRefs: stores.connectors,
      egress: config.connectorEgress,
      engine: policyPlugin.engine,
      audit,
      directory,
      ...(env.AGENTGOV_WEBHOOK_TENANT || devIssuer
        ? { defaultTenant: env.AGENTGOV_WEBHOOK_TENANT || DEV_WEBHOOK_TENANT }
        : {}),
      retention: { tenants: async () => (await stores.tenants.list()).map((t) => t.id) },
      // Scheduled pulls of the tracker/codehost connectors and daily briefings (07:00 in each
      // user's zone); each run is taken in the database, so several processes never repeat one.
      schedule: {
        connectors: stores.connectors,
        runs: sqlStores ? new KyselyScheduledRunStore(sqlStores.db) : new InMemoryScheduledRunStore(),
        tenants: async () => (await stores.tenants.list()).map((t) => t.id),
      },
    });
    // The web console under /console (outside the API): `/` sends a browser there, and so does sign-in.
    const consolePlugin = consoleRoutes();
    const governance = createGovernance({
      plugins: [
        policyPlugin,
        auditPlugin,
        workTrackingPlugin,
        interchangePlugin,
        ...(mcpPlugin ? [mcpPlugin] : []),
        prometheus,
        await apiReference(),
        consolePlugin,
      ],
      stores,
      directory,
      secrets,
      audit,
      transaction,
      logger,
      oidc: {
        ...oidcClient,
        // The development issuer puts tenant_id and the roles under its `agentgov` scope.
        scope: config.oidc.scope ?? (devIssuer ? DEV_OIDC_SCOPES : DEFAULT_OIDC_SCOPES),
        afterLogin: `${consolePlugin.path}/`,
      },
      rateLimiter,
      ...(redis ? { activity: redis.activity } : {}),
      ...(sqlStores
        ? {
            probes: {
              database: async () => {
                await (sqlStores as SqlStores).ping();
                return true;
              },
            },
          }
        : {}),
      ...(devIssuer ? { tenants: [{ id: 'acme', name: 'Acme (development)' }] } : {}),
      ...(config.trustProxy === undefined ? {} : { trustProxy: config.trustProxy }),
      forwardedHeader: config.forwardedHeader,
      sessions: { secureCookies: config.secureCookies },
      // Idempotency-Key records live with the data (shared by every process, kept across
      // restarts); in memory only with `DATABASE_URL=memory:`.
      ...(sqlStores ? { idempotency: sqlStores.idempotency } : {}),
    });
    progress('starting the service…');
    await governance.start();
    cleanups.push(() => governance.close());
    const checkpoints = scheduleCheckpoints(auditStore, audit, config.checkpointIntervalSeconds, (message) =>
      logger.warn(message),
    );
    cleanups.push(() => checkpoints.tick().then(() => checkpoints.stop()));

    // --- HTTP: the chosen framework; outside /api/v1 the console, `/` and else the gateway (./http-front.ts).
    ready = await frameworkListener(config.framework, governance, consolePlugin, mcpPlugin, logger);

    let closing: Promise<void> | undefined;
    return {
      url,
      governance,
      auditService: auditPlugin.service,
      devIssuer,
      mcpResource: mcpPlugin?.resource,
      generatedSecrets: generated,
      close: () => {
        closing ??= (async () => {
          // Stop accepting; idle keep-alive sockets go now, in-flight requests finish.
          const closed = new Promise<void>((resolve) => server.close(() => resolve()));
          server.closeIdleConnections();
          const force = setTimeout(() => server.closeAllConnections(), 10_000);
          force.unref();
          await closed;
          clearTimeout(force);
          // Audit appends are awaited inside each request, so nothing is buffered past this point.
          await cleanup();
        })();
        return closing;
      },
    };
  } catch (error) {
    await cleanup();
    throw error;
  }
}
