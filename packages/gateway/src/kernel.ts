/**
 * createGovernance: the HTTP kernel. It owns authentication (OIDC bearer + session cookie), the
 * request context, role guards, rate limits, request ids, error bodies, body parsing, the OpenAPI
 * document, health and metrics, and its own routes (auth, connectors, tenants, status, metrics,
 * openapi). Every domain comes in as a plugin (`@agentgov/policy/gateway`, …): the kernel imports
 * no domain package.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  type ActivityTracker,
  type AnyRoute,
  type AuditSink,
  type Clock,
  type Connector,
  defineRoute,
  type GatewayPlugin,
  guardPort,
  type IdempotencyStore,
  InMemoryActivityTracker,
  InMemoryIdempotencyStore,
  type Logger,
  type OrgDirectory,
  type RateLimit,
  type RateLimiter,
  type RunAudited,
  type SecretStore,
  silentLogger,
  systemClock,
  tenantSecrets,
} from '@agentgov/core';
import { type AuthenticateRequest, applicationAuthenticator } from './auth/application';
import { oidcAuthenticator } from './auth/authenticate';
import { OidcClient, type OidcConfig } from './auth/oidc';
import { sameOriginCheck } from './auth/origin';
import { SessionManager, type SessionOptions } from './auth/sessions';
import { createClientAddress, type ForwardedHeader, type TrustProxy } from './client-address';
import { DEFAULT_BODY_LIMIT, responseOf } from './http';
import { createIdempotency } from './idempotency';
import { createLearner } from './learn';
import { type NodeRequestOptions, nodeIncoming, writeOutcome } from './node';
import { composeObservers, requestLogObserver } from './observability/request-log';
import { buildOpenApi, type OpenApiDocument } from './openapi';
import { createPipeline, fetchIncoming } from './pipeline';
import { MemoryRateLimiter, RATE_LIMIT_CATEGORIES } from './rate-limit';
import { type MountedRoute, Router } from './router';
import { authRoutes } from './routes/auth';
import { connectorRoutes } from './routes/connectors';
import { within } from './routes/plugin-reports';
import { statusRoutes } from './routes/status';
import { tenantRoutes } from './routes/tenants';
import type { KernelServices, KernelStores } from './services';

export type { KernelStores } from './services';

export interface GovernanceLimits {
  /** Largest request body in bytes (default 1 MiB). */
  bodyBytes?: number;
  /**
   * A body left unread by an early answer (413, 401 …) on the Node path: how much of it is read
   * and discarded before the connection closes, so that the client still sending reads the answer
   * (default 64 MiB, for at most 30 s).
   */
  drainBytes?: number;
  drainMs?: number;
  /** Override of the rate limits per category (the spec's, or a plugin's). */
  rateLimits?: Readonly<Record<string, RateLimit>>;
  /** Session lifetime in seconds (default 3600, the spec's cookie Max-Age). */
  sessionTtlSeconds?: number;
  /** Heartbeat interval of this instance in ms (default 10 000; an instance is live for 3 intervals). */
  heartbeatMs?: number;
  /** Window of `activeUsers` in /metrics, in ms (default 24 h). */
  activeUsersWindowMs?: number;
}

