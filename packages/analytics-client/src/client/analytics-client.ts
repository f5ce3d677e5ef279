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

/** The client's methods that return a promise, each resolving with `{data, response}` instead. */
export type WithResponse<C> = {
  [K in Exclude<keyof C, 'withResponse'> as C[K] extends (...args: never[]) => Promise<unknown>
    ? K
    : never]: C[K] extends (...args: infer A) => Promise<infer R>
    ? (...args: A) => Promise<{ data: R; response: Response }>
    : never;
};

/**
 * Typed client of the Session Analytics API. Every method accepts {@link CallOptions} (abort signal,
 * timeout, retry, headers) last. Invalid arguments reject with {@link AnalyticsValidationError}
 * before anything is sent; every failed request rejects with {@link AnalyticsApiError}.
 */
export class AnalyticsClient extends ClientCore {
  /**
   * Escape hatch for endpoints this client does not model: sends the request with the same
   * error handling, hooks and retry policy, and returns the parsed JSON (or `undefined` for an empty body).
   */
  async request(
    method: string,
    path: string,
    init: { query?: Record<string, QueryValue>; body?: unknown } = {},
    options?: CallOptions,
  ): Promise<unknown> {
    const { text, request, response } = await this.text({ method, path, ...init }, options);
    if (text === '') return undefined;
    return parseJson(text, request, response);
  }

  /**
   * The same methods, resolving with the parsed value and the raw `Response` of the call (its last
   * attempt): `const { data, response } = await client.withResponse.getStats()`. For JSON calls the
   * body has been read (use `data`); status, headers and URL are there. Each call is independent,
   * so concurrent calls do not mix their responses.
   */
  get withResponse(): WithResponse<AnalyticsClient> {
    return new Proxy(this, {
      get(target, name) {
        const method: unknown = Reflect.get(target, name);
        if (typeof method !== 'function') return undefined;
        return async (...args: unknown[]) => {
          let response: Response | undefined;
          const view = Object.create(target, {
            responseSink: {
              value: (r: Response) => {
                response = r;
              },
            },
          }) as AnalyticsClient;
          const data: unknown = await method.apply(view, args);
          if (response === undefined) throw new TypeError(`AnalyticsClient.${String(name)} sends no request`);
          return { data, response };
        };
      },
    }) as unknown as WithResponse<AnalyticsClient>;
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
