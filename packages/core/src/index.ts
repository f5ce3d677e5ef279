/**
 * `@agentgov/core`: the shared vocabulary, then one folder per domain — `schema.ts` (zod schema of
 * the resource), `port.ts` (its interface), `memory.ts` (the in-memory implementation). The
 * conformance suites (`suite.ts`) are exported from `@agentgov/core/testing` only.
 */

// Domains
export * from './activity/memory';
export * from './activity/port';
export * from './audit/memory';
export * from './audit/port';
export * from './audit/schema';
export * from './briefing/memory';
export * from './briefing/port';
export * from './briefing/schema';
// Shared vocabulary
export * from './canonical-json';
export * from './classification/assignment';
export * from './classification/memory';
export * from './classification/port';
export * from './classification/schema';
export * from './classification-lattice';
export * from './clock';
export * from './connector/memory';
export * from './connector/patch';
export * from './connector/port';
export * from './connector/schema';
export * from './decision/port';
export * from './decision/schema';
// Deployment configuration files (apiVersion agentgov.dev/v1)
export * from './deployment/derived';
export * from './deployment/envelope';
export * from './deployment/governance-server';
export * from './deployment/settings';
export * from './errors';
export * from './exchange/memory';
export * from './exchange/port';
export * from './exchange/schema';
export * from './idempotency/memory';
export * from './idempotency/port';
export * from './idempotency/schema';
export * from './ids';
export * from './instance/memory';
export * from './instance/port';
export * from './instant';
export * from './mutex';
export * from './names';
export * from './networks';
export * from './org-directory/memory';
export * from './org-directory/port';
export * from './org-directory/schema';
export * from './plain-clone';
// The gateway plugin contract (RequestContext, Principal, routes, guards).
export * from './plugin/index';
export * from './policy/memory';
export * from './policy/port';
export * from './policy/schema';
export * from './rate-limit/memory';
export * from './rate-limit/port';
export * from './result';
export * from './schedule/memory';
export * from './schedule/port';
export * from './secret/file';
export * from './secret/memory';
export * from './secret/port';
export * from './session/memory';
export * from './session/port';
export * from './streams';
export * from './task/memory';
export * from './task/port';
export * from './task/schema';
export * from './tenant/memory';
export * from './tenant/port';
export * from './tenant/schema';
export * from './tls';
export * from './tool-call/memory';
export * from './tool-call/port';
export * from './tool-call/schema';
export * from './tracker/memory';
export * from './tracker/port';
export * from './tracker/schema';
export * from './tracker/store';
export * from './unit-of-work/journal';
export * from './unit-of-work/memory';
export * from './unit-of-work/port';
export * from './verification';
export * from './vocabulary';