export interface GovernanceConfig {
  /** The domains served, each a plugin from a domain package's `./gateway` subpath. */
  plugins?: readonly GatewayPlugin[];
  /** The stores the kernel owns (sessions, tenants, connectors, instances). */
  stores: KernelStores;
  directory: OrgDirectory;
  secrets: SecretStore;
  /** Where the kernel's own audited writes go (connectors); usually the same log the plugins use. */
  audit: AuditSink;
  /**
   * Runs an audited write and its entry in one transaction (`auditedTransactions(unitOfWork, …)`
   * of `@agentgov/core`); without it the entry is appended after the write.
   */
  transaction?: RunAudited;
  /**
   * How callers sign in: the OIDC issuer (Bearer tokens, the login flow, the session cookie).
   * Exactly one of `oidc` and `authenticate` is given.
   */
  oidc?: OidcConfig;
  /**
   * The alternative to `oidc`, for an application that mounts the routes behind its own sign-in:
   * the principal of a request, or `undefined` (the spec's 401). The kernel then serves no login,
   * logout or session routes (`/auth/userinfo` stays); return `via: 'session'` for a cookie-based
   * sign-in, so the same-origin rule guards its writes. See ./auth/application.ts.
   */
  authenticate?: AuthenticateRequest;
  /** Default: in-process limits. `@agentgov/store-redis` shares them across processes. */
  rateLimiter?: RateLimiter;
  /** Who was active recently (default in-process; `@agentgov/store-redis` to share). */
  activity?: ActivityTracker;
  /** Responses kept for `Idempotency-Key` retries (default in-process; `KyselyIdempotencyStore` to share). */
  idempotency?: IdempotencyStore;
  clock?: Clock;
  /** Structured log (default: silent); it also gets one `request` line per answered request. */
  logger?: Logger;
  /** Set to false to keep the `request` lines out of `logger` (default true). */
  requestLog?: boolean;
  limits?: GovernanceLimits;
  /** Identifier of this server process (default: a random UUID). */
  instanceId?: string;
  /** Tenants registered at start, before any request carries their `tenant_id`. */
  tenants?: readonly { id: string; name?: string }[];
  /** Health probes of /status (defaults: a tenant-store read; a connector's secret resolves). */
  probes?: {
    database?: () => Promise<boolean>;
    connector?: (connector: Connector) => Promise<boolean>;
  };
  /** Base path (default `/api/v1`). */
  basePath?: string;
  /** Receives unexpected errors (500s); default: the logger's `error`, else `console.error`. */
  onError?: (error: unknown, request: Request) => void;
  /**
   * Which proxies in front of the server to trust for the client address (per-address limits,
   * `ctx.remoteAddress`), in Express's `trust proxy` syntax: `true`, a hop count, addresses and
   * CIDR ranges (`'loopback, 10.0.0.0/8'`), or a function. Default: none — the peer's address.
   */
  trustProxy?: TrustProxy;
  /** The header trusted proxies append the client to: `x-forwarded-for` (default) or `forwarded` (RFC 7239). */
  forwardedHeader?: ForwardedHeader;
  /** Rolling sessions, the `__Host-` cookie over HTTPS, the expired-session timer (see SessionOptions). */
  sessions?: SessionOptions;
  /**
   * Origins (besides the request's own and the OIDC redirect URI's) whose pages may send
   * cookie-authenticated writes; a write from any other origin is 403 `forbidden` (./auth/origin.ts).
   */
  trustedOrigins?: readonly string[];
}

export interface HandleContext {
  /** Client address (used for the per-address limit of /status). */
  remoteAddress?: string;
}

export interface Governance {
  handle(request: Request, context?: HandleContext): Promise<Response>;
  /**
   * The same request handling straight on Node's `IncomingMessage` and `ServerResponse`, without
   * building a Fetch Request or Response unless a route needs one; the JSON answer is written in
   * one write with its Content-Length. What the framework adapters use.
   */
  handleNode(req: IncomingMessage, res: ServerResponse, options?: NodeRequestOptions): Promise<void>;
  /** Every mounted route with the plugin that brought it (`gateway` for the kernel's own). */
  readonly routes: readonly MountedRoute[];
  readonly openapi: OpenApiDocument;
  readonly basePath: string;
  readonly plugins: readonly GatewayPlugin[];
  /** Registers configured tenants, starts the plugins and the instance heartbeat (unref'd). Idempotent. */
  start(): Promise<void>;
  /** Stops the heartbeat, closes the plugins, removes this instance from the registry. */
  close(): Promise<void>;
}

