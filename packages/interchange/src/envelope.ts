/**
 * The signed envelope (spec: "Exchange message envelope"). The envelope's fields travel inside a
 * JWS signed by the sending agent's key, together with what binds it to one delivery: who sends
 * (tenant, agent, user, org unit), the audience (the receiving agent), the exchange type and
 * conversation, a transport context id, a digest of the message content, a unique `jti` and an
 * expiry. A receiver trusts none of these fields until the signature verifies with the key of the
 * agent the header names, the claimed sender equals that agent and the claimed user equals the
 * user that key is bound to. The sender's org unit in the envelope is what the sender believes;
 * a receiver takes org unit and team from its own org directory, never from the envelope.
 */
import * as nodeCrypto from 'node:crypto';
import {
  ClassificationLevelSchema,
  canonicalJson,
  type Envelope,
  EnvelopeSchema,
  ExchangeTypeSchema,
  err,
  INTERCHANGE_PROTOCOL_VERSION,
  newId,
  ok,
  type Result,
  VerificationError,
} from '@agentgov/core';
import { z } from 'zod';
import { claimsJson, messageJson } from './claims-json';
import {
  hasOnly,
  isExchangeType,
  isInt,
  isLevel,
  isMessageType,
  isPlain,
  isReplyPolicy,
  oneOf,
  str,
  UUID,
} from './fast-parse';
import { protectedHeader, signCompact, signCompactSync, verifyCompact, verifyCompactSync } from './jws';
import { type KeyResolver, keyId, parseKeyId, type SigningKey } from './keys';

/** The fixed AI disclosure label every envelope carries. */
export const AI_DISCLOSURE_LABEL = "This message was sent by the user's AI assistant." as const;
const ENVELOPE_JWS_TYPE = 'agentgov-envelope+jws';
const utf8 = new TextDecoder();
/** Largest accepted compact JWS (bytes). */
export const MAX_ENVELOPE_BYTES = 16_384;
/** Longest accepted envelope lifetime (`exp - iat`) by default, ms: 300 s, like caller tokens. */
export const MAX_ENVELOPE_LIFETIME_MS = 300_000;

const Party = z.object({
  tenantId: z.string().min(1).max(255),
  agentId: z.string().min(1).max(255),
  userId: z.string().min(1).max(255),
  orgUnit: z.string().min(1).max(255),
});

export const EnvelopeClaimsSchema = z.strictObject({
  envelope: EnvelopeSchema.extend({ aiDisclosureLabel: z.literal(AI_DISCLOSURE_LABEL) }),
  /** query: a round from the initiator; reply: the responder's answer; collect: asks for a pending reply. */
  kind: z.enum(['query', 'reply', 'collect']),
  /** On a query: the initiator closes the exchange once this round is answered. */
  final: z.boolean().default(true),
  exchangeType: ExchangeTypeSchema,
  conversationId: z.string().min(1).max(255),
  from: Party,
  /** The audience: the agent this delivery is for. */
  to: z.object({ tenantId: z.string().min(1).max(255), agentId: z.string().min(1).max(255) }),
  /** Transport context (the A2A contextId; the conversation id in-process). */
  contextId: z.string().min(1).max(255),
  /** base64url SHA-256 of the canonical JSON of the message content. */
  digest: z.string().length(43),
  /** The highest level the sender accepts in return (it can only lower what the other side sends). */
  accepts: ClassificationLevelSchema,
  /** When a human approved what this message carries (commitments): the approval id. */
  approvalId: z.string().min(1).max(255).optional(),
  jti: z.string().min(16).max(128),
  iat: z.number().int(),
  exp: z.number().int(),
});
export type EnvelopeClaims = z.infer<typeof EnvelopeClaimsSchema>;

const ENVELOPE_KEYS = [
  'protocolVersion',
  'messageType',
  'replyPolicy',
  'exchangeId',
  'currentRound',
  'maxRounds',
  'classificationLevel',
  'aiDisclosureLabel',
] as const;
const CLAIM_KEYS = [
  'envelope',
  'kind',
  'final',
  'exchangeType',
  'conversationId',
  'from',
  'to',
  'contextId',
  'digest',
  'accepts',
  'jti',
  'iat',
  'exp',
] as const;
const PARTY_KEYS = ['tenantId', 'agentId', 'userId', 'orgUnit'] as const;

const DIGEST = /^[A-Za-z0-9_-]{43}$/;
const isKind = oneOf(['query', 'reply', 'collect']);

