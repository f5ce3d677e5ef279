/**
 * createGovernance: assembles the plugins (policy-engine, audit-enterprise, auth-enterprise, admin)
 * from ports into one Fetch `Request` → `Response` handler, plus the route table and its OpenAPI
 * document.
 */
import { createAuditLog, createAuditService } from '@agentgov/audit';
import {
  type AuditSink,
  type AuditStore,
  type Clock,
  type Connector,
  type ConnectorStore,
  type DecisionEngine,
  GovernanceError,
  type InstanceRegistry,
  type OrgDirectory,
  type Policy,
  type PolicyStore,
  type RateLimit,
  type RateLimiter,
  type SecretStore,
  type SessionStore,
  systemClock,
  type TenantStore,
  ValidationError,
  validationErrorFromZod,
} from '@agentgov/core';
import { BuiltinDecisionEngine, EffectivePolicyResolver, PolicyService } from '@agentgov/policy';
import { OidcClient, type OidcConfig } from './auth/oidc';
import type { Principal } from './auth/principal';
import { principalFromClaims } from './auth/principal';
import { SESSION_COOKIE, SessionManager } from './auth/sessions';
import type { GatewayContext } from './context';
import { guardPort } from './guard';
import {
  DEFAULT_BODY_LIMIT,
  errorOf,
  errorResponse,
  json,
  parseJsonBody,
  queryObject,
  readBodyLimited,
  readCookie,
  requestIdFrom,
} from './http';
import { type ActivityTracker, InMemoryActivityTracker } from './instances';
import { buildOpenApi, type OpenApiDocument } from './openapi';
import { adminPlugin } from './plugins/admin/routes';
import { auditPlugin } from './plugins/audit-enterprise/routes';
import { authPlugin } from './plugins/auth-enterprise/routes';
import { policyPlugin } from './plugins/policy-engine/routes';
import {
  MemoryRateLimiter,
  RATE_LIMIT_CATEGORIES,
  type RateLimitCategory,
  rateLimitHeaders,
} from './rate-limit';
import { hasRole } from './rbac';
import { type AnyRoute, defineRoute, Router } from './routes';

export interface GovernanceStores {
  policies: PolicyStore;
  audit: AuditStore;
  sessions: SessionStore;
  tenants: TenantStore;
  connectors: ConnectorStore;
  instances: InstanceRegistry;
}

export interface GovernanceLimits {
  /** Largest request body in bytes (default 1 MiB). */
  bodyBytes?: number;
  /** Override of the spec's rate limits per category. */
  rateLimits?: Partial<Record<RateLimitCategory, RateLimit>>;
  /** Session lifetime in seconds (default 3600, the spec's cookie Max-Age). */
  sessionTtlSeconds?: number;
  /** Heartbeat interval of this instance in ms (default 10 000; an instance is live for 3 intervals). */
  heartbeatMs?: number;
  /** Window of `activeUsers` in /metrics, in ms (default 24 h). */
  activeUsersWindowMs?: number;
  /**
   * How long the built-in engine trusts a cached effective policy, in ms (default 5 000). Writes
   * through this process invalidate at once; writes by another process sharing the database are
   * seen within this time.
   */
  policyCacheMs?: number;
}

export interface GovernanceConfig {
  stores: GovernanceStores;
  /** The decision engine (OPA sidecar, …); default: the built-in engine over `stores.policies`. */
  decisionEngine?: DecisionEngine;
  directory: OrgDirectory;
  secrets: SecretStore;
  /** Default: in-process limits. Pass `createRedisRateLimiter(redis)` to share them across processes. */
  rateLimiter?: RateLimiter;
  oidc: OidcConfig;
  clock?: Clock;
  limits?: GovernanceLimits;
  /** Identifier of this server process (default: a random UUID). */
  instanceId?: string;
  /** Tenants registered at start, before any request carries their `tenant_id`. */
  tenants?: readonly { id: string; name?: string }[];
  /** Where audit entries go (default: `createAuditLog({store: stores.audit, secrets, clock})` of @agentgov/audit). */
  audit?: AuditSink;
  /** Who was active recently (default in-process; `RedisActivityTracker` to share). */
  activity?: ActivityTracker;
  /** Called after every policy write (e.g. to invalidate the cache of a custom decision engine). */
  onPolicyChange?: (tenantId: string, policy: Policy) => void;
  /** Health probes of /status (defaults: a tenant-store read; a connector's secret resolves). */
  probes?: {
    database?: () => Promise<boolean>;
    connector?: (connector: Connector) => Promise<boolean>;
  };
  /** Base path (default `/api/v1`). */
  basePath?: string;
  /** Receives unexpected errors (500s); default `console.error`. */
  onError?: (error: unknown, request: Request) => void;
}

