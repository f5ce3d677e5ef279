/**
 * Fast paths of the two schemas every round parses at an untyped edge: the message content
 * (`ExchangeMessageSchema`: the wire content, the caller's query, the agent's answer; here) and
 * the envelope claims (a verified JWS payload, `EnvelopeClaimsSchema`; `parseClaims` in
 * ./envelope, with these helpers). The schemas stay the one source of
 * truth: a fast path only ever ACCEPTS, and only values it can see at a glance the schema accepts
 * unchanged — exact key sets, plain objects, ASCII where a length is counted — returning what the
 * schema returns for them (same fields, same key order); anything else, every refusal included,
 * goes to the schema itself. `test/fast-parse.test.ts` checks with fast-check that whatever a
 * fast path accepts the schema accepts with the same output.
 */

import { CLASSIFICATION_LEVELS, EXCHANGE_TYPES, MESSAGE_TYPES, REPLY_POLICIES } from '@agentgov/core';
import { valueDepthOk } from './json-depth';
import { type ExchangeMessage, ExchangeMessageSchema } from './message';

export type Obj = Record<string, unknown>;

export const isPlain = (v: unknown): v is Obj => {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
};

/** Own enumerable keys exactly `keys` (same count, each present), optional ones allowed. */
export function hasOnly(o: Obj, required: readonly string[], optional: readonly string[] = []): boolean {
  let n = 0;
  for (const k of required) {
    if (!Object.hasOwn(o, k)) return false;
    n++;
  }
  for (const k of optional) if (Object.hasOwn(o, k)) n++;
  return Object.keys(o).length === n;
}

/**
 * A string of `min`..`max` characters as the schema counts them (code points): with `max` alone
 * the UTF-16 length bounds it from above; a `min` above 1 is only taken on ASCII (else: schema).
 */
const ASCII = /^[\x20-\x7e]*$/;
export function str(v: unknown, min: number, max: number): v is string {
  if (typeof v !== 'string' || v.length < min || v.length > max) return false;
  return min <= 1 || ASCII.test(v);
}

export const oneOf = (values: readonly string[]) => {
  const set = new Set(values);
  return (v: unknown): boolean => typeof v === 'string' && set.has(v);
};
export const isLevel = oneOf(CLASSIFICATION_LEVELS);
export const isExchangeType = oneOf(EXCHANGE_TYPES);
export const isMessageType = oneOf(MESSAGE_TYPES);
export const isReplyPolicy = oneOf(REPLY_POLICIES);
/** Lower-case RFC 9562 UUIDs of versions 1–8: a subset of what `z.uuid()` accepts. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
export const isInt = (v: unknown, min = Number.NEGATIVE_INFINITY): v is number =>
  typeof v === 'number' && Number.isSafeInteger(v) && v >= min;

const ITEM_KEYS = ['source', 'field', 'classification', 'value'] as const;

/** What `ExchangeMessageSchema` returns for `value` when that is plain at a glance, else undefined. */
export function fastMessage(value: unknown): ExchangeMessage | undefined {
  if (!isPlain(value) || !hasOnly(value, ['text', 'items'], ['commitment'])) return undefined;
  const { text, items, commitment } = value;
  if (!str(text, 0, 16_384) || !Array.isArray(items) || items.length > 10_000) return undefined;
  const out: ExchangeMessage['items'] = new Array(items.length);
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (!isPlain(item) || !hasOnly(item, ITEM_KEYS)) return undefined;
    const { source, field, classification, value: v } = item;
    if (
      !str(source, 1, 255) ||
      !str(field, 1, 255) ||
      !isLevel(classification) ||
      v === undefined ||
      !valueDepthOk(v)
    )
      return undefined;
    out[i] = {
      source,
      field,
      classification: classification as ExchangeMessage['items'][number]['classification'],
      value: v,
    };
  }
  if (!Object.hasOwn(value, 'commitment')) return { text, items: out };
  if (!isPlain(commitment) || !hasOnly(commitment, ['action'], ['detail'])) return undefined;
  const { action, detail } = commitment;
  if (!str(action, 1, 255)) return undefined;
  if (!Object.hasOwn(commitment, 'detail')) return { text, items: out, commitment: { action } };
  if (!str(detail, 0, 4096)) return undefined;
  return { text, items: out, commitment: { action, detail } };
}

/** `ExchangeMessageSchema.safeParse`, through the fast path when it applies. */
export function parseMessage(
  value: unknown,
): { success: true; data: ExchangeMessage } | ReturnType<typeof ExchangeMessageSchema.safeParse> {
  const fast = fastMessage(value);
  return fast ? { success: true, data: fast } : ExchangeMessageSchema.safeParse(value);
}
