// The client class: the core (configuration and HTTP transport) plus one module per API area, whose
// methods are installed on the class's prototype. The interface below declares them for TypeScript
// (its declaration merges with the class), so each area is written once, in its own module.
import type { QueryValue } from '../params';
import { BudgetsApi } from './budgets';
import { ConfigApi } from './config';
import { ClientCore } from './core';
import { EventsApi } from './events';
import { ExportApi } from './export';
import { parseJson } from './http';
import type { CallOptions } from './options';
import { PromptsApi } from './prompts';
import { RecordsApi } from './records';
import { SessionsApi } from './sessions';
import { StatsApi } from './stats';

// Declaration merging (TypeScript's documented mixin pattern): installAreas() below provides these.
export interface AnalyticsClient
  extends SessionsApi,
    RecordsApi,
    PromptsApi,
    StatsApi,
    BudgetsApi,
    ExportApi,
    ConfigApi,
    EventsApi {}

/**
 * Typed client of the Session Analytics API. Every method accepts {@link CallOptions} (abort signal,
 * timeout, retry) last and rejects only with {@link AnalyticsApiError} (or `TypeError`/`RangeError`
 * for invalid arguments, before any request is sent).
 */
export class AnalyticsClient extends ClientCore {
  /**
   * Escape hatch for endpoints this client does not model: sends the request with the same
   * error handling and retry policy, and returns the parsed JSON (or `undefined` for an empty body).
   */
  async request(
    method: string,
    path: string,
    init: { query?: Record<string, QueryValue>; body?: unknown } = {},
    options?: CallOptions,
  ): Promise<unknown> {
    const { text, request, response } = await this.http.send({ method, path, ...init }, options, true);
    if (text === '') return undefined;
    return parseJson(text, request, response.status);
  }
}

type AreaClass = abstract new (...args: never[]) => ClientCore;

/** Copies each area's methods and accessors onto the client's prototype; a name may be defined once. */
function installAreas(target: AreaClass, areas: readonly AreaClass[]): void {
  for (const area of areas) {
    for (const [name, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(area.prototype))) {
      if (name === 'constructor') continue;
      if (Object.hasOwn(target.prototype, name)) throw new Error(`AnalyticsClient.${name} is defined twice`);
      Object.defineProperty(target.prototype, name, descriptor);
    }
  }
}

installAreas(AnalyticsClient, [
  SessionsApi,
  RecordsApi,
  PromptsApi,
  StatsApi,
  BudgetsApi,
  ExportApi,
  ConfigApi,
  EventsApi,
]);
