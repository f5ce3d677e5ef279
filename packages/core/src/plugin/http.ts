/**
 * Small HTTP helpers shared by the kernel and every plugin: JSON responses, error construction,
 * the spec's error body schema, and `guardPort` (a backing service that throws is "down": 503).
 */
import { z } from 'zod';
import { type ErrorCode, GovernanceError } from '../index';

/** A JSON response with `content-type: application/json; charset=utf-8`. */
export function json(status: number, body: unknown, headers?: HeadersInit): Response {
  const h = new Headers(headers);
  h.set('content-type', 'application/json; charset=utf-8');
  return new Response(JSON.stringify(body), { status, headers: h });
}

/** A GovernanceError with an optional message and `detail`. */
export function errorOf(code: ErrorCode, message?: string, detail?: unknown): GovernanceError {
  return new GovernanceError(code, message, detail === undefined ? undefined : { detail });
}

/** The spec's error body, for route response declarations. */
export const ErrorBodySchema = z
  .object({
    error: z.string(),
    message: z.string(),
    detail: z.unknown().optional(),
  })
  .meta({ id: 'ErrorBody' });

/** `{ description, schema: ErrorBodySchema }` for a route's error responses. */
export const errorSpec = (description: string) => ({ description, schema: ErrorBodySchema });

/** Query parameters as an object; a repeated parameter keeps its first value. */
export function queryObject(url: URL): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of url.searchParams) if (!(k in out)) out[k] = v;
  return out;
}

/** `{id}` path parameter: 1–255 characters. */
export const IdParams = z.object({ id: z.string().min(1).max(255) });

/**
 * Wraps a port (store, directory, registry) so that any rejection that is not already a typed
 * GovernanceError becomes 503 `service_unavailable`: a backing service that throws is "down",
 * never a 500 with a driver's message. Synchronous returns (async iterables) pass through.
 * Each method's wrapper is made once per method (re-made only if the port's method changes).
 */
export function guardPort<T extends object>(port: T, what: string): T {
  const wrappers = new Map<PropertyKey, { method: unknown; wrapper: (...args: unknown[]) => unknown }>();
  const rejectUnavailable = (error: unknown): never => {
    throw unavailable(error, what);
  };
  return new Proxy(port, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (typeof value !== 'function') return value;
      const cached = wrappers.get(key);
      if (cached?.method === value) return cached.wrapper;
      const wrapper = (...args: unknown[]) => {
        let out: unknown;
        try {
          out = (value as (...a: unknown[]) => unknown).apply(target, args);
        } catch (error) {
          throw unavailable(error, what);
        }
        return out instanceof Promise ? out.catch(rejectUnavailable) : out;
      };
      wrappers.set(key, { method: value, wrapper });
      return wrapper;
    },
  });
}

function unavailable(error: unknown, what: string): GovernanceError {
  if (error instanceof GovernanceError) return error;
  return new GovernanceError('service_unavailable', `The ${what} is unavailable`, { cause: error });
}
