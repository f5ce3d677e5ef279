import { GovernanceError } from '@agentgov/core';

/**
 * Wraps a port (store, directory, registry) so that any rejection that is not already a typed
 * GovernanceError becomes 503 `service_unavailable`: a backing service that throws is "down",
 * never a 500 with a driver's message. Synchronous returns (async iterables) pass through.
 */
export function guardPort<T extends object>(port: T, what: string): T {
  return new Proxy(port, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        let out: unknown;
        try {
          out = (value as (...a: unknown[]) => unknown).apply(target, args);
        } catch (error) {
          throw unavailable(error, what);
        }
        if (out instanceof Promise)
          return out.catch((error: unknown) => Promise.reject(unavailable(error, what)));
        return out;
      };
    },
  });
}

function unavailable(error: unknown, what: string): GovernanceError {
  if (error instanceof GovernanceError) return error;
  return new GovernanceError('service_unavailable', `The ${what} is unavailable`, { cause: error });
}
