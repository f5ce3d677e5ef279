// Wire mapping of the server configuration (spec: Config, fields not documented): the known parts are
// validated, and the whole tree is converted key by key between snake_case and camelCase, so unknown
// fields survive a `getConfig` -> `saveConfig` round trip.
import { z } from 'zod';
import type * as T from '../types';
import { camelToSnake, decoder, num, snakeToCamel, text } from './primitives';

const wireConfig = z
  .object({
    server: z.object({ port: num, host: text }).loose().nullish(),
    capture: z
      .object({
        metadata: z.record(z.string(), z.boolean()).nullish(),
        events: z.record(z.string(), z.boolean()).nullish(),
      })
      .loose()
      .nullish(),
    storage: z.record(z.string(), z.unknown()).nullish(),
    cost: z
      .object({
        models: z
          .record(
            z.string(),
            z.object({ input: num, output: num, cache_read: num, cache_write: num }).loose(),
          )
          .nullish(),
      })
      .loose()
      .nullish(),
    ui: z.record(z.string(), z.unknown()).nullish(),
  })
  .loose();

/** Keys under these paths are map keys (names), not field names: never case-converted. */
const CONFIG_MAP_PATHS = new Set(['cost.models']);

function convertKeys(value: unknown, convert: (k: string) => string, path: string): unknown {
  if (Array.isArray(value)) return value.map((v) => convertKeys(v, convert, path));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  const isMap = CONFIG_MAP_PATHS.has(path);
  for (const [k, v] of Object.entries(value)) {
    // Path tracking uses the camelCase spelling so both directions agree.
    const camel = snakeToCamel(k);
    const childPath = isMap ? `${path}.*` : path ? `${path}.${camel}` : camel;
    out[isMap ? k : convert(k)] = convertKeys(v, convert, childPath);
  }
  return out;
}

/** `GET /api/config` and `POST /api/config`. */
export const analyticsConfig = decoder(
  wireConfig,
  (w) => convertKeys(w, snakeToCamel, '') as T.AnalyticsConfig,
);

export function configToWire(config: T.AnalyticsConfig): Record<string, unknown> {
  return convertKeys(config, camelToSnake, '') as Record<string, unknown>;
}
