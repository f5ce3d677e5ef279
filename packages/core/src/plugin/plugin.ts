/**
 * The gateway plugin contract: a plain object the kernel is given, never a module it imports. Each
 * domain package exports its plugin from its `./gateway` subpath (`@agentgov/policy/gateway`,
 * `@agentgov/audit/gateway`, …); the kernel routes, authenticates, limits, validates and documents
 * the plugin's routes and asks it for health and metrics.
 */
import type { z } from 'zod';
import type { ConnectorType, RateLimit } from '../index';
import type { RequestObserver } from './observe';
import type { AnyRoute } from './route';

export interface PluginStartContext {
  /** The kernel's base path (`/api/v1`). */
  basePath: string;
}

export interface GatewayPlugin {
  /** Unique name; also the OpenAPI tag of the plugin's routes. */
  readonly name: string;
  readonly routes: readonly AnyRoute[];
  /** Rate-limit categories the plugin introduces, with their default limits. */
  readonly rateLimits?: Readonly<Record<string, RateLimit>>;
  /** Called once when the kernel starts (before the first request is served). */
  start?(context: PluginStartContext): Promise<void>;
  /** Called when the kernel closes (reverse order of start). */
  close?(): Promise<void>;
  /**
   * Components this plugin contributes to `GET /status`: name → healthy. Any unhealthy component
   * makes the service `degraded` (503).
   */
  health?(signal: AbortSignal): Promise<Record<string, boolean>>;
  /** Counters this plugin contributes to `GET /metrics` for a tenant (e.g. `auditEntries`). */
  metrics?(tenantId: string, signal: AbortSignal): Promise<Record<string, number>>;
  /**
   * Sees every request the kernel answers, its own routes' and others' (metrics, tracing): called
   * on arrival; the function returned gets the outcome once the response is built.
   */
  onRequest?: RequestObserver;
  /**
   * The `config` this plugin can use, by the connector types it reads (work tracking: `tracker`,
   * `codehost`). When a connector of such a type is written (POST, PATCH `/connectors`), the kernel
   * checks its config against every plugin's schema for the type and refuses one that does not
   * parse — 400 `invalid_type` (`missing_type` for an absent required field) naming the field
   * (`config.baseUrl`), nothing stored — instead of storing a config the plugin would later skip.
   * The schema only checks (the config is stored as sent); keep it tolerant of keys it does not
   * know. A type no plugin names accepts any JSON object.
   */
  readonly connectorConfigs?: Readonly<Partial<Record<ConnectorType, z.ZodType>>>;
}

/** Identity helper for a plugin object (keeps literal route types checked). */
export function definePlugin<P extends GatewayPlugin>(plugin: P): P {
  return plugin;
}