export function createGovernance(config: GovernanceConfig): Governance {
  const clock = config.clock ?? systemClock;
  const logger = config.logger ?? silentLogger;
  const basePath = (config.basePath ?? '/api/v1').replace(/\/$/, '');
  const heartbeatMs = config.limits?.heartbeatMs ?? 10_000;
  const instanceId = config.instanceId ?? crypto.randomUUID();
  const plugins = config.plugins ?? [];
  const names = new Set<string>(['gateway']);
  for (const p of plugins) {
    if (names.has(p.name)) throw new Error(`two gateway plugins are named '${p.name}'`);
    names.add(p.name);
  }
  const rateLimits: Record<string, RateLimit> = Object.assign(
    {},
    RATE_LIMIT_CATEGORIES,
    ...plugins.map((p) => p.rateLimits ?? {}),
    config.limits?.rateLimits,
  );

  const stores: KernelStores = {
    sessions: guardPort(config.stores.sessions, 'session store'),
    tenants: guardPort(config.stores.tenants, 'tenant store'),
    connectors: guardPort(config.stores.connectors, 'connector store'),
    instances: guardPort(config.stores.instances, 'instance registry'),
  };
  const directory = guardPort(config.directory, 'org directory');
  const activity = guardPort(config.activity ?? new InMemoryActivityTracker(), 'activity tracker');
  if ((config.oidc === undefined) === (config.authenticate === undefined)) {
    throw new Error(
      'createGovernance: give exactly one of `oidc` (the issuer signs callers in) and `authenticate` (your application does)',
    );
  }
  const oidc = config.oidc ? new OidcClient(config.oidc) : undefined;
  const sessions = new SessionManager(stores.sessions, clock, {
    ...config.sessions,
    ttlSeconds: config.sessions?.ttlSeconds ?? config.limits?.sessionTtlSeconds,
  });
  const learner = createLearner({ tenants: stores.tenants, directory, activity, clock, logger });

  const connectorSecrets = tenantSecrets(config.secrets, config.stores.connectors);
  const services: KernelServices = {
    stores,
    directory,
    secrets: config.secrets,
    tenantSecrets: connectorSecrets,
    audit: config.audit,
    ...(config.transaction ? { transaction: config.transaction } : {}),
    ...(oidc ? { oidc } : {}),
    authenticate: oidc
      ? oidcAuthenticator(oidc, sessions)
      : applicationAuthenticator(config.authenticate as AuthenticateRequest),
    sessions,
    activity,
    clock,
    instanceId,
    basePath,
    plugins,
    activeUsersWindowMs: config.limits?.activeUsersWindowMs ?? 86_400_000,
    learn: learner.learn,
    probeDatabase:
      config.probes?.database ??
      (() =>
        within(async () => {
          await config.stores.tenants.get('__agentgov_probe__');
          return true;
        }, false)),
    probeConnector:
      config.probes?.connector ??
      (async (c) =>
        c.status !== 'error' &&
        (await within(
          () =>
            connectorSecrets.get(c.credentialsRef, {
              tenantId: c.tenantId,
            }),
          undefined,
        )) !== undefined),
  };

  const openapiRoute = defineRoute({
    method: 'GET',
    path: '/openapi.json',
    operationId: 'getOpenApi',
    summary: 'This OpenAPI 3.1 document',
    auth: 'none',
    responses: { 200: { description: 'OpenAPI 3.1 document' } },
    handler: async () => ({ status: 200, body: openapi }),
  });
  const own = (routes: AnyRoute[]): MountedRoute[] => routes.map((route) => ({ route, plugin: 'gateway' }));
  const routes: MountedRoute[] = [
    ...plugins.flatMap((p) => p.routes.map((route) => ({ route, plugin: p.name }))),
    ...own(authRoutes(services, oidc)),
    ...own(connectorRoutes(services)),
    ...own(tenantRoutes(services)),
    ...own(statusRoutes(services)),
    ...own([openapiRoute]),
  ];
  for (const { route } of routes) {
    if (route.rateLimit && !rateLimits[route.rateLimit])
      throw new Error(`route ${route.operationId} names an unknown rate-limit category '${route.rateLimit}'`);
  }
  const openapi = buildOpenApi(routes, { basePath, rateLimits });
  const observe = composeObservers([
    config.logger && config.requestLog !== false ? requestLogObserver(config.logger) : undefined,
    ...plugins.map((p) => p.onRequest?.bind(p)),
  ]);
  const pipeline = createPipeline({
    ...(observe ? { observe } : {}),
    basePath,
    router: new Router(routes),
    bodyLimit: config.limits?.bodyBytes ?? DEFAULT_BODY_LIMIT,
    rateLimits,
    rateLimiter: guardPort(config.rateLimiter ?? new MemoryRateLimiter(), 'rate limiter'),
    clock,
    logger,
    authenticate: services.authenticate,
    clearSessionCookie: sessions.cookie('', 0),
    checkOrigin: sameOriginCheck([
      ...(config.oidc ? [config.oidc.redirectUri] : []),
      ...(config.trustedOrigins ?? []),
    ]),
    clientAddress: createClientAddress(config.trustProxy, config.forwardedHeader),
    learn: learner.learnNow,
    idempotency: createIdempotency(
      guardPort(config.idempotency ?? new InMemoryIdempotencyStore(), 'idempotency store'),
      clock,
    ),
    onError:
      config.onError ??
      ((error) => {
        if (config.logger) logger.error('unexpected error', { error: String(error) });
        else console.error('[agentgov] unexpected error', error);
      }),
  });

  const drain = { bytes: config.limits?.drainBytes, ms: config.limits?.drainMs };
  let timer: NodeJS.Timeout | undefined;
  let started: Promise<void> | undefined;
  const beat = () => stores.instances.heartbeat(instanceId, clock.now(), heartbeatMs * 3);

  /** One request on Node: the pipeline's outcome written to the response (see `handleNode`). */
  function serveNode(req: IncomingMessage, res: ServerResponse, options?: NodeRequestOptions): Promise<void> {
    const incoming = nodeIncoming(req, res, options);
    return pipeline(incoming, req.socket.remoteAddress).then((outcome) => {
      if (outcome.via === 'session') {
        // A session extended while authenticating: its cookie, unless the handler set one.
        const probe = new Response(null);
        for (const c of [outcome.headers.get('set-cookie') ?? []].flat())
          probe.headers.append('set-cookie', c);
        const cookies = sessions.withRenewedCookie(incoming.request, probe).headers.getSetCookie();
        if (cookies.length > 0) outcome.headers.set('set-cookie', cookies);
      }
      return writeOutcome(res, outcome, drain);
    });
  }

  const governance: Governance = {
    async handle(request, context = {}) {
      if (!started) await governance.start().catch(() => {});
      const outcome = await pipeline(fetchIncoming(request), context.remoteAddress);
      return sessions.withRenewedCookie(request, responseOf(outcome));
    },
    handleNode(req, res, options) {
      // Once started, the pipeline's own promise is chained (no async wrapper's promise and hop).
      if (!started) {
        return governance
          .start()
          .catch(() => {})
          .then(() => serveNode(req, res, options));
      }
      try {
        return serveNode(req, res, options);
      } catch (error) {
        return Promise.reject(error);
      }
    },
    routes,
    openapi,
    basePath,
    plugins,
    start() {
      started ??= (async () => {
        try {
          for (const t of config.tenants ?? []) {
            await stores.tenants.ensure(t, clock.now());
            learner.tenantKnown(t.id);
          }
          for (const p of plugins) await p.start?.({ basePath });
          await beat();
          sessions.startSweeper(logger);
          timer = setInterval(() => {
            beat().catch(() => {});
          }, heartbeatMs);
          timer.unref();
        } catch (error) {
          started = undefined;
          throw error;
        }
      })();
      return started;
    },
    async close() {
      if (timer) clearInterval(timer);
      sessions.stopSweeper();
      timer = undefined;
      started = undefined;
      for (const p of [...plugins].reverse()) await p.close?.().catch(() => {});
      await stores.instances.remove(instanceId).catch(() => {});
    },
  };
  return governance;
}
