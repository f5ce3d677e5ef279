// Building blocks of the wire mapping (one module per API area next to this one): zod field types for
// the real server's conventions (`""`/missing/`null` values, Go's zero time, `null` lists), converters
// to public values, the `extra` collection, key case conversion, and the decoder pairs the client uses.
// Schemas are `.loose()`: unknown fields pass validation and end up in each record's `extra`.
import { z } from 'zod';
import type * as T from '../types';

/** A string that may be missing, `null` or `""` (nullable column); mapped to `string | null`. */
export const optStr = z.string().nullish();
/** A string that may be missing; mapped to `''`. */
export const text = z.string().nullish();
/** A number that may be missing (Go `omitempty`); mapped to 0. */
export const num = z.number().nullish();
export const bool = z.boolean().nullish();

const GO_ZERO_TIME = /^0001-01-01T00:00:00(\.0+)?Z$/;

/** A timestamp: RFC 3339, `""`, missing, or Go's zero time. */
export const timestamp = z
  .string()
  .nullish()
  .refine((v) => !v || GO_ZERO_TIME.test(v) || !Number.isNaN(Date.parse(v)), {
    message: 'invalid timestamp',
  });

export const list = <S extends z.ZodType>(item: S) => z.array(item).nullish();

/** `""`, missing or `null` -> `null`. */
export function nz(v: string | null | undefined): string | null {
  return v === undefined || v === null || v === '' ? null : v;
}
/** Missing or `null` -> `''`. */
export function s(v: string | null | undefined): string {
  return v ?? '';
}
/** Missing or `null` -> 0. */
export function n(v: number | null | undefined): number {
  return v ?? 0;
}
/** A wire timestamp -> `Date`; `""`, missing, Go's zero time and unparsable values -> `null`. */
export function toDate(v: string | null | undefined): Date | null {
  if (!v || GO_ZERO_TIME.test(v)) return null;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? null : d;
}
/** A wire list that may be `null` or missing -> an array. */
export function arr<A, B>(items: readonly A[] | null | undefined, map: (a: A) => B): B[] {
  return (items ?? []).map(map);
}

/** Wire fields the schema does not know, under their wire names. */
export function extraOf(raw: Record<string, unknown>, schema: { shape: Record<string, unknown> }): T.Extra {
  const extra: T.Extra = {};
  for (const [key, value] of Object.entries(raw)) {
    if (!(key in schema.shape)) extra[key] = value;
  }
  return extra;
}

export function snakeToCamel(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}
export function camelToSnake(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}
/** A record keyed by wire names -> the same record keyed by camelCase names. */
export function camelKeys<V>(record: Record<string, V> | null | undefined): Record<string, V> {
  const out: Record<string, V> = {};
  for (const [k, v] of Object.entries(record ?? {})) out[snakeToCamel(k)] = v;
  return out;
}

/** A response body: the schema that validates it and the mapper to its public type. */
export interface Decoder<S extends z.ZodType, R> {
  readonly schema: S;
  readonly map: (wire: z.output<S>) => R;
}

export function decoder<S extends z.ZodType, R>(schema: S, map: (wire: z.output<S>) => R): Decoder<S, R> {
  return { schema, map };
}

/** A list the server wraps in an object under `key` (`{"tags": [...]}`, possibly `null`), unwrapped. */
export function wrappedList<K extends string, S extends z.ZodType, R>(
  key: K,
  item: S,
  map: (wire: z.output<S>) => R,
) {
  const schema = z.object({ [key]: list(item) } as Record<K, ReturnType<typeof list<S>>>).loose();
  return decoder(schema, (w) => arr((w as Record<K, z.output<S>[] | null | undefined>)[key], map));
}