export interface HandleContext {
  /** Client address (used for the per-address limit of /status). */
  remoteAddress?: string;
}

export interface Governance {
  handle(request: Request, context?: HandleContext): Promise<Response>;
  readonly routes: readonly AnyRoute[];
  readonly openapi: OpenApiDocument;
  readonly basePath: string;
  readonly context: GatewayContext;
  /** Registers configured tenants and starts the instance heartbeat (unref'd). Idempotent. */
  start(): Promise<void>;
  /** Stops the heartbeat and removes this instance from the registry. */
  close(): Promise<void>;
}

async function timed<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('timeout')), ms);
        timer.unref?.();
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export function createGovernance(config: GovernanceConfig): Governance {
  const clock = config.clock ?? systemClock;
  const basePath = (config.basePath ?? '/api/v1').replace(/\/$/, '');
  const bodyLimit = config.limits?.bodyBytes ?? DEFAULT_BODY_LIMIT;
  const heartbeatMs = config.limits?.heartbeatMs ?? 10_000;
  const instanceId = config.instanceId ?? crypto.randomUUID();
  const rateLimits: Record<RateLimitCategory, RateLimit> = {
    ...RATE_LIMIT_CATEGORIES,
    ...config.limits?.rateLimits,
  };
  const rateLimiter = config.rateLimiter ?? new MemoryRateLimiter();

  const stores = {
    policies: guardPort(config.stores.policies, 'policy store'),
    audit: guardPort(config.stores.audit, 'audit store'),
    sessions: guardPort(config.stores.sessions, 'session store'),
    tenants: guardPort(config.stores.tenants, 'tenant store'),
    connectors: guardPort(config.stores.connectors, 'connector store'),
    instances: guardPort(config.stores.instances, 'instance registry'),
  };
  const directory = guardPort(config.directory, 'org directory');
  const auditLog = createAuditLog({ store: stores.audit, secrets: config.secrets, clock });
  const audit = config.audit ?? auditLog;
  // Query, get and export of the audit-enterprise routes (parsing, visibility, streamed export).
  const auditService = createAuditService({
    store: stores.audit,
    secrets: config.secrets,
    clock,
    log: auditLog,
  });
  let onPolicyChange = config.onPolicyChange;
  let decisionEngine = config.decisionEngine;
  if (!decisionEngine) {
    const resolver = new EffectivePolicyResolver({
      store: stores.policies,
      directory,
      maxAgeMs: config.limits?.policyCacheMs ?? 5_000,
    });
    decisionEngine = new BuiltinDecisionEngine(resolver);
    const outer = onPolicyChange;
    onPolicyChange = (tenantId, policy) => {
      resolver.invalidate(tenantId);
      outer?.(tenantId, policy);
    };
  }
  const policies = new PolicyService({
    store: stores.policies,
    directory,
    audit,
    clock,
    onChange: (tenantId, policy) => onPolicyChange?.(tenantId, policy),
  });
  const oidc = new OidcClient(config.oidc);
  const sessions = new SessionManager(stores.sessions, clock, config.limits?.sessionTtlSeconds);
  const activity = config.activity
    ? guardPort(config.activity, 'activity tracker')
    : new InMemoryActivityTracker();

  const ctx: GatewayContext = {
    stores,
    directory,
    decisionEngine,
    secrets: config.secrets,
    clock,
    audit,
    auditService,
    policies,
    oidc,
    sessions,
    activity,
    instanceId,
    basePath,
    onPolicyChange,
    probeDatabase:
      config.probes?.database ??
      (async () => {
        await timed(config.stores.tenants.get('__agentgov_probe__'), 2000);
        return true;
      }),
    probeConnector:
      config.probes?.connector ??
      (async (c) =>
        c.status !== 'error' && (await timed(config.secrets.get(c.credentialsRef), 2000)) !== undefined),
  };

  const plugins = [
    policyPlugin(ctx),
    auditPlugin(ctx),
    authPlugin(ctx),
    adminPlugin(ctx, config.limits?.activeUsersWindowMs),
  ];
  const routes: AnyRoute[] = plugins.flatMap((p) => p.routes);
  routes.push(
    defineRoute({
      method: 'GET',
      path: '/openapi.json',
      plugin: 'gateway',
      operationId: 'getOpenApi',
      summary: 'This OpenAPI 3.1 document',
      auth: 'none',
      responses: { 200: { description: 'OpenAPI 3.1 document' } },
      handler: async () => ({ status: 200, body: openapi }),
    }),
  );
  const router = new Router(routes);
  const openapi = buildOpenApi(routes, { basePath, rateLimits });

  // Tenants and org placements already recorded by this process (skip repeated writes).
  const knownTenants = new Set<string>();
  const knownPlacements = new Map<string, string>();

  async function learn(p: Principal): Promise<void> {
    if (!knownTenants.has(p.tenantId)) {
      await stores.tenants.ensure({ id: p.tenantId }, clock.now());
      knownTenants.add(p.tenantId);
    }
    const key = `${p.tenantId}\u0000${p.userId}`;
    const placement = `${p.orgUnit ?? ''}\u0000${p.team ?? ''}`;
    if (knownPlacements.get(key) !== placement) {
      await directory.place(p.tenantId, p.userId, {
        orgUnit: p.orgUnit ?? undefined,
        team: p.team ?? undefined,
      });
      knownPlacements.set(key, placement);
    }
    await activity.touch(p.tenantId, p.userId, clock.now());
  }

  async function authenticate(request: Request, mode: 'required' | 'session'): Promise<Principal> {
    const authorization = request.headers.get('authorization');
    const cookie = readCookie(request.headers.get('cookie'), SESSION_COOKIE);
    if (authorization !== null) {
      const m = /^Bearer[ ]+([^\s]+)\s*$/i.exec(authorization);
      if (!m) {
        if (cookie === undefined)
          throw errorOf('authentication_required', 'Only Bearer ID tokens are accepted');
      } else {
        const { claims } = await ctx.oidc.verifyIdToken(m[1]!);
        const mapped = principalFromClaims(claims, 'bearer');
        if (!mapped.ok) throw errorOf('invalid_token', undefined, mapped.reason);
        return mapped.principal;
      }
    }
    if (cookie === undefined || cookie === '') {
      throw mode === 'session' ? errorOf('no_session') : errorOf('authentication_required');
    }
    const found = await sessions.lookup(cookie);
    if (found.kind === 'expired') throw errorOf('session_expired');
    if (found.kind === 'unknown') throw errorOf('no_session', 'The session cookie names no session');
    return found.principal;
  }

  async function dispatch(
    request: Request,
    requestId: string,
    remoteAddress: string | undefined,
    extraHeaders: Headers,
  ): Promise<Response> {
    const url = new URL(request.url);
    const path = url.pathname;
    if (path !== basePath && !path.startsWith(`${basePath}/`))
      throw errorOf('NOT_FOUND', `No route for ${path}`);
    const match = router.match(request.method, path.slice(basePath.length) || '/');
    if (match.kind === 'not_found') throw errorOf('NOT_FOUND', `No route for ${request.method} ${path}`);
    if (match.kind === 'method_not_allowed') {
      extraHeaders.set('allow', match.allow.join(', '));
      throw errorOf('method_not_allowed', `${request.method} is not allowed on ${path}`);
    }
    const route = match.route;
    const declared = request.headers.get('content-length');
    if (declared !== null && Number(declared) > bodyLimit) {
      throw errorOf('payload_too_large', `The request body exceeds ${bodyLimit} bytes`);
    }

    let principal: Principal | undefined;
    if (route.auth !== 'none') {
      principal = await authenticate(request, route.auth);
      await learn(principal);
    }

    if (route.rateLimit) {
      const limit = rateLimits[route.rateLimit];
      const subject =
        route.rateLimit === 'system_status' || !principal
          ? `addr:${remoteAddress ?? 'unknown'}`
          : `tenant:${principal.tenantId}`;
      const decision = await rateLimiter.consume(`${route.rateLimit}:${subject}`, limit);
      rateLimitHeaders(route.rateLimit, limit, decision).forEach((v, k) => {
        extraHeaders.set(k, v);
      });
      if (!decision.allowed) {
        throw errorOf(
          'rate_limit_exceeded',
          `Rate limit of ${limit.points} requests per ${limit.durationSeconds}s exceeded`,
          {
            category: route.rateLimit,
            retryAfterSeconds: decision.resetSeconds,
          },
        );
      }
    }

    if (route.roles && principal && !hasRole(principal, ...route.roles)) {
      throw errorOf('forbidden', `This action requires one of the roles: ${route.roles.join(', ')}`);
    }

    const parse = (schema: AnyRoute['params'], input: unknown, prefix: string): unknown => {
      if (!schema) return input;
      const r = schema.safeParse(input);
      if (!r.success) throw validationErrorFromZod(r.error, input, prefix);
      return r.data;
    };
    const params = parse(route.params, match.params, '');
    const query = parse(route.query, queryObject(url), '');
    let body: unknown;
    if (route.body) {
      const bytes = await readBodyLimited(request, bodyLimit);
      const raw = parseJsonBody(bytes);
      if (raw !== undefined && (raw === null || typeof raw !== 'object' || Array.isArray(raw))) {
        throw ValidationError.invalid('(body)', 'the body must be a JSON object');
      }
      body = parse(route.body, raw ?? undefined, '');
    }

    const result = await route.handler({
      request,
      url,
      requestId,
      params,
      query,
      body,
      principal,
      remoteAddress,
      signal: request.signal,
    });
    return result instanceof Response ? result : json(result.status, result.body, result.headers);
  }

  async function handle(request: Request, context: HandleContext = {}): Promise<Response> {
    if (!started) await governance.start().catch(() => {});
    const requestId = requestIdFrom(request);
    const extra = new Headers();
    let response: Response;
    try {
      response = await dispatch(request, requestId, context.remoteAddress, extra);
    } catch (error) {
      if (error instanceof GovernanceError) {
        response = errorResponse(error);
      } else {
        (config.onError ?? ((e) => console.error('[agentgov] unexpected error', e)))(error, request);
        response = errorResponse(new GovernanceError('internal_error'));
      }
    }
    const headers = new Headers(response.headers);
    extra.forEach((v, k) => {
      headers.set(k, v);
    });
    headers.set('x-request-id', requestId);
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  }

  let timer: NodeJS.Timeout | undefined;
  let started: Promise<void> | undefined;
  async function beat(): Promise<void> {
    await stores.instances.heartbeat(instanceId, clock.now(), heartbeatMs * 3);
  }

  const governance: Governance = {
    handle,
    routes,
    openapi,
    basePath,
    context: ctx,
    start() {
      started ??= (async () => {
        try {
          for (const t of config.tenants ?? []) {
            await stores.tenants.ensure(t, clock.now());
            knownTenants.add(t.id);
          }
          await beat();
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
      timer = undefined;
      started = undefined;
      await stores.instances.remove(instanceId).catch(() => {});
    },
  };
  return governance;
}