export function fastClaims(value: unknown): EnvelopeClaims | undefined {
  if (!isPlain(value) || !hasOnly(value, CLAIM_KEYS, ['approvalId'])) return undefined;
  const c = value;
  const e = c.envelope;
  if (!isPlain(e) || !hasOnly(e, ENVELOPE_KEYS)) return undefined;
  if (
    e.protocolVersion !== INTERCHANGE_PROTOCOL_VERSION ||
    !isMessageType(e.messageType) ||
    !isReplyPolicy(e.replyPolicy) ||
    typeof e.exchangeId !== 'string' ||
    !UUID.test(e.exchangeId) ||
    !isInt(e.currentRound, 0) ||
    !isInt(e.maxRounds, 1) ||
    !isLevel(e.classificationLevel) ||
    e.aiDisclosureLabel !== AI_DISCLOSURE_LABEL
  )
    return undefined;
  const from = c.from;
  const to = c.to;
  if (!isPlain(from) || !hasOnly(from, PARTY_KEYS) || !isPlain(to) || !hasOnly(to, ['tenantId', 'agentId']))
    return undefined;
  for (const k of PARTY_KEYS) if (!str(from[k], 1, 255)) return undefined;
  if (!str(to.tenantId, 1, 255) || !str(to.agentId, 1, 255)) return undefined;
  if (
    !isKind(c.kind) ||
    typeof c.final !== 'boolean' ||
    !isExchangeType(c.exchangeType) ||
    !str(c.conversationId, 1, 255) ||
    !str(c.contextId, 1, 255) ||
    typeof c.digest !== 'string' ||
    !DIGEST.test(c.digest) ||
    !isLevel(c.accepts) ||
    (Object.hasOwn(c, 'approvalId') && !str(c.approvalId, 1, 255)) ||
    !str(c.jti, 16, 128) ||
    !isInt(c.iat) ||
    !isInt(c.exp)
  )
    return undefined;
  return c as unknown as EnvelopeClaims;
}

/**
 * `EnvelopeClaimsSchema.safeParse` of a freshly parsed JWS payload, through the fast path when it
 * applies (see ./fast-parse) (nobody else holds it: the
 * fast path returns it as it is, the schema returns a copy).
 */
export function parseClaims(value: unknown): { success: true; data: EnvelopeClaims } | { success: false } {
  const fast = fastClaims(value);
  if (fast) return { success: true, data: fast };
  return EnvelopeClaimsSchema.safeParse(value);
}

/** node:crypto's one-shot `hash` (node ≥ 20.12), else createHash: the same SHA-256. */
const oneShot = (nodeCrypto as { hash?: (alg: string, data: string, enc: 'base64url') => string }).hash;
const sha256 = (text: string): string =>
  oneShot
    ? oneShot('sha256', text, 'base64url')
    : nodeCrypto.createHash('sha256').update(text).digest('base64url');

/**
 * base64url SHA-256 of the RFC 8785 canonical JSON of `content` (message content of the exchange
 * shape written directly, `messageJson`; anything else through `canonicalJson`).
 */
export function contentDigest(content: unknown): string {
  return sha256(messageJson(content) ?? canonicalJson(content ?? null));
}

/** The envelope as signed: the spec's fields with the fixed label. */
export type SignedEnvelope = Envelope & { aiDisclosureLabel: typeof AI_DISCLOSURE_LABEL };

export function buildEnvelope(
  fields: Omit<Envelope, 'protocolVersion' | 'aiDisclosureLabel'>,
): SignedEnvelope {
  return { protocolVersion: INTERCHANGE_PROTOCOL_VERSION, ...fields, aiDisclosureLabel: AI_DISCLOSURE_LABEL };
}

export async function signEnvelope(
  key: SigningKey,
  claims: Omit<EnvelopeClaims, 'jti' | 'iat' | 'exp'>,
  options: { nowMs: number; ttlMs: number },
): Promise<{ jws: string; claims: EnvelopeClaims }> {
  const full: EnvelopeClaims = {
    ...claims,
    jti: newId(),
    iat: Math.floor(options.nowMs / 1000),
    exp: Math.floor((options.nowMs + options.ttlMs) / 1000),
  };
  const header = { alg: key.alg, kid: keyId(key.tenantId, key.agentId), typ: ENVELOPE_JWS_TYPE };
  const payload = claimsJson(full) ?? canonicalJson(full);
  // node:crypto at once; jose (a promise) only for what it alone signs
  const jws =
    signCompactSync(header, payload, key.privateKey) ?? (await signCompact(header, payload, key.privateKey));
  return { jws, claims: full };
}

/** Why an envelope was refused (in the error's `detail.reason`). */
export type EnvelopeRejection =
  | 'envelope_missing'
  | 'envelope_too_large'
  | 'envelope_malformed'
  | 'unknown_signer'
  | 'signature_invalid'
  | 'sender_mismatch'
  | 'user_unbound'
  | 'user_mismatch'
  | 'audience_mismatch'
  | 'context_mismatch'
  | 'digest_mismatch'
  | 'expired'
  | 'not_yet_valid'
  | 'lifetime_too_long'
  | 'replayed';

/** A refused envelope: a `VerificationError` whose `reason` is an `EnvelopeRejection`. */
export type EnvelopeVerificationError = VerificationError<EnvelopeRejection>;
/** @deprecated `verifyEnvelope` answers a `Result`; its error is an `EnvelopeVerificationError`. */
export type EnvelopeRejectedError = EnvelopeVerificationError;

