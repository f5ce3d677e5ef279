import { isValid, monotonicFactory } from 'ulid';
import type { Clock } from './clock';
import { systemClock } from './clock';

/** A new resource id (UUID v4 from the platform's CSPRNG). */
export function newId(): string {
  return globalThis.crypto.randomUUID();
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
export function isUuid(value: string): boolean {
  return UUID_RE.test(value);
}

/** Generates ULIDs, monotonic within one millisecond, timed by the given clock. */
export type UlidFactory = () => string;

export function createUlidFactory(clock: Clock = systemClock): UlidFactory {
  const next = monotonicFactory();
  return () => next(clock.now().getTime());
}

export function isUlid(value: string): boolean {
  return value.length === 26 && isValid(value);
}
