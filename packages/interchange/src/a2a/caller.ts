/**
 * Caller tokens: every A2A call carries `Authorization: Bearer <JWS>` signed by the calling
 * agent's key (the same key as its envelopes), addressed to the called agent, bound to the
 * JSON-RPC method, short-lived and single-use. The server derives the caller's tenant and
 * identity from this token only — never from `params.tenant` or anything else in the request.
 */
import { newId } from '@agentgov/core';
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

/** Verifies a caller token (no nonce consumed): the caller, its jti and expiry; throws with a reason. */
export async function verifyCallerToken(
  token: string | undefined,
  keys: KeyResolver,
  expect: { audience: Caller; method: string; nowMs: number },
): Promise<{ caller: Caller; jti: string; expMs: number }> {
  const fail = (reason: string): never => {
    throw Object.assign(new Error(`caller authentication failed: ${reason}`), { reason });
  };
  if (!token) return fail('caller_token_missing');
  if (token.length > 4096) return fail('caller_token_too_large');
  const h = protectedHeader(token);
  if (!h || h.typ !== CALLER_JWS_TYPE) return fail('caller_token_malformed');
  const caller = typeof h.kid === 'string' ? parseKeyId(h.kid) : undefined;
  if (!caller) return fail('caller_token_malformed');
  const key = (await keys.publicKey(caller.tenantId, caller.agentId))?.key;
  if (!key) return fail('unknown_caller');
  let payload: { aud?: unknown; method?: unknown; jti?: unknown; iat?: unknown; exp?: unknown };
  try {
    payload = JSON.parse(utf8.decode(await verifyCompact(token, key, h)));
  } catch {
    return fail('caller_signature_invalid');
  }
  if (payload.aud !== keyId(expect.audience.tenantId, expect.audience.agentId))
    return fail('caller_audience_mismatch');
  if (payload.method !== expect.method) return fail('caller_method_mismatch');
  if (typeof payload.jti !== 'string' || typeof payload.exp !== 'number' || typeof payload.iat !== 'number')
    return fail('caller_token_malformed');
  if (payload.exp * 1000 + 30_000 <= expect.nowMs) return fail('caller_token_expired');
  if (payload.iat * 1000 - 30_000 > expect.nowMs || payload.exp - payload.iat > 300)
    return fail('caller_token_not_valid_now');
  return { caller, jti: payload.jti, expMs: payload.exp * 1000 + 30_000 };
}