export interface VerifyExpectations {
  /** The receiving agent: the envelope must be addressed to it. */
  audience: { tenantId: string; agentId: string };
  /** The content the digest must match. */
  content: unknown;
  /** When given, the envelope's contextId must equal it. */
  contextId?: string;
  nowMs: number;
  /** Allowed clock skew, ms (default 30 s). */
  skewMs?: number;
  /**
   * Longest accepted lifetime, ms (default MAX_ENVELOPE_LIFETIME_MS, 300 s): `exp - iat` above it,
   * or an `exp` later than now + this + the skew, is refused (`lifetime_too_long`).
   */
  maxLifetimeMs?: number;
}

const reject = (reason: EnvelopeRejection, message: string): Result<never, EnvelopeVerificationError> =>
  err(new VerificationError(reason, message));

/**
 * Verifies a compact JWS envelope: size, header, signature by the key of the agent the header
 * names, claims shape, sender = signer, user = the key's user, audience, context, digest, time
 * window and lifetime. Never throws for anything in its input: a refusal is an
 * `EnvelopeVerificationError` whose `reason` says which check failed (a key resolver that fails
 * still throws — that is the store's failure, not the envelope's). Consumes nothing: replay is
 * checked by the caller afterwards (`replayed`).
 */
export async function verifyEnvelope(
  jws: unknown,
  keys: KeyResolver,
  expect: VerifyExpectations,
): Promise<Result<EnvelopeClaims, EnvelopeVerificationError>> {
  if (typeof jws !== 'string' || jws.length === 0) return reject('envelope_missing', 'no signed envelope');
  if (jws.length > MAX_ENVELOPE_BYTES) return reject('envelope_too_large', 'the envelope exceeds 16 KiB');
  const header = protectedHeader(jws);
  if (!header) return reject('envelope_malformed', 'the envelope is not a compact JWS');
  if (header.typ !== ENVELOPE_JWS_TYPE) return reject('envelope_malformed', 'wrong envelope type');
  const signer = typeof header.kid === 'string' ? parseKeyId(header.kid) : undefined;
  if (!signer) return reject('envelope_malformed', 'the envelope names no signer');
  const bound = await keys.publicKey(signer.tenantId, signer.agentId);
  if (!bound?.key) return reject('unknown_signer', 'no key is known for the signing agent');
  let payload: Uint8Array;
  try {
    payload = verifyCompactSync(jws, bound.key, header) ?? (await verifyCompact(jws, bound.key, header));
  } catch {
    return reject('signature_invalid', 'the envelope signature does not verify');
  }
  let parsed: ReturnType<typeof parseClaims>;
  try {
    parsed = parseClaims(JSON.parse(utf8.decode(payload)));
  } catch {
    return reject('envelope_malformed', 'the envelope payload is not JSON');
  }
  if (!parsed.success) return reject('envelope_malformed', 'the envelope claims are invalid');
  const c = parsed.data;
  if (c.from.tenantId !== signer.tenantId || c.from.agentId !== signer.agentId)
    return reject('sender_mismatch', 'the envelope claims a sender other than its signer');
  // An agent acts for exactly one user: the one its key is bound to, never one the envelope names.
  if (typeof bound.userId !== 'string' || bound.userId.length === 0)
    return reject('user_unbound', 'the signing key is bound to no user');
  if (c.from.userId !== bound.userId)
    return reject('user_mismatch', "the envelope claims a user other than its signing key's user");
  if (c.to.tenantId !== expect.audience.tenantId || c.to.agentId !== expect.audience.agentId)
    return reject('audience_mismatch', 'the envelope is addressed to another agent');
  if (expect.contextId !== undefined && c.contextId !== expect.contextId)
    return reject('context_mismatch', 'the envelope belongs to another context');
  if (c.digest !== contentDigest(expect.content))
    return reject('digest_mismatch', 'the message content does not match the envelope');
  const skew = expect.skewMs ?? 30_000;
  if (c.exp * 1000 + skew <= expect.nowMs) return reject('expired', 'the envelope has expired');
  if (c.iat * 1000 - skew > expect.nowMs) return reject('not_yet_valid', 'the envelope is not valid yet');
  if (c.exp <= c.iat) return reject('envelope_malformed', 'the envelope expires before it was issued');
  const maxLifetime = expect.maxLifetimeMs ?? MAX_ENVELOPE_LIFETIME_MS;
  if ((c.exp - c.iat) * 1000 > maxLifetime)
    return reject('lifetime_too_long', `the envelope lives longer than ${maxLifetime / 1000} s`);
  if (c.exp * 1000 > expect.nowMs + maxLifetime + skew)
    return reject('lifetime_too_long', 'the envelope expires too far in the future');
  return ok(c);
}
