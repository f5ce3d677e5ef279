/**
 * @agentgov/gateway — the framework-agnostic HTTP kernel of the governance service.
 * `createGovernance(config)` → `{ handle(Request) → Response, routes, openapi, start, close }`.
 */

// The InstanceRegistry port and its in-memory implementation live in @agentgov/core (the SQL store
// implements it too); re-exported so imports from @agentgov/gateway keep working.
export { InMemoryInstanceRegistry, type InstanceRegistry } from '@agentgov/core';
export { ASYMMETRIC_ALGORITHMS, OidcClient, type OidcConfig, type VerifiedIdToken } from './auth/oidc';
export { type Principal, principalFromClaims, rolesFromClaim } from './auth/principal';
export { RedisSessionStore, type RedisSessionStoreOptions } from './auth/redis-session-store';
export {
  DEFAULT_SESSION_TTL_SECONDS,
  hashSessionId,
  newSessionId,
  SESSION_COOKIE,
  type SessionLookup,
  SessionManager,
  sessionCookie,
} from './auth/sessions';
export type { GatewayContext } from './context';
export {
  createGovernance,
  type Governance,
  type GovernanceConfig,
  type GovernanceLimits,
  type GovernanceStores,
  type HandleContext,
} from './governance';
export { guardPort } from './guard';
export { DEFAULT_BODY_LIMIT, requestIdFrom } from './http';
export {
  type ActivityTracker,
  InMemoryActivityTracker,
  RedisActivityTracker,
  RedisInstanceRegistry,
} from './instances';
export { createMemoryDependencies, createMemoryStores } from './memory';
export { type NodeRequestOptions, sendFetchResponse, toFetchRequest } from './node';
export { buildOpenApi, type OpenApiDocument } from './openapi';
export { AuditExportQuerySchema, AuditQuerySchema, CSV_COLUMNS } from './plugins/audit-enterprise/routes';
export { CallbackBodySchema } from './plugins/auth-enterprise/routes';
export { DecisionBodySchema, PolicyListQuery } from './plugins/policy-engine/routes';
export type { GovernancePlugin } from './plugins/shared';
export {
  createMemoryRateLimiter,
  createRedisRateLimiter,
  MemoryRateLimiter,
  RATE_LIMIT_CATEGORIES,
  type RateLimitCategory,
  type RateLimitTable,
  type RedisLike,
  RedisRateLimiter,
  rateLimitHeaders,
} from './rate-limit';
export {
  auditReadScope,
  type EffectivePermissions,
  effectivePermissions,
  hasRole,
} from './rbac';
export {
  type AnyRoute,
  type AuthMode,
  defineRoute,
  type HttpMethod,
  type MatchResult,
  type RouteContext,
  type RouteDefinition,
  type RouteResult,
  Router,
} from './routes';
