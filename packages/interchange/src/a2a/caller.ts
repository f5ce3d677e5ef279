/**
 * Caller tokens: every A2A call carries `Authorization: Bearer <JWS>` signed by the calling
 * agent's key (the same key as its envelopes), addressed to the called agent, bound to the
 * JSON-RPC method, short-lived and single-use. The server derives the caller's tenant and
 * identity from this token only — never from `params.tenant` or anything else in the request.
 */
import type { User } from '@a2a-js/sdk/server';
import { err, newId, ok, type Result, VerificationError } from '@agentgov/core';
import { protectedHeader, signCompact, verifyCompact } from '../jws';
import { type KeyResolver, keyId, parseKeyId, type SigningKey } from '../keys';

export const CALLER_JWS_TYPE = 'agentgov-caller+jws';
const utf8 = new TextDecoder();

export interface Caller {
  tenantId: string;
  agentId: string;
}

export async function callerToken(
  key: SigningKey,
  audience: Caller,
  method: string,
  nowMs: number,
  ttlMs = 30_000,
): Promise<string> {
  const payload = {
    aud: keyId(audience.tenantId, audience.agentId),
    method,
    jti: newId(),
    iat: Math.floor(nowMs / 1000),
    exp: Math.floor((nowMs + ttlMs) / 1000),
  };
  return signCompact(
    { alg: key.alg, kid: keyId(key.tenantId, key.agentId), typ: CALLER_JWS_TYPE },
    JSON.stringify(payload),
    key.privateKey,
  );
}

/** Why a caller token was refused (the JSON-RPC error's `data.reason`). */
export type CallerRejection =
  | 'caller_token_missing'
  | 'caller_token_too_large'
  | 'caller_token_malformed'
  | 'unknown_caller'
  | 'caller_signature_invalid'
  | 'caller_audience_mismatch'
  | 'caller_method_mismatch'
  | 'caller_token_expired'
  | 'caller_token_not_valid_now';

/** A refused caller token: a `VerificationError` whose `reason` is a `CallerRejection`. */
export type CallerVerificationError = VerificationError<CallerRejection>;

/** A verified caller token: who calls, its `jti` (for the replay guard) and when it expires, ms. */
export interface VerifiedCaller {
  caller: Caller;
  jti: string;
  expMs: number;
}

/**
 * Verifies a caller token (no nonce consumed): the caller, its jti and expiry. Never throws for
 * anything in the token: a refusal is a `CallerVerificationError` (a key resolver that fails
 * still throws).
 */
export async function verifyCallerToken(
  token: unknown,
  keys: KeyResolver,
  expect: { audience: Caller; method: string; nowMs: number },
): Promise<Result<VerifiedCaller, CallerVerificationError>> {
  const fail = (reason: CallerRejection): Result<never, CallerVerificationError> =>
    err(new VerificationError(reason, `caller authentication failed: ${reason}`));
  if (typeof token !== 'string' || token === '') return fail('caller_token_missing');
  if (token.length > 4096) return fail('caller_token_too_large');
  const h = protectedHeader(token);
  if (!h || h.typ !== CALLER_JWS_TYPE) return fail('caller_token_malformed');
  const caller = typeof h.kid === 'string' ? parseKeyId(h.kid) : undefined;
  if (!caller) return fail('caller_token_malformed');
  const key = (await keys.publicKey(caller.tenantId, caller.agentId))?.key;
  if (!key) return fail('unknown_caller');
  let payload: { aud?: unknown; method?: unknown; jti?: unknown; iat?: unknown; exp?: unknown } | null;
  try {
    payload = JSON.parse(utf8.decode(await verifyCompact(token, key, h)));
  } catch {
    return fail('caller_signature_invalid');
  }
  if (typeof payload !== 'object' || payload === null) return fail('caller_token_malformed');
  if (payload.aud !== keyId(expect.audience.tenantId, expect.audience.agentId))
    return fail('caller_audience_mismatch');
  if (payload.method !== expect.method) return fail('caller_method_mismatch');
  if (typeof payload.jti !== 'string' || typeof payload.exp !== 'number' || typeof payload.iat !== 'number')
    return fail('caller_token_malformed');
  if (payload.exp * 1000 + 30_000 <= expect.nowMs) return fail('caller_token_expired');
  if (payload.iat * 1000 - 30_000 > expect.nowMs || payload.exp - payload.iat > 300)
    return fail('caller_token_not_valid_now');
  return ok({ caller, jti: payload.jti, expMs: payload.exp * 1000 + 30_000 });
}

/** The SDK's user of a request: the caller the gate authenticated (tenant and agent). */
export class CallerUser implements User {
  readonly #name: string;
  constructor(caller: Caller) {
    this.#name = keyId(caller.tenantId, caller.agentId);
  }
  get isAuthenticated(): boolean {
    return true;
  }
  get userName(): string {
    return this.#name;
  }
}
