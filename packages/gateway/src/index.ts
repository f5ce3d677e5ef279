/**
 * @agentgov/gateway — the framework-agnostic HTTP kernel of the governance service.
 * `createGovernance({ plugins, ... })` → `{ handle(Request) → Response, routes, openapi, start, close }`.
 * The plugin contract, the request context and the route definitions are in `@agentgov/core`.
 */

export type { AuthenticateRequest } from './auth/application';
export { type ClaimsResult, isCleanText, principalFromClaims, rolesFromClaim } from './auth/claims';
export {
  ASYMMETRIC_ALGORITHMS,
  OidcClient,
  type OidcConfig,
  OidcConfigError,
  type VerifiedBearerToken,
  type VerifiedIdToken,
} from './auth/oidc';
export {
  DEFAULT_SESSION_ABSOLUTE_TTL_SECONDS,
  DEFAULT_SESSION_TTL_SECONDS,
  hashSessionId,
  newSessionId,
  publicSessionId,
  SECURE_SESSION_COOKIE,
  SESSION_COOKIE,
  type SessionLookup,
  SessionManager,
  type SessionOptions,
  type SessionView,
  sessionCookie,
} from './auth/sessions';
export type { ForwardedHeader, TrustProxy } from './client-address';
export { DEFAULT_BODY_LIMIT, requestIdFrom } from './http';
export {
  createGovernance,
  type Governance,
  type GovernanceConfig,
  type GovernanceLimits,
  type HandleContext,
  type KernelStores,
} from './kernel';
export {
  type ClientAuthMode,
  clientCertificate,
  createNodeServer,
  type NodeTlsOptions,
} from './listen';
export { createMemoryStores } from './memory';
export { type NodeRequestOptions, toFetchRequest } from './node-request';
export { sendFetchResponse } from './node-response';
export { buildOpenApi, type OpenApiDocument } from './openapi';
export {
  createMemoryRateLimiter,
  MemoryRateLimiter,
  RATE_LIMIT_CATEGORIES,
  type RateLimitCategory,
  type RateLimitTable,
  rateLimitHeaders,
} from './rate-limit';
export { type MatchResult, type MountedRoute, Router } from './router';
export { type EffectivePermissions, effectivePermissions } from './routes/permissions';
