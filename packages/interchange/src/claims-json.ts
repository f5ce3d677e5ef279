/**
 * The RFC 8785 canonical JSON of envelope claims (what `signEnvelope` signs), written field by
 * field in the canonical (sorted) key order instead of walking and sorting the object: the claims
 * have one fixed shape. Accept-only: claims of exactly that shape — the keys of
 * `EnvelopeClaimsSchema`, strings where it has strings (each with a canonical form), safe integers
 * for rounds and times, a boolean `final`, plain objects — give `canonicalJson`'s own text;
 * anything else gives undefined and `canonicalJson` runs (test/fast-parse.test.ts checks both agree).
 */
import { canonicalString } from '@agentgov/core';
import type { EnvelopeClaims } from './envelope';
import { hasOnly, isPlain, type Obj } from './fast-parse';

const CLAIM_KEYS = [
  'accepts',
  'contextId',
  'conversationId',
  'digest',
  'envelope',
  'exchangeType',
  'exp',
  'final',
  'from',
  'iat',
  'jti',
  'kind',
  'to',
] as const;
const ENVELOPE_KEYS = [
  'aiDisclosureLabel',
  'classificationLevel',
  'currentRound',
  'exchangeId',
  'maxRounds',
  'messageType',
  'protocolVersion',
  'replyPolicy',
] as const;
const FROM_KEYS = ['agentId', 'orgUnit', 'tenantId', 'userId'] as const;
const TO_KEYS = ['agentId', 'tenantId'] as const;

/** Thrown inside (never out): a member without the expected type or canonical form. */
const NOT_FAST = Symbol('not fast');

const s = (v: unknown): string => {
  const text = typeof v === 'string' ? canonicalString(v) : undefined;
  if (text === undefined) throw NOT_FAST;
  return text;
};
const n = (v: unknown): string => {
  if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw NOT_FAST;
  return String(v);
};

/** `canonicalJson(claims)` for claims of the signed shape; undefined for anything else. */
export function claimsJson(claims: EnvelopeClaims | Obj): string | undefined {
  const c = claims as Obj;
  if (!isPlain(c) || !hasOnly(c, CLAIM_KEYS, ['approvalId'])) return undefined;
  const { envelope: e, from: f, to: t } = c;
  if (!isPlain(e) || !hasOnly(e, ENVELOPE_KEYS) || !isPlain(f) || !hasOnly(f, FROM_KEYS)) return undefined;
  if (!isPlain(t) || !hasOnly(t, TO_KEYS) || typeof c.final !== 'boolean') return undefined;
  try {
    return (
      `{"accepts":${s(c.accepts)}${Object.hasOwn(c, 'approvalId') ? `,"approvalId":${s(c.approvalId)}` : ''}` +
      `,"contextId":${s(c.contextId)},"conversationId":${s(c.conversationId)},"digest":${s(c.digest)}` +
      `,"envelope":{"aiDisclosureLabel":${s(e.aiDisclosureLabel)},"classificationLevel":${s(e.classificationLevel)}` +
      `,"currentRound":${n(e.currentRound)},"exchangeId":${s(e.exchangeId)},"maxRounds":${n(e.maxRounds)}` +
      `,"messageType":${s(e.messageType)},"protocolVersion":${s(e.protocolVersion)},"replyPolicy":${s(e.replyPolicy)}}` +
      `,"exchangeType":${s(c.exchangeType)},"exp":${n(c.exp)},"final":${c.final ? 'true' : 'false'}` +
      `,"from":{"agentId":${s(f.agentId)},"orgUnit":${s(f.orgUnit)},"tenantId":${s(f.tenantId)},"userId":${s(f.userId)}}` +
      `,"iat":${n(c.iat)},"jti":${s(c.jti)},"kind":${s(c.kind)}` +
      `,"to":{"agentId":${s(t.agentId)},"tenantId":${s(t.tenantId)}}}`
    );
  } catch (error) {
    if (error === NOT_FAST) return undefined;
    throw error;
  }
}

/** One item value written directly: a string, finite number, boolean or null (else NOT_FAST). */
const value = (v: unknown): string => {
  if (typeof v === 'string') return s(v);
  if (typeof v === 'number' && Number.isFinite(v)) return JSON.stringify(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (v === null) return 'null';
  throw NOT_FAST;
};
const ITEM_KEYS = ['classification', 'field', 'source', 'value'] as const;
const noToJson = (o: object): boolean => typeof (o as { toJSON?: unknown }).toJSON !== 'function';

/**
 * `canonicalJson(content)` for message content of the exchange shape — `{text, items, commitment?}`,
 * items `{source, field, classification, value}` with strings and a primitive value, a commitment
 * `{action, detail?}` of strings, plain objects and arrays — written in the canonical key order;
 * undefined for anything else (`canonicalJson` runs; test/fast-parse.test.ts checks both agree).
 */
export function messageJson(content: unknown): string | undefined {
  if (!isPlain(content) || !noToJson(content) || !hasOnly(content, ['items', 'text'], ['commitment']))
    return undefined;
  const { items, commitment } = content;
  if (!Array.isArray(items) || Object.getPrototypeOf(items) !== Array.prototype || !noToJson(items))
    return undefined;
  try {
    let out = '{';
    if (Object.hasOwn(content, 'commitment')) {
      const c = commitment;
      if (!isPlain(c) || !noToJson(c) || !hasOnly(c, ['action'], ['detail'])) return undefined;
      out += `"commitment":{"action":${s(c.action)}${Object.hasOwn(c, 'detail') ? `,"detail":${s(c.detail)}` : ''}},`;
    }
    out += '"items":[';
    for (let i = 0; i < items.length; i++) {
      const it = items[i];
      if (!isPlain(it) || !noToJson(it) || !hasOnly(it, ITEM_KEYS)) return undefined;
      out +=
        `${i === 0 ? '' : ','}{"classification":${s(it.classification)},"field":${s(it.field)}` +
        `,"source":${s(it.source)},"value":${value(it.value)}}`;
    }
    return `${out}],"text":${s(content.text)}}`;
  } catch (error) {
    if (error === NOT_FAST) return undefined;
    throw error;
  }
}
